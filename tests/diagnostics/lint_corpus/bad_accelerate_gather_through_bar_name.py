# The evaluation loop reads the prepared validation loader through a progress bar bound to a
# name (tbar = tqdm(val_loader)), and gathers with plain gather: accelerate's fill counts.
import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader
from tqdm import tqdm


def main(model, train_set, val_set):
    accelerator = Accelerator()
    optimizer = torch.optim.AdamW(model.parameters())
    train_loader = DataLoader(train_set, batch_size=8, shuffle=True)
    val_loader = DataLoader(val_set, batch_size=8)
    model, optimizer, train_loader, val_loader = accelerator.prepare(
        model, optimizer, train_loader, val_loader
    )
    tbar = tqdm(train_loader)
    for x, y in tbar:
        accelerator.backward(torch.nn.functional.mse_loss(model(x), y))
        optimizer.step()
    tbar = tqdm(val_loader)
    preds = []
    for x, y in tbar:
        with torch.no_grad():
            preds.append(accelerator.gather(model(x) - y))  # expect: FS109
    return torch.cat(preds).pow(2).mean().item()
