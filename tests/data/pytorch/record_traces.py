#!/usr/bin/python3
# Records PyTorch execution traces (and, for DDP, Kineto CPU traces) of small real programs on CPU with the
# gloo backend, for the tests of `chorus import pytorch` (tests/pytorch/). Needs python3-torch (Debian, 1.13);
# the recorded JSON files are committed, so the tests and CI do not need PyTorch.
#
#   /usr/bin/python3 tests/data/pytorch/record_traces.py tests/data/pytorch
#
# PyTorch 1.13 names the observer torch.profiler.ExecutionGraphObserver (schema "1.0.1": `parent`, flat
# `inputs`/`input_types`); later releases call it ExecutionTraceObserver (schema "1.0.2-chakra.0.0.4" and up).
# gloo in 1.13 has no reduce_scatter (ProcessGroupGloo raises "does not support reduce_scatter"), so the
# tensor-parallel program does what Megatron does without it: an all_reduce, then each rank keeps its slice.
import os
import sys

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP

try:
    from torch.profiler import ExecutionTraceObserver as Observer
except ImportError:
    from torch.profiler import ExecutionGraphObserver as Observer


def ddp_mlp(rank, world, out):
    # MLP 16 -> 32 -> 8: parameters 16*32 + 32 + 32*8 + 8 = 808 float32 = 3232 bytes, one DDP bucket.
    torch.manual_seed(0)
    model = DDP(nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 8)))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x = torch.randn(4, 16)

    def step():
        opt.zero_grad()
        model(x).sum().backward()
        opt.step()

    for _ in range(2):  # the second iteration rebuilds the buckets (broadcasts); the third is steady
        step()
    observe(out, f"ddp_mlp_{world}r", rank, step)
    if world == 2:
        from torch.profiler import ProfilerActivity, profile
        with profile(activities=[ProfilerActivity.CPU]) as prof:
            step()
        prof.export_chrome_trace(os.path.join(out, f"ddp_mlp_{world}r.kineto.{rank}.json"))


def tp_linear(rank, world, out):
    # Column-parallel linear (16 -> 32, each rank 32/world columns) then all_gather of the [4, 32/world]
    # activations; row-parallel linear (32 -> 8, each rank 32/world rows of W2) then a reduce_scatter done as
    # all_reduce of the [4, 8] partial sums (gloo has no reduce_scatter) and a slice.
    torch.manual_seed(rank)
    x = torch.randn(4, 16)
    w1 = torch.randn(16, 32 // world)
    w2 = torch.randn(32 // world, 8)

    def step():
        y = x @ w1
        parts = [torch.empty_like(y) for _ in range(world)]
        dist.all_gather(parts, y)
        full = torch.cat(parts, dim=1)
        z = full[:, rank * (32 // world):(rank + 1) * (32 // world)] @ w2
        dist.all_reduce(z)
        return z.chunk(world, dim=0)[rank].clone()

    observe(out, f"tp_linear_{world}r", rank, step)


def exchange(rank, world, out):
    # all_to_all_single of world*8 float32 per rank, then a ring: isend 64 float32 to rank+1, irecv from rank-1.
    t = torch.arange(world * 8, dtype=torch.float32) + rank
    o = torch.empty_like(t)
    s = torch.full((64,), float(rank))
    r = torch.empty(64)

    def step():
        dist.all_to_all_single(o, t)
        reqs = [dist.isend(s, (rank + 1) % world), dist.irecv(r, (rank - 1) % world)]
        for q in reqs:
            q.wait()
        return o.sum() + r.sum()

    observe(out, f"exchange_{world}r", rank, step)


def observe(out, name, rank, fn):
    obs = Observer()
    obs.register_callback(os.path.join(out, f"{name}.et.{rank}.json"))
    obs.start()
    fn()
    obs.stop()
    obs.unregister_callback()


def worker(rank, world, program, out, port):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    dist.init_process_group("gloo", rank=rank, world_size=world)
    program(rank, world, out)
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    port = 29600
    for program in (ddp_mlp, tp_linear, exchange):
        for world in (2, 4):
            port += 1
            mp.spawn(worker, args=(world, program, out, port), nprocs=world)
