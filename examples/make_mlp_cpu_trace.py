#!/usr/bin/python3
"""Records a real PyTorch profiler (Kineto) trace of a small CPU training loop.

Run with Debian's python3-torch:  /usr/bin/python3 examples/make_mlp_cpu_trace.py OUT.json
The trace has ProfilerStep#N steps, a DataLoader, aten ops with shapes, and an optimizer step.
"""
import sys

import torch
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
model = torch.nn.Sequential(
    torch.nn.Linear(256, 512), torch.nn.GELU(), torch.nn.Linear(512, 512), torch.nn.GELU(),
    torch.nn.Linear(512, 10))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
data = TensorDataset(torch.randn(2048, 256), torch.randint(0, 10, (2048,)))
loader = DataLoader(data, batch_size=128, shuffle=True)
loss_fn = torch.nn.CrossEntropyLoss()

schedule = torch.profiler.schedule(wait=1, warmup=1, active=4, repeat=1)
with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU],
                            schedule=schedule, record_shapes=True) as prof:
    for i, (x, y) in enumerate(loader):
        if i >= 6:
            break
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        prof.step()
prof.export_chrome_trace(sys.argv[1])
