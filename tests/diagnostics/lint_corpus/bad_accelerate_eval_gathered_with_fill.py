# The evaluation loader is prepared by accelerate (even_batches=True): the ranks that
# run short repeat samples in their last batch. gather keeps them; so does a
# gather_for_metrics of totals after the loop.
import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader


def evaluate(accelerator, model, eval_loader):
    correct = []
    for batch in eval_loader:
        with torch.no_grad():
            predictions = model(batch["x"]).argmax(-1)
        correct.append(accelerator.gather(predictions == batch["y"]))  # expect: FS109
    return torch.cat(correct).float().mean()


def main(model, train_set, val_set):
    accelerator = Accelerator()
    train_loader = DataLoader(train_set, batch_size=16, shuffle=True)
    val_loader = DataLoader(val_set, batch_size=16)
    model, train_loader, val_loader = accelerator.prepare(model, train_loader, val_loader)
    accuracy = evaluate(accelerator, model, val_loader)
    total, hits = torch.zeros(1), torch.zeros(1)
    for batch in val_loader:
        hits += (model(batch["x"]).argmax(-1) == batch["y"]).sum()
        total += len(batch["y"])
    hits, total = accelerator.gather_for_metrics((hits, total))  # expect: FS109
    return accuracy, hits.sum() / total.sum()
