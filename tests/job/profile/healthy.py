"""A healthy job: the data is in memory and the step is the model's work
(a few matrix multiplies), nothing else. `run --profile` finds no cause.
Prints its final loss (the same with or without the hook)."""
import sys

import torch
from torch.utils.data import BatchSampler, DataLoader, RandomSampler, TensorDataset


def main():
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 30
    torch.manual_seed(0)
    torch.set_num_threads(1)
    data = TensorDataset(torch.randn(1024, 256), torch.randint(0, 10, (1024,)))
    model = torch.nn.Sequential(torch.nn.Linear(256, 512), torch.nn.ReLU(), torch.nn.Linear(512, 10))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    loss_fn = torch.nn.CrossEntropyLoss()
    n = 0
    while n < steps:
        # Whole batches indexed at once from memory: loading costs next to nothing.
        for x, y in DataLoader(data, sampler=BatchSampler(RandomSampler(data), 128, False), batch_size=None):
            opt.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            opt.step()
            n += 1
            if n == steps:
                break
    print("final loss %.6f after %d steps" % (loss.detach().item(), n), file=sys.stderr)


main()
