# A single-GPU training script that hides the other GPUs: one process, one GPU.
import argparse
import os

os.environ["CUDA_VISIBLE_DEVICES"] = "0"

import torch
from torch.utils.data import DataLoader


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--gpus", default="0,1")
    args = parser.parse_args()
    os.environ.setdefault("CUDA_VISIBLE_DEVICES", args.gpus)
    model = torch.nn.DataParallel(torch.nn.Linear(4, 1)).cuda()
    for batch in DataLoader(range(64), batch_size=8, shuffle=True):
        model(batch.float().cuda()[:, None].expand(-1, 4))
