"""A DataLoader-bound job: every item costs a Python loop in the main process
(num_workers=0), the model step is tiny. `run --profile` must name the
DataLoader first. Prints its final loss (the same with or without the hook)."""
import sys

import torch
from torch.utils.data import DataLoader, Dataset


class Slow(Dataset):
    def __len__(self):
        return 100000

    def __getitem__(self, i):
        acc = 0
        for k in range(30000):
            acc = (acc + k * i) % 65521
        return torch.full((16,), float(acc % 7)), i % 4


def main():
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    torch.manual_seed(0)
    torch.set_num_threads(1)
    model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 4))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    loss_fn = torch.nn.CrossEntropyLoss()
    loader = DataLoader(Slow(), batch_size=8, shuffle=True, num_workers=0)
    n = 0
    for x, y in loader:
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        n += 1
        if n == steps:
            break
    print("final loss %.6f after %d steps" % (loss.detach().item(), n), file=sys.stderr)


main()
