# The validation gathers are cut back to the set's length on the last batch (the
# older no_trainer GLUE examples' trim); the mismatched set that follows, over a
# loader prepared again under the same name, is gathered whole: its fill counts.
import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader


def main(model, val_set, mismatched_set, metric):
    accelerator = Accelerator()
    eval_dataloader = accelerator.prepare(DataLoader(val_set, batch_size=8))
    samples_seen = 0
    for step, batch in enumerate(eval_dataloader):
        with torch.no_grad():
            predictions = model(batch["x"]).argmax(-1)
        predictions, references = accelerator.gather((predictions, batch["y"]))
        if accelerator.num_processes > 1:
            if step == len(eval_dataloader) - 1:
                predictions = predictions[: len(eval_dataloader.dataset) - samples_seen]
                references = references[: len(eval_dataloader.dataset) - samples_seen]
            else:
                samples_seen += references.shape[0]
        metric.add_batch(predictions=predictions, references=references)
    eval_dataloader = accelerator.prepare(DataLoader(mismatched_set, batch_size=8))
    for step, batch in enumerate(eval_dataloader):
        predictions = model(batch["x"]).argmax(-1)
        metric.add_batch(
            predictions=accelerator.gather(predictions),  # expect: FS109
            references=accelerator.gather(batch["y"]),
        )
    return metric.compute()
