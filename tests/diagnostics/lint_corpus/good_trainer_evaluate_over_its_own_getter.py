# The Trainer subclass builds its evaluation loader itself (no prepare), over an exact
# sampler, and all-reduces what its evaluate sums: no fill is added by accelerate.
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader
from transformers import Trainer

from fairshard import DistributedEvalSampler


class PretrainingTrainer(Trainer):
    def get_eval_dataloader(self, eval_dataset=None):
        dataset = eval_dataset if eval_dataset is not None else self.eval_dataset
        return DataLoader(dataset, sampler=DistributedEvalSampler(dataset), batch_size=8)

    def evaluate(self, eval_dataset=None, ignore_keys=None, metric_key_prefix="eval"):
        dataloader = self.get_eval_dataloader(eval_dataset)
        totals = torch.zeros(2, device=self.args.device)
        for inputs in dataloader:
            with torch.no_grad():
                totals[0] += self.model(**self._prepare_inputs(inputs)).loss.double()
            totals[1] += 1
        dist.all_reduce(totals)
        return {f"{metric_key_prefix}_loss": float(totals[0] / totals[1])}
