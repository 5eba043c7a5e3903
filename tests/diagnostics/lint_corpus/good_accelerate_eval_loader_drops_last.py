# The validation loader drops its short last batch (drop_last=True): accelerate's sharding
# keeps that and fills no batch, so the gathered losses repeat no sample.
import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader


def validate(model, dataloader, accelerator):
    losses = []
    for batch in dataloader:
        with torch.no_grad():
            loss = model(**batch).loss
        losses.append(accelerator.gather(loss.detach()).mean().item())
    return sum(losses) / len(losses)


def main(model, optimizer, train_set, val_set):
    accelerator = Accelerator()
    train_loader = DataLoader(train_set, batch_size=32, shuffle=True)
    val_dataloader = DataLoader(val_set, batch_size=32, shuffle=False, drop_last=True)
    model, optimizer, train_loader = accelerator.prepare(model, optimizer, train_loader)
    val_dataloader = accelerator.prepare(val_dataloader)
    for epoch in range(10):
        for batch in train_loader:
            accelerator.backward(model(**batch).loss)
            optimizer.step()
            optimizer.zero_grad()
        accelerator.print(epoch, validate(model, val_dataloader, accelerator))
