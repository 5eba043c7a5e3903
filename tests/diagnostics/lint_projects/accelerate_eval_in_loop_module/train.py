import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader
from train_loop import train


def main():
    accelerator = Accelerator()
    model = torch.nn.Linear(4, 1)
    optimizer = torch.optim.AdamW(model.parameters())
    train_loader = DataLoader(torch.randn(64, 4), batch_size=8, shuffle=True)
    val_loader = DataLoader(torch.randn(519, 4), batch_size=8)
    model, optimizer, train_loader, val_loader = accelerator.prepare(
        model, optimizer, train_loader, val_loader
    )
    train(model, optimizer, train_loader, val_loader, accelerator, epochs=10)


if __name__ == "__main__":
    main()
