# The GPU list from the command line is set alike in every process; train.py then picks
# each process's own GPU in it with set_device(local_rank).
import os

import torch


def select_device(device=""):
    if device.lower() == "cpu":
        os.environ["CUDA_VISIBLE_DEVICES"] = "-1"
    elif device:
        os.environ["CUDA_VISIBLE_DEVICES"] = device
    return torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
