import torch.distributed as dist
from src.loaders import create_dataloaders
from src.trainer import Trainer


def main(model, optimizer, train_set, val_set, epochs):
    dist.init_process_group("nccl")
    train_loader, val_loader = create_dataloaders(train_set, val_set, 32)
    trainer = Trainer(
        model, optimizer, train_loader, val_loader=val_loader, rank=dist.get_rank(), epochs=epochs
    )
    trainer.train()
