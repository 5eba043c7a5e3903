"""transformers.Trainer on 2 CPU processes (torchrun) with fairshard samplers.

Usage: torchrun --nproc-per-node 2 trainer_job.py OUT_DIR

Each rank writes OUT_DIR/rank{r}.json with what its model saw:

* ``full``: 2 epochs with ``FairshardTrainer`` around an index sampler
  (``DistributedSampler``, 2 loader workers) and a batch sampler
  (``LengthBucketBatchSampler``), gradient accumulation 2: the sample ids
  of every forward, per epoch, and the learning rate after every step;
* ``resumed``: the same runs stopped after step 5 with a checkpoint at step
  3 (steps 4-5 are lost work), then a new trainer resumed from checkpoint-3:
  the ids trained after the resume and how many rows the dataset read;
  ``boundary``: resumed from checkpoint-6, the end of epoch 0;
* ``eval``: ``evaluate()`` with a ``DistributedEvalSampler`` over 101 rows
  (51 and 50 per rank): the ids ``compute_metrics`` was given;
* ``refused``: a plain ``Trainer`` whose ``_get_train_sampler`` returns a
  fairshard sampler (accelerate shards it again): the error at its first batch;
* ``foreign``: a plain ``Trainer`` checkpoint resumed by ``FairshardTrainer``;
* ``accumulation``/``workers``: checkpoint-3 resumed with
  ``gradient_accumulation_steps=1`` / with no loader workers.

``python trainer_job.py OUT_DIR single`` (one process, after the torchrun
job) resumes the 2-process checkpoint-3 and writes OUT_DIR/single.json with
the error.
"""

import json
import os
import sys
from pathlib import Path

import torch
from torch.utils.data import Dataset
from transformers import Trainer, TrainerCallback, TrainingArguments

import fairshard
from fairshard.integrations.transformers import FairshardTrainer

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # the checkout: tests._job_end
from tests._job_end import end_job

N = 46
LENGTHS = [1 + (5 * i) % 11 for i in range(N)]


class Rows(Dataset):
    """``{"idx", "x", "labels"}`` rows; counts the rows read (in this process)."""

    def __init__(self, n):
        self.n, self.reads = n, 0

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        self.reads += 1
        return {"idx": torch.tensor(i), "x": torch.full((3,), i / self.n), "labels": torch.zeros(1)}


class Model(torch.nn.Module):
    """Records the ids of every training forward; its logits are the ids (for eval)."""

    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(3, 1)
        self.seen = []

    def forward(self, idx, x, labels):
        if self.training:
            self.seen.extend(idx.tolist())
        out = self.net(x)
        return {"loss": ((out - labels) ** 2).mean(), "logits": idx.float().unsqueeze(1)}


class Record(TrainerCallback):
    def __init__(self, model, stop_at=None):
        self.model, self.stop_at = model, stop_at
        self.epochs, self.lr = [], []

    def on_epoch_begin(self, args, state, control, **kw):
        self.epochs.append([])

    def on_step_end(self, args, state, control, lr_scheduler=None, **kw):
        self.lr.append(lr_scheduler.get_last_lr()[0])
        if self.stop_at is not None and state.global_step >= self.stop_at:
            control.should_training_stop = True

    def on_epoch_end(self, args, state, control, **kw):
        self.close()

    def close(self):
        if self.epochs:
            self.epochs[-1].extend(self.model.seen)
        self.model.seen = []


def arguments(out, workers=0, **extra):
    extra = {"gradient_accumulation_steps": 2, **extra}
    return TrainingArguments(
        output_dir=str(out),
        use_cpu=True,
        per_device_train_batch_size=2,
        per_device_eval_batch_size=4,
        num_train_epochs=2,
        learning_rate=0.1,
        lr_scheduler_type="linear",
        save_strategy="steps",
        save_steps=3,
        logging_strategy="no",
        report_to=[],
        dataloader_num_workers=workers,
        dataloader_persistent_workers=False,
        disable_tqdm=True,
        seed=0,
        **extra,
    )


SAMPLERS = {
    "index": (lambda ds: fairshard.DistributedSampler(len(ds), seed=7), 2),
    "batch": (lambda ds: fairshard.LengthBucketBatchSampler(LENGTHS, 2, seed=7), 0),
}


def run(out, name, stop_at=None, resume=None):
    make, workers = SAMPLERS[name]
    torch.manual_seed(0)
    model, data = Model(), Rows(N)
    record = Record(model, stop_at)
    trainer = FairshardTrainer(
        model=model,
        args=arguments(out, workers),
        train_dataset=data,
        train_sampler=make,
        callbacks=[record],
    )
    trainer.train(resume_from_checkpoint=resume)
    record.close()
    return {
        "epochs": record.epochs,
        "lr": record.lr,
        "reads": data.reads,
        "steps": trainer.state.global_step,
    }


def evaluate(out):
    seen = []

    def compute_metrics(prediction):
        seen.extend(int(v) for v in prediction.predictions.reshape(-1).tolist())
        return {"n": len(prediction.predictions)}

    trainer = FairshardTrainer(
        model=Model(),
        args=arguments(out),
        eval_dataset=Rows(101),
        eval_sampler=lambda ds: fairshard.DistributedEvalSampler(len(ds)),
        compute_metrics=compute_metrics,
    )
    metrics = trainer.evaluate()
    return {"ids": seen, "n": metrics.get("eval_n")}


class Plain(Trainer):
    def _get_train_sampler(self, train_dataset=None):
        return fairshard.DistributedSampler(len(self.train_dataset), seed=7)


def refused(out):
    trainer = Plain(model=Model(), args=arguments(out), train_dataset=Rows(N))
    try:
        trainer.train()
    except Exception as exc:  # the sampler's own refusal, at the first batch
        return f"{type(exc).__name__}: {exc}"
    return "trained"


def foreign(out):
    Trainer(model=Model(), args=arguments(out, max_steps=3), train_dataset=Rows(N)).train()
    trainer = FairshardTrainer(
        model=Model(),
        args=arguments(out),
        train_dataset=Rows(N),
        train_sampler=SAMPLERS["index"][0],
    )
    try:
        trainer.train(resume_from_checkpoint=str(out / "checkpoint-3"))
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"
    return "trained"


def resume_error(out, workers=0, **extra):
    make = SAMPLERS["index"][0]
    trainer = FairshardTrainer(
        model=Model(),
        args=arguments(out, workers, **extra),
        train_dataset=Rows(N),
        train_sampler=make,
    )
    try:
        trainer.train(resume_from_checkpoint=str(out / "checkpoint-3"))
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"
    return "trained"


def main():
    out = Path(sys.argv[1])
    if sys.argv[2:] == ["single"]:
        error = resume_error(out / "cut-index")
        (out / "single.json").write_text(json.dumps({"error": error}))
        return
    rank = int(os.environ["RANK"])
    result = {"world": int(os.environ["WORLD_SIZE"]), "full": {}, "resumed": {}}
    for name in SAMPLERS:
        result["full"][name] = run(out / f"full-{name}", name)
        first = run(out / f"cut-{name}", name, stop_at=5)
        again = run(out / f"cut-{name}", name, resume=str(out / f"cut-{name}" / "checkpoint-3"))
        # checkpoint-6 (written by the resumed run) ends epoch 0: Trainer resumes at
        # epoch 1 with no batch to skip and calls set_epoch(1) before the first pass.
        boundary = run(out / f"cut-{name}", name, resume=str(out / f"cut-{name}" / "checkpoint-6"))
        result["resumed"][name] = {"before": first, "after": again, "boundary": boundary}
    result["eval"] = evaluate(out / "eval")
    result["refused"] = refused(out / "refused")
    result["foreign"] = foreign(out / "foreign")
    result["accumulation"] = resume_error(
        out / "cut-index", workers=2, gradient_accumulation_steps=1
    )
    result["workers"] = resume_error(out / "cut-index")
    (out / f"rank{rank}.json").write_text(json.dumps(result))


if __name__ == "__main__":
    main()
    end_job()  # together, the group torn down, no finalization (tests/_job_end.py)
