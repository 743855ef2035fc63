# SPDX-License-Identifier: Apache-2.0
"""An .item()-bound job: the data is in memory, the step is small, and every
step reads each hidden activation back with .item() (a metrics loop gone
wrong: 8192 reads of one value each). Prints its final loss (the same with
or without the hook)."""
import sys

import torch
from torch.utils.data import BatchSampler, DataLoader, RandomSampler, TensorDataset

from loop import mlp, train

torch.manual_seed(0)
torch.set_num_threads(1)
data = TensorDataset(torch.randn(16384, 16), torch.randint(0, 4, (16384,)))
model = mlp(16, 32, 4)
total = [0.0]


def read_back(x, out):
    for v in model[0](x).detach().flatten():
        total[0] += v.item()


# Whole batches indexed at once: loading costs next to nothing.
loader = DataLoader(data, sampler=BatchSampler(RandomSampler(data), 256, False), batch_size=None)
train(model, loader, int(sys.argv[1]) if len(sys.argv) > 1 else 30, read_back, lambda: " (sum %.3f)" % total[0])
