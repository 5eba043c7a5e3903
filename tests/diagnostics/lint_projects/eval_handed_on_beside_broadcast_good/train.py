# The padded validation loader goes to the tree's trainer, which keeps each rank's loss
# apart; the only collective here hands rank 0's resumed epoch to the others.
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler
from training import Trainer


def prepare_data(train_set, valid_set):
    train_sampler = DistributedSampler(train_set, shuffle=True)
    valid_sampler = DistributedSampler(valid_set, shuffle=False)
    train_loader = DataLoader(train_set, batch_size=32, sampler=train_sampler)
    valid_loader = DataLoader(valid_set, batch_size=32, sampler=valid_sampler)
    return train_loader, valid_loader


def main(train_set, valid_set, model, optimizer, path):
    dist.init_process_group("nccl")
    train_loader, valid_loader = prepare_data(train_set, valid_set)
    trainer = Trainer(model, train_loader, valid_loader, optimizer)
    start_epoch = 0
    if dist.get_rank() == 0:
        checkpoint = trainer.load_checkpoint(path)
        start_epoch = checkpoint["epoch"] + 1
    start = torch.tensor([start_epoch])
    dist.broadcast(start, src=0)
    trainer.train(start.item(), 50)
