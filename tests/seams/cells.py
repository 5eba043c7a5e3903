"""The seam matrix: loop drivers x loader workers x stop points x family kinds.

A *seam* is where a framework's loop, not fairshard's, decides when an epoch
ends, when a batch is fetched and when the epoch is set. Each cell of the
matrix trains two epochs of one family on two ranks under one driver's real
launcher, stops at one point of epoch 0 after a checkpoint taken the way that
driver's recipe takes it, resumes in a fresh trainer from that checkpoint and
trains to the end of epoch 1. Every rank's ledger (the sample ids of every
trained batch, in order) must then equal what an uninterrupted run of the
same sampler gives: nothing lost, nothing repeated, same order. A cell that
cannot be exact is refused by fairshard at run time with the fix, and the
table says so.

``python -m tests.seams.cells --write`` regenerates the table in
docs/integrations.md from :data:`CELLS` (``tests/seams/test_seam_table.py``
holds the two equal); the cells themselves run in
``tests/seams/test_seam_matrix.py``.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

N = 48  # samples; 2 ranks, so 24 per rank per epoch
WORLD = 2
BATCH = 4  # the index families' loader batch size (6 batches per rank and epoch)
EPOCHS = 2

DRIVERS = {
    "plain": "a plain loop (torchrun; `sampler.state_dict()`, with workers `loader_state_dict`)",
    "lightning-exact": "Lightning `Trainer` + `ExactResume`",
    "lightning-stateful": "Lightning `Trainer` + torchdata `StatefulDataLoader`",
    "accelerate": "accelerate `prepare_data_loader` + `save_state`/`load_state`",
    "trainer": "transformers `FairshardTrainer`",
    "ray": "Ray Train + `integrations.ray.prepare_data_loader` (its `loader.state_dict()`)",
}
WORKERS = (0, 2)
STOPS = {
    "mid": "mid-epoch (after half the batches of epoch 0)",
    "last": "the last batch (after every batch of epoch 0, before the epoch's end)",
    "boundary": "the epoch boundary (after epoch 0 ended)",
}
# kind -> catalog entry (tests/catalog.py); "steps" is a StepSampler over the index entry.
FAMILIES = {
    "index": "distributed",
    "weighted": "weighted",
    "batch": "length-bucket",
    "packing": "packing",
    "mixture": "mixture",
    "steps": "steps",
}

# One cell per driver runs in `make test`; the rest carry the ``matrix`` marker.
IN_MAKE_TEST = {
    ("plain", 2, "mid", "index"),
    ("lightning-exact", 2, "last", "batch"),
    ("lightning-stateful", 2, "mid", "index"),
    ("accelerate", 0, "mid", "weighted"),
    ("trainer", 2, "mid", "packing"),
    ("ray", 0, "mid", "index"),
}

# Cells that fairshard refuses at run time instead of training: (driver, workers,
# stop, kind) -> a fragment of the error message that names the fix. None yet:
# a refusal is added here only with its reason in docs/integrations.md.
REFUSED: dict[tuple[str, int, str, str], str] = {
    # Lightning makes the restored loader's iterator before its set_epoch; at an epoch
    # boundary its workers already prefetch the fresh sampler's epoch 0.
    **{
        ("lightning-stateful", 2, "boundary", k): "came after a DataLoader with num_workers=2"
        for k in FAMILIES
        if k != "steps"
    },
    # Restarted at an epoch's last batch with workers, Lightning trains the restored
    # loader's empty end of the saved epoch as the next epoch.
    **{
        ("lightning-stateful", 2, "last", k): "Lightning resumed from a checkpoint taken after"
        for k in FAMILIES
        if k != "steps"
    },
    **{
        ("lightning-stateful", w, s, "steps"): "Lightning restores this StepSampler"
        for w in WORKERS
        for s in STOPS
    },
    **{
        ("trainer", w, s, "steps"): "a StepSampler is one endless stream"
        for w in WORKERS
        for s in STOPS
    },
}


@dataclass(frozen=True)
class Cell:
    """One cell of the matrix."""

    driver: str
    workers: int
    stop: str
    kind: str

    @property
    def id(self) -> str:
        """The cell's test id and folder name."""
        return f"{self.driver}-w{self.workers}-{self.stop}-{self.kind}"

    @property
    def key(self) -> tuple[str, int, str, str]:
        return (self.driver, self.workers, self.stop, self.kind)

    @property
    def refusal(self) -> str | None:
        """The fragment of the run-time refusal, for a cell that is refused."""
        return REFUSED.get(self.key)


CELLS = [Cell(d, w, s, k) for d in DRIVERS for w in WORKERS for s in STOPS for k in FAMILIES]


def by_driver(cells: list[Cell]) -> dict[tuple[str, int], list[Cell]]:
    """Cells grouped by ``(driver, workers)``: one launch runs a group."""
    groups: dict[tuple[str, int], list[Cell]] = {}
    for cell in cells:
        groups.setdefault((cell.driver, cell.workers), []).append(cell)
    return groups


# ------------------------------------------------------------------ checks
def steps_per_epoch(kind: str, rank: int) -> int:
    """Batches one rank trains in an epoch of ``kind`` (the uninterrupted run's)."""
    return len(reference(kind, rank)[0])


def reference(kind: str, rank: int) -> list[list[list[int]]]:
    """``[epoch][batch] -> sample ids`` of an uninterrupted two-epoch run on ``rank``."""
    from tests.seams.families import build, ids_of, loader

    sampler = build(kind, rank, WORLD)
    epochs: list[list[list[int]]] = []
    if kind == "steps":
        batches = iter(loader(kind, sampler, 0))
        per_epoch = N // (BATCH * WORLD)
        return [[ids_of(kind, next(batches)) for _ in range(per_epoch)] for _ in range(EPOCHS)]
    for epoch in range(EPOCHS):
        sampler.set_epoch(epoch)
        epochs.append([ids_of(kind, b) for b in loader(kind, sampler, 0)])
    return epochs


def stop_after(kind: str, stop: str, rank: int = 0) -> int:
    """Batches of epoch 0 trained before the checkpoint of ``stop``."""
    total = steps_per_epoch(kind, rank)
    return {"mid": total // 2, "last": total, "boundary": total}[stop]


def verdict(cell: Cell, ledgers: list[dict[str, Any]]) -> list[str]:
    """What is wrong with a cell's ledgers (``[]``: exact).

    A ledger is ``{"rank", "phase1": [[epoch, ids], ...], "phase2": [...]}``:
    what the trainer took before the stop and after the resume.
    """
    problems = []
    for ledger in ledgers:
        rank = ledger["rank"]
        want = reference(cell.kind, rank)
        got: list[list[list[int]]] = [[] for _ in range(EPOCHS)]
        for phase in ("phase1", "phase2"):
            for epoch, ids in ledger[phase]:
                if not 0 <= epoch < EPOCHS:
                    problems.append(f"rank {rank} {phase}: a batch of epoch {epoch}")
                    continue
                got[epoch].append(list(ids))
        for epoch in range(EPOCHS):
            if got[epoch] != want[epoch]:
                flat_got = [i for b in got[epoch] for i in b]
                flat_want = [i for b in want[epoch] for i in b]
                lost = sorted(set(flat_want) - set(flat_got))
                extra = len(flat_got) - len(set(flat_got))
                problems.append(
                    f"rank {rank} epoch {epoch}: {len(got[epoch])} batches "
                    f"({len(flat_got)} ids) where the uninterrupted run trains "
                    f"{len(want[epoch])} ({len(flat_want)}); lost {lost[:12]}, "
                    f"repeated {extra}"
                )
    if len(ledgers) != WORLD:
        problems.append(f"{len(ledgers)} ledgers for {WORLD} ranks")
    return problems


def read_ledgers(folder: Path) -> list[dict[str, Any]]:
    """The ledgers a cell's ranks wrote into ``folder``."""
    return [json.loads(p.read_text()) for p in sorted(folder.glob("rank*.json"))]


# ------------------------------------------------------------------- table
BEGIN, END = "<!-- seams:begin", "<!-- seams:end -->"


def _mark(cells: list[Cell]) -> str:
    refused = [c for c in cells if c.refusal]
    if not refused:
        return "exact"
    if len(refused) == len(cells):
        return "refused"
    return "exact / refused: " + ", ".join(f"{c.kind}" for c in refused)


def table() -> str:
    """The matrix as a Markdown table: a row per driver and workers, a column per stop."""
    head = (
        "| driver | `num_workers` | " + " | ".join(STOPS) + " | make test runs |\n"
        "|---|---|" + "---|" * len(STOPS) + "---|\n"
    )
    rows = []
    for (driver, workers), cells in by_driver(CELLS).items():
        marks = [_mark([c for c in cells if c.stop == stop]) for stop in STOPS]
        in_test = [c for c in cells if c.key in IN_MAKE_TEST]
        ran = ", ".join(f"{c.stop} x {c.kind}" for c in in_test) or "-"
        rows.append(f"| {DRIVERS[driver]} | {workers} | " + " | ".join(marks) + f" | {ran} |")
    kinds = ", ".join(f"{k} (`{v}`)" for k, v in FAMILIES.items())
    note = (
        f"\nEach cell: {len(FAMILIES)} families ({kinds}), {WORLD} ranks, {N} samples, "
        f"{EPOCHS} epochs, stopped at {', '.join(STOPS.values())}; exact = every rank's "
        "trained batches equal an uninterrupted run's, batch for batch.\n"
    )
    return head + "\n".join(rows) + "\n" + note


def render(text: str) -> str:
    """``text`` (docs/integrations.md) with the table between the markers replaced."""
    pattern = re.compile(re.escape(BEGIN) + r".*?" + re.escape(END), re.S)
    block = f"{BEGIN} (written by `python -m tests.seams.cells --write`) -->\n{table()}{END}"
    if not pattern.search(text):
        raise ValueError("docs/integrations.md has no seams markers")
    return pattern.sub(lambda _: block, text)


PAGE = Path(__file__).resolve().parents[2] / "docs" / "integrations.md"


def main(argv: list[str]) -> int:
    if argv == ["--write"]:
        PAGE.write_text(render(PAGE.read_text()))
        return 0
    print(table())
    return 0


def iter_cells(driver: str, workers: int, names: list[str]) -> Iterator[Cell]:
    """The cells of one launch, from their ids."""
    for cell in CELLS:
        if cell.driver == driver and cell.workers == workers and cell.id in names:
            yield cell


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
