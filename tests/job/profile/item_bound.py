"""An .item()-bound job: the data is in memory, the step is small, and every
step reads each output value back with .item() (a metrics loop gone wrong).
Prints its final loss (the same with or without the hook)."""
import sys

import torch
from torch.utils.data import BatchSampler, DataLoader, RandomSampler, TensorDataset


def main():
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 30
    torch.manual_seed(0)
    torch.set_num_threads(1)
    data = TensorDataset(torch.randn(16384, 16), torch.randint(0, 4, (16384,)))
    model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 4))
    hidden = model[0]
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    loss_fn = torch.nn.CrossEntropyLoss()
    n, total = 0, 0.0
    # Whole batches indexed at once: loading costs next to nothing.
    loader = DataLoader(data, sampler=BatchSampler(RandomSampler(data), 256, False), batch_size=None)
    for x, y in loader:
        opt.zero_grad()
        out = model(x)
        loss = loss_fn(out, y)
        loss.backward()
        opt.step()
        for v in hidden(x).detach().flatten():  # 8192 reads of one value each
            total += v.item()
        n += 1
        if n == steps:
            break
    print("final loss %.6f after %d steps (sum %.3f)" % (loss.detach().item(), n, total), file=sys.stderr)


main()
