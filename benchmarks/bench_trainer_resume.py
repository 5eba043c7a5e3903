"""Resume cost in transformers.Trainer: fairshard's restored loader state vs Trainer's skip.

One process, a tiny model (``Linear(4, 1)``), synthetic rows, batch size 32,
an epoch of 125,000 batches. For each trainer a single training run writes
checkpoints after ``k`` = 1e3, 1e4 and 1e5 optimizer steps (``--quick``:
1e2, 1e3), mid-epoch. Then, in a fresh process per cell, a new trainer
resumes from checkpoint-``k`` and trains one step; the cell's time is the
``trainer.train(resume_from_checkpoint=...)`` call up to the start of that
first resumed step (the checkpoint load, then Trainer's skip of ``k``
consumed batches through accelerate's ``skip_first_batches`` for
``Trainer``, or ``FairshardTrainer``'s ``load_state_dict`` of the saved
loader state). Trainer's own run uses its default sampler; fairshard's a
``DistributedSampler``, whose first resumed batch is checked to be batch
``k + 1`` of the uninterrupted order.

NOTE (what Trainer's skip costs here): for a map-style dataset accelerate
skips by drawing the consumed batches' *indices* only (``SkipBatchSampler``),
not the rows, so its cost grows with ``k`` times the batch size at index
speed (at batch size 1 the two were within 0.97-1.15x of each other up to
1e5 steps, measured 2026-12-02). An iterable
dataset is skipped by loading the rows, which is the multi-hour case users
report; fairshard's index samplers do not drive iterable datasets, so that
case is not a cell here.

    python benchmarks/bench_trainer_resume.py [--quick] [--reps N]
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _harness import bench_args, median, run_cells, table

SRC = str(Path(__file__).resolve().parents[1] / "src")
N = 4_000_000
BATCH = 32

_COMMON = f"""
BATCH = {BATCH}
import itertools, sys, time, warnings
sys.path.insert(0, {SRC!r})
warnings.filterwarnings("ignore")
import torch
from torch.utils.data import Dataset
from transformers import Trainer, TrainerCallback, TrainingArguments
from transformers.utils import logging
logging.set_verbosity_error()
import fairshard
from fairshard.integrations.transformers import FairshardTrainer

class Rows(Dataset):
    def __len__(self):
        return {N}
    def __getitem__(self, i):
        x = torch.full((4,), (i % 97) / 97.0)
        return {{"idx": torch.tensor(i), "x": x, "labels": torch.zeros(1)}}

class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(4, 1)
        self.first = None
    def forward(self, idx, x, labels):
        if self.first is None:
            self.first = int(idx[0])
        return {{"loss": ((self.net(x) - labels) ** 2).mean()}}

def arguments(out, **extra):
    return TrainingArguments(
        output_dir=out, use_cpu=True, per_device_train_batch_size={BATCH}, learning_rate=1e-3,
        num_train_epochs=1, logging_strategy="no", report_to=[], disable_tqdm=True,
        save_strategy="no", seed=0, **extra)

def build(kind, out, **extra):
    model = Model()
    if kind == "fairshard":
        trainer = FairshardTrainer(
            model=model, args=arguments(out, **extra), train_dataset=Rows(),
            train_sampler=lambda ds: fairshard.DistributedSampler(len(ds), seed=0))
    else:
        trainer = Trainer(model=model, args=arguments(out, **extra), train_dataset=Rows())
    return trainer, model
"""

_WRITE = """
class SaveAt(TrainerCallback):
    def on_step_end(self, args, state, control, **kw):
        if state.global_step in STEPS:
            control.should_save = True
        if state.global_step >= max(STEPS):
            control.should_training_stop = True

for kind in ("fairshard", "trainer"):
    trainer, _ = build(kind, f"{OUT}/{kind}")
    trainer.add_callback(SaveAt())
    trainer.train()
"""

_SETUP = """
class FirstStep(TrainerCallback):
    def on_step_begin(self, args, state, control, **kw):
        if FIRST[0] is None:
            FIRST[0] = time.perf_counter()
    def on_step_end(self, args, state, control, **kw):
        control.should_training_stop = True

FIRST = [None]
trainer, model = build(KIND, OUT + "/resumed-" + KIND)
trainer.add_callback(FirstStep())
"""

_BODY = """
t0 = time.perf_counter()
trainer.train(resume_from_checkpoint=CHECKPOINT)
expected = None
if KIND == "fairshard":
    order = iter(fairshard.DistributedSampler(Rows.__len__(None), seed=0))
    expected = next(itertools.islice(order, STEP * BATCH, None))
RESULT = {"first": FIRST[0] - t0, "idx": model.first, "expected": expected}
"""


def write_checkpoints(out: str, steps: list[int]) -> None:
    code = _COMMON + f"OUT = {out!r}\nSTEPS = {steps!r}\n" + _WRITE
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, timeout=3600)


def main() -> None:
    args = bench_args(__doc__)
    steps = [100, 1_000] if args.quick else [1_000, 10_000, 100_000]
    with tempfile.TemporaryDirectory() as out:
        write_checkpoints(out, steps)
        cells = {}
        for step in steps:
            for kind in ("trainer", "fairshard"):
                head = (
                    f"KIND = {kind!r}\nOUT = {out!r}\nSTEP = {step}\n"
                    f"CHECKPOINT = {out + f'/{kind}/checkpoint-{step}'!r}\n"
                )
                cells[f"{kind}/{step}"] = (
                    textwrap.dedent(_COMMON) + head + textwrap.dedent(_SETUP),
                    textwrap.dedent(_BODY),
                )
        results = run_cells(cells, args.reps, timeout=900.0)
    rows = []
    for step in steps:
        theirs, ours = results[f"trainer/{step}"], results[f"fairshard/{step}"]
        for m in ours:  # the first resumed batch is the next one of the order
            if m.ok and m.result["idx"] != m.result["expected"]:  # type: ignore[index]
                raise SystemExit(f"fairshard resumed at {m.result} after {step} steps")
        cells = []
        for ms in (theirs, ours):
            times = [m.result["first"] for m in ms if m.ok]  # type: ignore[index]
            cells.append(
                f"{median(times):.3f} s ({min(times):.3f}-{max(times):.3f})"
                if times
                else ms[0].status
            )
        pairs = [  # the cells of one rep ran back to back
            a.result["first"] / b.result["first"]  # type: ignore[index]
            for a, b in zip(theirs, ours, strict=False)
            if a.ok and b.ok
        ]
        ratio = f"{median(pairs):.2f}x ({min(pairs):.2f}-{max(pairs):.2f})" if pairs else "n/a"
        rows.append([f"{step:,}", *cells, ratio])
    print(
        f"Resume from checkpoint-k (1 process, batch size {BATCH}, {N // BATCH:,} batches "
        "per epoch): time from `train(resume_from_checkpoint=...)` to the first resumed step, "
        "median (range) over the reps.\n"
    )
    header = ["consumed steps k", "Trainer (its skip)", "FairshardTrainer (loader state)"]
    print(table([*header, "Trainer / FairshardTrainer"], rows))


if __name__ == "__main__":
    main()
