# SPDX-License-Identifier: Apache-2.0
"""A small PyTorch training job whose Dataset does real CPU work per item.

gpudoctor's end-to-end tests run it under `gpudoctor run` while a simulated
GPU plays a matching scenario: with --workers 0 the main process loads every
batch itself (one thread at a full core), with --workers 4 and persistent
workers the loading runs in worker processes, and without --persistent the
workers end with each epoch's iterator and start again. The job trains for
--seconds of wall time (epochs of --epoch-seconds), then exits with --exit;
--hold keeps a file open meanwhile (a stand-in for /dev/nvidiaN in an
emulated container).
"""
import argparse
import warnings
import sys
import time

import torch
from torch.utils.data import DataLoader, Dataset


class SlowDataset(Dataset):
    """Each item costs `work` iterations of a Python loop (decoding, augmenting)."""

    def __init__(self, items, work):
        self.items = items
        self.work = work

    def __len__(self):
        return self.items

    def __getitem__(self, i):
        acc = 0
        for k in range(self.work):
            acc = (acc + k * i) % 65521
        x = torch.full((16,), float(acc % 7))
        return x, i % 4


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--workers", type=int, default=0)
    ap.add_argument("--persistent", action="store_true")
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--epoch-seconds", type=float, default=0.0, help="0: an epoch is the whole data set")
    ap.add_argument("--work", type=int, default=20000)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--exit", type=int, default=0)
    ap.add_argument("--hold", action="append", default=[],
                    help="a device file to hold open while training, as CUDA holds /dev/nvidiaN")
    a = ap.parse_args()
    held = [open(path, "rb") for path in a.hold]  # noqa: SIM115 (held until the job ends)
    warnings.filterwarnings("ignore", message="This DataLoader will create")

    torch.set_num_threads(1)
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 4))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    loss_fn = torch.nn.CrossEntropyLoss()
    data = SlowDataset(100000, a.work)
    loader = DataLoader(data, batch_size=a.batch, shuffle=True, num_workers=a.workers,
                        persistent_workers=a.persistent and a.workers > 0)

    start = time.monotonic()
    steps = epochs = 0
    while time.monotonic() - start < a.seconds:
        epoch_start = time.monotonic()
        for x, y in loader:
            opt.zero_grad()
            loss_fn(model(x), y).backward()
            opt.step()
            steps += 1
            now = time.monotonic()
            if now - start >= a.seconds or (a.epoch_seconds and now - epoch_start >= a.epoch_seconds):
                break
        epochs += 1
    print(f"train.py: {steps} steps, {epochs} epochs, {a.workers} workers in {time.monotonic() - start:.1f} s, "
          f"{len(held)} files held",
          file=sys.stderr)
    sys.exit(a.exit)  # the held files close with the process


if __name__ == "__main__":
    main()
