# SPDX-License-Identifier: Apache-2.0
"""An .item()-bound job: the data is in memory, the step is small, and every
step reads each hidden activation back with .item() (a metrics loop gone
wrong: 8192 reads of one value each). Prints its final loss (the same with
or without the hook).

The activations are read from a device, as on a GPU, where each .item()
waits for the device's answer: a thread stands in for it here and answers
each read through a pipe, so every read truly waits, a round trip of some
microseconds (longer on a busy host). A plain .item() of CPU torch waits
for nothing: 8192 of them were 3 to 14 % of the step, under or over the
5 % threshold by the host's load."""
import os
import struct
import sys
import threading

import torch
from torch.utils.data import BatchSampler, DataLoader, RandomSampler, TensorDataset

from loop import mlp, train


class Device:
    """Holds the step's values and answers one read at a time: the reader
    writes the index and blocks until the value comes back."""

    def __init__(self):
        self.values = []
        self.requests, self.ask = os.pipe()
        self.answers, self.answer = os.pipe()
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self):
        while True:
            (i,) = struct.unpack("i", os.read(self.requests, 4))
            os.write(self.answer, struct.pack("d", self.values[i]))

    def read(self, i):
        os.write(self.ask, struct.pack("i", i))
        return struct.unpack("d", os.read(self.answers, 8))[0]


device = Device()


class OnDevice(torch.Tensor):
    """The device's values as a tensor: iterating gives one handle per value,
    and .item() of a handle asks the device for it (inside aten::item, where
    the profiler times a GPU read's wait)."""

    __torch_function__ = torch._C._disabled_torch_function_impl

    @staticmethod
    def __new__(cls, shape, index=None):
        return torch.Tensor._make_wrapper_subclass(cls, shape, dtype=torch.float32)

    def __init__(self, shape, index=None):
        self.index = index

    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        if func is torch.ops.aten.unbind.int:
            return [OnDevice((), i) for i in range(args[0].shape[0])]
        if func is torch.ops.aten._local_scalar_dense.default:
            return device.read(args[0].index)
        raise NotImplementedError(func)


torch.manual_seed(0)
torch.set_num_threads(1)
data = TensorDataset(torch.randn(16384, 16), torch.randint(0, 4, (16384,)))
model = mlp(16, 32, 4)
total = [0.0]


def read_back(x, out):
    device.values = model[0](x).detach().flatten().tolist()
    for v in OnDevice((len(device.values),)):
        total[0] += v.item()


# Whole batches indexed at once: loading costs next to nothing. 20 steps:
# the profiled ones (10 to 14, one more) and 5 after them to time.
loader = DataLoader(data, sampler=BatchSampler(RandomSampler(data), 256, False), batch_size=None)
train(model, loader, int(sys.argv[1]) if len(sys.argv) > 1 else 20, read_back, lambda: " (sum %.3f)" % total[0])
