"""The launcher: a sharded, shuffled training loader handed to the trainer it looks up."""

import torch.distributed as dist
from registry import trainer_class
from torch.utils.data import DataLoader, DistributedSampler


def main(model, train_set):
    dist.init_process_group("nccl")
    sampler = DistributedSampler(train_set, shuffle=True)
    train_loader = DataLoader(train_set, batch_size=16, sampler=sampler)
    trainer = trainer_class()(model=model, train_loader=train_loader, epochs=50)
    trainer.fit()


if __name__ == "__main__":
    main(None, [])
