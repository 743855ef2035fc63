# SPDX-License-Identifier: Apache-2.0
"""Two ranks under torchrun (gloo, CPU; launch.py starts them as torchrun
would): DistributedDataParallel over a DataLoader whose items cost a Python
loop in each rank's main process. Each rank gets its own trace from
`run --profile`."""
import sys

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from dl_slow import Slow
from loop import mlp, train

dist.init_process_group("gloo")
torch.manual_seed(0)
torch.set_num_threads(1)
data = Slow(20000)
train(torch.nn.parallel.DistributedDataParallel(mlp(16, 32, 4)),
      DataLoader(data, batch_size=8, sampler=DistributedSampler(data, seed=0)),
      int(sys.argv[1]) if len(sys.argv) > 1 else 25)
dist.destroy_process_group()
