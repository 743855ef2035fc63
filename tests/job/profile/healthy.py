# SPDX-License-Identifier: Apache-2.0
"""A healthy job: the data is in memory, whole batches are indexed at once,
and the step is the model's work (a few matrix multiplies), nothing else.
`run --profile` finds no cause. Prints its final loss (the same with or
without the hook)."""
import sys

import torch
from torch.utils.data import BatchSampler, DataLoader, RandomSampler, TensorDataset

from loop import mlp, train

torch.manual_seed(0)
torch.set_num_threads(1)
data = TensorDataset(torch.randn(2048, 256), torch.randint(0, 10, (2048,)))
train(mlp(256, 1024, 10), DataLoader(data, sampler=BatchSampler(RandomSampler(data), 512, False), batch_size=None),
      int(sys.argv[1]) if len(sys.argv) > 1 else 25)
