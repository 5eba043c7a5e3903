import torch.distributed as dist
from data import create_data_loaders
from trainers.distributed import DistributedTrainer


def main(model, train_set, val_set):
    dist.init_process_group("nccl")
    world_size = dist.get_world_size()
    train_loader, val_loader = create_data_loaders(
        train_set, val_set, 32, world_size=world_size, rank=dist.get_rank()
    )
    DistributedTrainer(
        model=model,
        train_loader=train_loader,
        val_loader=val_loader,
        num_epochs=10,
        world_size=world_size,
    ).train()
