# gather_for_metrics on each batch inside the loop drops accelerate's fill on the last
# batch; an accelerator with even_batches=False adds none (see the second file).
import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader


def evaluate(accelerator, model, eval_loader):
    correct = []
    for batch in eval_loader:
        with torch.no_grad():
            predictions = model(batch["x"]).argmax(-1)
        correct.append(accelerator.gather_for_metrics(predictions == batch["y"]))
    return torch.cat(correct).float().mean()


def truncated(accelerator, model, eval_loader):
    seen, outputs = 0, []
    for step, batch in enumerate(eval_loader):
        predictions, labels = accelerator.gather((model(batch["x"]), batch["y"]))
        if step == len(eval_loader) - 1:
            predictions = predictions[: len(eval_loader.dataset) - seen]
        else:
            seen += labels.shape[0]
        outputs.append(predictions)
    return outputs


def main(model, val_set):
    accelerator = Accelerator()
    val_loader = accelerator.prepare(DataLoader(val_set, batch_size=16))
    eval_loader = val_loader
    return evaluate(accelerator, model, eval_loader), truncated(accelerator, model, val_loader)
