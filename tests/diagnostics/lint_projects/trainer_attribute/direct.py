# The trainer class named directly, the loader passed by keyword.
import torch.distributed as dist
from proj.data import DepthData
from proj.trainers.base import BaseTrainer


def run(config, model, dataset):
    dist.init_process_group("nccl")
    loader = DepthData(config, dataset, "train").data
    BaseTrainer(config, model, train_loader=loader).train()
