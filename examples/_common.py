"""Shared setup of the example scripts: process group, device, a toy model."""

import os
import sys
import time
from datetime import timedelta

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel


def init() -> torch.device:
    """Join the torchrun job (gloo on CPU, nccl with CUDA); return this rank's device."""
    if torch.cuda.is_available():
        local = int(os.environ.get("LOCAL_RANK", "0"))
        torch.cuda.set_device(local)
        dist.init_process_group("nccl", timeout=timedelta(seconds=120))
        return torch.device("cuda", local)
    dist.init_process_group("gloo", timeout=timedelta(seconds=120))
    return torch.device("cpu")


def model(features: int, classes: int, device: torch.device) -> DistributedDataParallel:
    torch.manual_seed(0)  # same initial weights everywhere (DDP also broadcasts them)
    net = torch.nn.Sequential(
        torch.nn.Linear(features, 32), torch.nn.ReLU(), torch.nn.Linear(32, classes)
    ).to(device)
    ids = [device.index] if device.type == "cuda" else None
    return DistributedDataParallel(net, device_ids=ids)


def gather(obj):
    """Every rank's ``obj``, in rank order."""
    out = [None] * dist.get_world_size()
    dist.all_gather_object(out, obj)
    return out


def finish() -> None:
    """Leave the job: wait for every rank, tear the process group down, exit.

    The final ``os._exit(0)`` skips interpreter finalization: on CPU/gloo,
    torch's background threads can race with it and abort a job that has
    already finished cleanly ("terminate called without an active exception").
    Everything has been written and flushed by then.

    The short sleep before the teardown is for torch before 2.9: a gloo
    worker thread that is still letting go of a finished collective's tensors
    needs the GIL, which ``destroy_process_group()`` holds while it waits for
    that thread, and both would wait forever (pytorch#154976; about one
    teardown in ten on torch 2.1 right after a collective). Sleeping releases
    the GIL so the thread finishes first. fairshard's own collectives keep
    their tensors alive and need no sleep; the script's own ones do.
    """
    dist.barrier()  # no rank tears down gloo while a peer still talks to it
    time.sleep(0.1)
    dist.destroy_process_group()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
