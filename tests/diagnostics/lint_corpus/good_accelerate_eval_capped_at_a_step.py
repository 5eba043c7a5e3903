# The evaluation reads a set number of batches (--eval_iter) of a long validation stream
# and breaks off: accelerate's fill, in the last batch of a rank's share, is never read.
import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader


def evaluate(accelerator, model, eval_loader, eval_iter):
    losses = []
    for step, batch in enumerate(eval_loader):
        with torch.no_grad():
            loss = model(**batch).loss
        losses.append(accelerator.gather(loss.repeat(len(batch["input_ids"]))))
        if step == eval_iter:
            break
    return torch.cat(losses).mean()


def main(model, val_set, eval_iter=20):
    accelerator = Accelerator()
    val_loader = accelerator.prepare(DataLoader(val_set, batch_size=1))
    return evaluate(accelerator, model, val_loader, eval_iter)
