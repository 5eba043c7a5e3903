"""The launcher: a sharded, shuffled training loader handed to DetectionTrainer."""

import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler
from trainer import DetectionTrainer


def main(model, train_set):
    dist.init_process_group("nccl")
    sampler = DistributedSampler(train_set, shuffle=True)
    train_loader = DataLoader(train_set, batch_size=16, sampler=sampler)
    # OldTrainer is named only in this comment, and a comment makes nothing
    trainer = DetectionTrainer(model=model, train_loader=train_loader, epochs=50)
    trainer.fit()


if __name__ == "__main__":
    main(None, [])
