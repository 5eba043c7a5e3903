# A transformers Trainer subclass overrides evaluate and gathers each batch's losses with
# gather_for_metrics inside the loop: accelerate's fill of the last batch is dropped.
import torch
from transformers import Trainer


class PretrainingTrainer(Trainer):
    def evaluate(self, eval_dataset=None, ignore_keys=None, metric_key_prefix="eval"):
        dataloader = self.get_eval_dataloader(eval_dataset)
        self.model.eval()
        losses = []
        for inputs in dataloader:
            inputs = self._prepare_inputs(inputs)
            with torch.no_grad():
                loss = self.model(**inputs).loss
            losses.append(self.accelerator.gather_for_metrics(loss.repeat(len(inputs["labels"]))))
        metrics = {f"{metric_key_prefix}_loss": torch.cat(losses).mean().item()}
        self.log(metrics)
        return metrics
