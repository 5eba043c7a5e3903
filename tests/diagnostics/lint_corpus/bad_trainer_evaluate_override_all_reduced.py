# A transformers Trainer subclass overrides evaluate: it sums over the loader the Trainer
# prepared with accelerate (even_batches=True) and all-reduces the sums, fill included.
import torch
import torch.distributed as dist
from transformers import Trainer


class PretrainingTrainer(Trainer):
    def evaluate(self, eval_dataset=None, ignore_keys=None, metric_key_prefix="eval"):
        dataloader = self.get_eval_dataloader(eval_dataset)
        self.model.eval()
        totals = torch.zeros(2, device=self.args.device)
        for inputs in dataloader:
            inputs = self._prepare_inputs(inputs)
            with torch.no_grad():
                loss = self.model(**inputs).loss
            totals[0] += loss.double()
            totals[1] += 1
        if dist.is_initialized():
            dist.all_reduce(totals)  # expect: FS109
        metrics = {f"{metric_key_prefix}_loss": float(totals[0] / totals[1])}
        self.log(metrics)
        return metrics
