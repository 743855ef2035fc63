# SPDX-License-Identifier: Apache-2.0
"""A job of N optimizer steps over tensors it makes itself, no DataLoader
(as many small scripts are): what the hook counts as a step depends on
torch's optimizer hooks, not on the loader (run --profile, issue 39)."""
import sys

import torch

steps = int(sys.argv[1]) if len(sys.argv) > 1 else 5
torch.manual_seed(0)
model = torch.nn.Linear(16, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for _ in range(steps):
    opt.zero_grad()
    loss = model(torch.randn(64, 16)).pow(2).mean()
    loss.backward()
    opt.step()
print("final loss %.6f after %d steps" % (loss.detach().item(), steps), file=sys.stderr)
