# The Trainer's accelerator runs with even_batches=False: no rank's last batch is filled,
# so the all-reduced sums hold each sample once.
import torch
import torch.distributed as dist
from transformers import Trainer, TrainingArguments


class PretrainingTrainer(Trainer):
    def evaluate(self, eval_dataset=None, ignore_keys=None, metric_key_prefix="eval"):
        dataloader = self.get_eval_dataloader(eval_dataset)
        totals = torch.zeros(2, device=self.args.device)
        for inputs in dataloader:
            with torch.no_grad():
                totals[0] += self.model(**self._prepare_inputs(inputs)).loss.double()
            totals[1] += 1
        dist.all_reduce(totals)
        return {f"{metric_key_prefix}_loss": float(totals[0] / totals[1])}


def make_args(output_dir):
    return TrainingArguments(output_dir, accelerator_config={"even_batches": False})
