# SPDX-License-Identifier: Apache-2.0
"""A data set whose items cost `work` iterations of a Python loop each
(decoding, augmenting), for the DataLoader-bound test jobs."""
import torch
from torch.utils.data import Dataset


class Slow(Dataset):
    def __init__(self, work):
        self.work = work

    def __len__(self):
        return 100000

    def __getitem__(self, i):
        acc = 0
        for k in range(self.work):
            acc = (acc + k * i) % 65521
        return torch.full((16,), float(acc % 7)), i % 4
