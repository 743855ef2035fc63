"""Two ranks under torchrun (gloo, CPU): DistributedDataParallel over a
DataLoader whose items cost a Python loop in each rank's main process. Each
rank gets its own trace from `run --profile`."""
import os
import sys

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


class Slow(Dataset):
    def __len__(self):
        return 100000

    def __getitem__(self, i):
        acc = 0
        for k in range(20000):
            acc = (acc + k * i) % 65521
        return torch.full((16,), float(acc % 7)), i % 4


def main():
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 25
    dist.init_process_group("gloo")
    torch.manual_seed(0)
    torch.set_num_threads(1)
    model = torch.nn.parallel.DistributedDataParallel(
        torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 4)))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    loss_fn = torch.nn.CrossEntropyLoss()
    data = Slow()
    loader = DataLoader(data, batch_size=8, sampler=DistributedSampler(data, seed=0))
    n = 0
    for x, y in loader:
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        n += 1
        if n == steps:
            break
    print("rank %s: final loss %.6f after %d steps" % (os.environ.get("RANK"), loss.detach().item(), n), file=sys.stderr)
    dist.destroy_process_group()


main()
