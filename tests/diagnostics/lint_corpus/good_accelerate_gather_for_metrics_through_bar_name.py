# The same loop through the progress bar's name, gathering with gather_for_metrics, which
# drops the fill on the last batch.
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
            preds.append(accelerator.gather_for_metrics(model(x) - y))
    return torch.cat(preds).pow(2).mean().item()
