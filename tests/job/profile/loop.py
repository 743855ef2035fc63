# SPDX-License-Identifier: Apache-2.0
"""The training loop the test jobs of run --profile share: SGD over a small
MLP, `steps` steps over `loader` (epochs repeat until then), an optional
`after` called with each step's input and output. Prints the final loss on
stderr: the same with or without gpudoctor's hook."""
import sys

import torch


def mlp(n_in, hidden, n_out):
    return torch.nn.Sequential(torch.nn.Linear(n_in, hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, n_out))


def train(model, loader, steps, after=None, note=""):
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    loss_fn = torch.nn.CrossEntropyLoss()
    n = 0
    while n < steps:
        for x, y in loader:
            opt.zero_grad()
            out = model(x)
            loss = loss_fn(out, y)
            loss.backward()
            opt.step()
            if after:
                after(x, out)
            n += 1
            if n == steps:
                break
    print("final loss %.6f after %d steps%s" % (loss.detach().item(), n, note() if note else ""), file=sys.stderr)
