import os

import torch.distributed as dist
from utils.data import build_dataloader
from utils.trainer import Trainer


def main(model, train_data, valid_data):
    dist.init_process_group("nccl")
    dataloaders = build_dataloader(train_data, valid_data, 32, int(os.environ["WORLD_SIZE"]) > 1)
    Trainer(model, epochs=31).fit(dataloaders)
