# Started by torchrun (accelerate launch): the script reads its local rank for the device,
# and hands a shuffling loader to a Lightning trainer, which reads torchrun's variables,
# puts a DistributedSampler into the loader and sets its epoch.
import os

import lightning as L
import torch
from torch.utils.data import DataLoader


def main(dataset, model):
    local_rank = int(os.environ.get("LOCAL_RANK", 0))
    torch.cuda.set_device(local_rank)
    train_loader = DataLoader(dataset, batch_size=8, shuffle=True, num_workers=4)
    trainer = L.Trainer(max_steps=10_000, gradient_clip_val=0.5)
    trainer.fit(model, train_loader)
