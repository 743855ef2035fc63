# SPDX-License-Identifier: Apache-2.0
"""A DataLoader-bound job: every item costs a Python loop in the main process
(num_workers=0), the model step is tiny. `run --profile` must name the
DataLoader first. Prints its final loss (the same with or without the hook)."""
import sys

import torch
from torch.utils.data import DataLoader

from dl_slow import Slow
from loop import mlp, train

torch.manual_seed(0)
torch.set_num_threads(1)
train(mlp(16, 32, 4), DataLoader(Slow(30000), batch_size=8, shuffle=True, num_workers=0),
      int(sys.argv[1]) if len(sys.argv) > 1 else 40)
