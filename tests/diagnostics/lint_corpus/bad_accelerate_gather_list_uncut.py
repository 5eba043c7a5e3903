# The same evaluation without the cut: the gathered losses keep what accelerate repeats to
# even the last batch, so the perplexity counts those samples twice.
import math

import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader


def main(model, train_dataset, eval_dataset, batch_size=8):
    accelerator = Accelerator()
    optimizer = torch.optim.AdamW(model.parameters())
    train_dataloader = DataLoader(train_dataset, batch_size=batch_size, shuffle=True)
    eval_dataloader = DataLoader(eval_dataset, batch_size=batch_size)
    model, optimizer, train_dataloader, eval_dataloader = accelerator.prepare(
        model, optimizer, train_dataloader, eval_dataloader
    )
    for batch in train_dataloader:
        accelerator.backward(model(**batch).loss)
        optimizer.step()
    model.eval()
    losses = []
    for batch in eval_dataloader:
        with torch.no_grad():
            loss = model(**batch).loss
        losses.append(accelerator.gather(loss.repeat(batch_size)))  # expect: FS109
    losses = torch.cat(losses)
    return math.exp(torch.mean(losses))
