from typing import Optional
__version__ = '2.7.0+cu128'
debug = False
cuda: Optional[str] = '12.8'
hip: Optional[str] = None
