"""The one script: its validation loader drops its last batch, so accelerate fills none."""

import torch
import trainer as trainer_module
from accelerate import Accelerator
from torch.utils.data import DataLoader, TensorDataset


def execute():
    accelerator = Accelerator()
    data = TensorDataset(torch.randn(100, 4), torch.randint(0, 2, (100,)))
    train_loader = DataLoader(data, batch_size=8, shuffle=True, drop_last=True)
    vali_loader = DataLoader(data, batch_size=8, drop_last=True)
    trainer = trainer_module.Trainer(net=torch.nn.Linear(4, 2), config={})
    trainer.train_model(
        epoch=3, train_loader=train_loader, vali_loader=vali_loader, accelerator=accelerator
    )


if __name__ == "__main__":
    execute()
