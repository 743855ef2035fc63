__version__ = '1.12.1+cu113'
cuda = '11.3'
