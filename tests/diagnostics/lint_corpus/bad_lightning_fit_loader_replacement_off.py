# The same script with Lightning's sampler replacement turned off: every rank that torchrun
# starts reads the whole dataset in its own order.
import os

import lightning as L
import torch
from torch.utils.data import DataLoader


def main(dataset, model):
    local_rank = int(os.environ.get("LOCAL_RANK", 0))
    torch.cuda.set_device(local_rank)
    train_loader = DataLoader(dataset, batch_size=8, shuffle=True, num_workers=4)  # expect: FS103
    trainer = L.Trainer(max_steps=10_000, use_distributed_sampler=False)
    trainer.fit(model, train_loader)
