"""Pins the rendezvous to this machine and spawns one process per GPU."""

import os

import torch
import torch.multiprocessing as mp
from train_ddp import train

if __name__ == "__main__":
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = "29500"
    mp.spawn(train, nprocs=torch.cuda.device_count())
