# The evaluation breaks off on a value it computes, not after a set number of batches: a
# run that never meets it reads the last batch, whose fill gather keeps.
import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader


def evaluate(accelerator, model, eval_loader):
    losses = []
    for step, batch in enumerate(eval_loader):
        with torch.no_grad():
            loss = model(**batch).loss
        losses.append(accelerator.gather(loss.repeat(len(batch["input_ids"]))))  # expect: FS109
        if torch.isnan(loss):
            break
    return torch.cat(losses).mean()


def main(model, val_set):
    accelerator = Accelerator()
    val_loader = accelerator.prepare(DataLoader(val_set, batch_size=1))
    return evaluate(accelerator, model, val_loader)
