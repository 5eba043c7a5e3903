"""accelerate's ``complete_nlp_example`` loop on fairshard loaders (2 CPU processes).

Usage: accelerate launch --multi_gpu --num_processes 2 accelerate_nlp_job.py OUT_DIR WORKERS

The training loop of accelerate's ``examples/complete_nlp_example.py`` -- its
step checkpoints (``save_state`` every 3 steps into ``step_{k}``), its resume
arithmetic from a ``step_{k}`` folder (``load_state``, then
``skip_first_batches`` of the consumed batches), an evaluation pass with
``gather_for_metrics`` after every epoch -- with a tiny model on synthetic
rows, and the loaders built by
``fairshard.integrations.accelerate.prepare_data_loader`` (the training
loader with WORKERS loader workers). One run trains 2 epochs; then the same
processes resume from ``step_3`` (in epoch 0), ``step_6`` (its end) and
``step_9`` (in epoch 1), each as a relaunch would (a new Accelerator, model
and loaders). Each rank writes OUT_DIR/rank{r}.json: per run, the ids
trained per epoch, the steps and the ids evaluated.
"""

import json
import os
import sys
from pathlib import Path

import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader, Dataset

import fairshard
from fairshard.integrations.accelerate import prepare_data_loader

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # the checkout: tests._job_end
from tests._job_end import end_job

N, EVAL_N, EPOCHS, BATCH, CHECKPOINTING_STEPS = 46, 13, 2, 4, 3


class Rows(Dataset):
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        x = torch.full((2,), float(i))
        return {"idx": torch.tensor(i), "x": x, "labels": torch.tensor(i % 2)}


def training_function(out, workers, resume_from_checkpoint=None):
    accelerator = Accelerator(cpu=True)
    sampler = fairshard.DistributedSampler(N, seed=3)
    train_dataloader = prepare_data_loader(
        accelerator, DataLoader(Rows(N), batch_size=BATCH, sampler=sampler, num_workers=workers)
    )
    eval_sampler = fairshard.DistributedEvalSampler(EVAL_N)
    eval_dataloader = prepare_data_loader(
        accelerator, DataLoader(Rows(EVAL_N), batch_size=BATCH, sampler=eval_sampler)
    )
    torch.manual_seed(0)
    model = torch.nn.Linear(2, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    model, optimizer = accelerator.prepare(model, optimizer)

    overall_step = 0
    starting_epoch = 0
    resume_step = None
    if resume_from_checkpoint:  # as complete_nlp_example resumes
        accelerator.load_state(resume_from_checkpoint)
        path = os.path.basename(resume_from_checkpoint)
        training_difference = os.path.splitext(path)[0]
        if "epoch" in training_difference:
            starting_epoch = int(training_difference.replace("epoch_", "")) + 1
        else:
            resume_step = int(training_difference.replace("step_", ""))
            starting_epoch = resume_step // len(train_dataloader)
            resume_step -= starting_epoch * len(train_dataloader)
            overall_step = starting_epoch * len(train_dataloader)

    seen, evaluated = {}, []
    for epoch in range(starting_epoch, EPOCHS):
        model.train()
        if resume_from_checkpoint and epoch == starting_epoch and resume_step is not None:
            active_dataloader = accelerator.skip_first_batches(train_dataloader, resume_step)
            overall_step += resume_step
        else:
            active_dataloader = train_dataloader
        ids = seen.setdefault(epoch, [])
        for batch in active_dataloader:
            ids += batch["idx"].tolist()
            loss = torch.nn.functional.cross_entropy(model(batch["x"]), batch["labels"])
            accelerator.backward(loss)
            optimizer.step()
            optimizer.zero_grad()
            overall_step += 1
            if overall_step % CHECKPOINTING_STEPS == 0:
                accelerator.save_state(str(out / f"step_{overall_step}"))
        model.eval()
        for batch in eval_dataloader:
            with torch.no_grad():
                predictions = model(batch["x"]).argmax(dim=-1)
            idx, _ = accelerator.gather_for_metrics((batch["idx"], predictions))
            evaluated += idx.tolist()
    accelerator.wait_for_everyone()
    return {"seen": seen, "steps": overall_step, "evaluated": evaluated}


def main():
    out, workers = Path(sys.argv[1]), int(sys.argv[2])
    report = {"full": training_function(out / "full", workers)}
    for step in (3, 6, 9):
        checkpoint = str(out / "full" / f"step_{step}")
        report[f"step_{step}"] = training_function(out / f"from_{step}", workers, checkpoint)
    rank = int(os.environ["RANK"])
    (out / f"rank{rank}.json").write_text(json.dumps(report))
    end_job()  # together, the group torn down, no finalization (tests/_job_end.py)


if __name__ == "__main__":
    main()
