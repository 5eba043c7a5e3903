"""StepSampler beside the DistributedSampler it wraps and Megatron-LM's two samplers.

One rank's share of an epoch (rank 0 of 8, micro batch 4, global batch 32)
at n = 1e6 and 1e8 items, each cell in a fresh process, the cells
interleaved and repeated (``--reps``, default 3). The ratios are taken
within a rep (its cells ran back to back), so load from other processes on
a shared machine moves the absolute times more than the ratios.

    python benchmarks/bench_steps.py            # n = 1e6, 1e8
    python benchmarks/bench_steps.py --quick    # n = 1e5, 1e6

Cells (each iterates n / 8 indices, consumed without storing them, with a
fresh sampler for each of 3 passes in its process; a cell counts
its best pass, so a burst of load on one pass does not decide it):
  inner           fairshard.DistributedSampler(n, 8, 0): what StepSampler wraps
  StepSampler     StepSampler(inner, micro_batch_size=4, global_batch_size=32)
  StepSampler+BS  the same through torch's BatchSampler(4): micro-batch lists,
                  as a DataLoader makes them (Megatron's samplers yield lists)
  Megatron random MegatronPretrainingRandomSampler (data_sharding=True, its
                  default): randperm of the rank's bucket, yields lists of 4
  Megatron seq    MegatronPretrainingSampler: walks all n, yields this rank's 4
  taking turns    one process running inner, StepSampler and Megatron random in
                  turn, five times each: its ratios of best passes are the
                  steadiest on a loaded machine

Megatron's samplers are vendored unchanged under ``benchmarks/_megatron/``
(BSD-3-Clause, its LICENSE beside them). The run also replays the vendored
ramp-up calculator (``RampupBatchsizeNumMicroBatchesCalculator``) over a
grid of ramps and counts where ``BatchSchedule.ramp`` disagrees with it, by
default and with ``rounding="megatron"``.
"""

from __future__ import annotations

import itertools
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from _harness import Measurement, bench_args, median, run_cells, table

HERE = Path(__file__).resolve().parent

WORLD, MICRO, GLOBAL = 8, 4, 32

SETUP = f"""
import sys
sys.path.insert(0, {str(HERE.parent / "src")!r})
sys.path.insert(0, {str(HERE)!r})
import time
from collections import deque
from itertools import islice
from torch.utils.data import BatchSampler
import fairshard
from _megatron.data_samplers import MegatronPretrainingRandomSampler, MegatronPretrainingSampler
"""


def step_cells(n: int, passes: int) -> dict[str, tuple[str, str]]:
    """Each cell builds its sampler afresh for each of ``passes`` passes; RESULT: the best.

    (Also bench_check's: its StepSampler headlines rerun these cells.)
    """
    share = n // WORLD
    inner = f"fairshard.DistributedSampler({n}, {WORLD}, 0, seed=0)"
    step = f"fairshard.StepSampler({inner}, micro_batch_size={MICRO}, global_batch_size={GLOBAL})"
    rand = (
        f"MegatronPretrainingRandomSampler(None, total_samples={n}, consumed_samples=0, "
        f"micro_batch_size={MICRO}, data_parallel_rank=0, data_parallel_size={WORLD}, "
        "data_sharding=True)"
    )
    seq = (
        f"MegatronPretrainingSampler(total_samples={n}, consumed_samples=0, "
        f"micro_batch_size={MICRO}, data_parallel_rank=0, data_parallel_size={WORLD})"
    )
    built = {
        # (islice for both: an endless stream needs it, so the inner pays it too)
        "inner": (inner, f"deque(islice(s, {share}), maxlen=0)"),
        "StepSampler": (step, f"deque(islice(s, {share}), maxlen=0)"),
        "StepSampler+BS": (
            f"BatchSampler({step}, {MICRO}, False)",
            f"deque(islice(s, {share // MICRO}), maxlen=0)",
        ),
        "Megatron random": (rand, "deque(s, maxlen=0)"),
        "Megatron seq": (seq, "deque(s, maxlen=0)"),
    }
    body = (
        "best = float('inf')\n"
        f"for _ in range({passes}):\n"
        "    s = {make}\n"
        "    t = time.perf_counter()\n"
        "    {run}\n"
        "    best = min(best, time.perf_counter() - t)\n"
        "RESULT = best\n"
    )
    cells = {name: (SETUP, body.format(make=m, run=r)) for name, (m, r) in built.items()}
    # One process taking turns (inner, StepSampler, Megatron random) five times: a
    # burst of load lands on all three alike, so its ratios of best passes hold best.
    paired = ["inner", "StepSampler", "Megatron random"]
    turns = "".join(
        f"    s = {built[name][0]}\n"
        "    t = time.perf_counter()\n"
        f"    {built[name][1]}\n"
        f"    best[{name!r}] = min(best.get({name!r}, float('inf')), time.perf_counter() - t)\n"
        for name in paired
    )
    cells["turns"] = (SETUP, f"best = {{}}\nfor _ in range(5):\n{turns}RESULT = best\n")
    return cells


def _best(ms: list[Measurement], name: str | None = None) -> list[float]:
    """Each rep's best pass (of the cell, or of ``name`` in the cell that takes turns)."""
    if name is not None:
        return [float(m.result[name]) for m in ms if m.ok and isinstance(m.result, dict)]
    return [float(m.result) for m in ms if m.ok and isinstance(m.result, float)]


def _turns(ms: list[Measurement], theirs: str, ours: str) -> str:
    pairs = [a / b for a, b in zip(_best(ms, theirs), _best(ms, ours), strict=False)]
    if not pairs:
        return ms[0].status if ms else "n/a"
    return f"{median(pairs):.2f}x ({min(pairs):.2f}-{max(pairs):.2f})"


def _per_index(ms: list[Measurement], share: int) -> str:
    good = [t / share * 1e9 for t in _best(ms)]
    if not good:
        return ms[0].status if ms else "n/a"
    return f"{median(good):.0f} ns ({min(good):.0f}-{max(good):.0f})"


def _ratio(theirs: list[Measurement], ours: list[Measurement]) -> str:
    """theirs / ours per rep, from each cell's best pass: median (range)."""
    pairs = [a / b for a, b in zip(_best(theirs), _best(ours), strict=False)]
    if not pairs:
        return "n/a"
    return f"{median(pairs):.2f}x ({min(pairs):.2f}-{max(pairs):.2f})"


def speed_table(sizes: list[int], reps: int) -> str:
    rows = []
    for n in sizes:
        got = run_cells(step_cells(n, 3), reps)
        share = n // WORLD
        ours = got["StepSampler"]
        rows.append(
            [
                f"{n:.0e}",
                *(_per_index(got[c], share) for c in got if c != "turns"),
                _ratio(ours, got["inner"]),
                _ratio(got["Megatron random"], ours),
                _ratio(got["Megatron random"], got["StepSampler+BS"]),
                _turns(got["turns"], "StepSampler", "inner"),
                _turns(got["turns"], "Megatron random", "StepSampler"),
            ]
        )
    header = [
        "n",
        *(f"{c} per index" for c in step_cells(sizes[0], 1) if c != "turns"),
        "StepSampler / inner",
        "Megatron random / StepSampler",
        "Megatron random / StepSampler+BS",
        "taking turns: StepSampler / inner",
        "taking turns: Megatron random / StepSampler",
    ]
    return table(header, rows)


def _megatron_sizes(start: int, incr: int, ramp: int, final: int, steps: int) -> list[int]:
    from _megatron.num_microbatches_calculator import RampupBatchsizeNumMicroBatchesCalculator

    calc = RampupBatchsizeNumMicroBatchesCalculator(final, 1, 1, False, 1, start, incr, ramp)
    consumed, sizes = 0, []
    for _ in range(steps):
        size = calc.get_current_global_batch_size()
        sizes.append(size)
        consumed += size
        calc.update(consumed, False)
    return sizes


def _megatron_thresholds(start: int, incr: int, ramp: int, final: int) -> list[tuple[int, int]]:
    """``(from_sample, size)`` wherever the vendored calculator's size changes."""
    from _megatron.num_microbatches_calculator import RampupBatchsizeNumMicroBatchesCalculator

    calc = RampupBatchsizeNumMicroBatchesCalculator(final, 1, 1, False, 1, start, incr, ramp)
    points = [(0, calc.get_current_global_batch_size())]
    for consumed in range(1, ramp + 2):
        calc.update(consumed, False)
        size = calc.get_current_global_batch_size()
        if size != points[-1][1]:
            points.append((consumed, size))
    return points


def schedule_table() -> str:
    import fairshard

    grid = list(itertools.product(range(1, 61), range(1, 13), (1, 3)))
    # per rounding: ramps whose steps differ, thresholds that differ, steps that differ
    counts = {"exact": [0, 0, 0], "megatron": [0, 0, 0]}
    for ramp, k, incr in grid:
        start, final = 2 * incr, 2 * incr + k * incr
        want = _megatron_sizes(start, incr, ramp, final, 80)
        theirs = _megatron_thresholds(start, incr, ramp, final)
        for rounding, c in counts.items():
            sched = fairshard.BatchSchedule.ramp(
                start=start, increment=incr, ramp_samples=ramp, final=final, rounding=rounding
            )
            bad = sum(sched.size(s) != w for s, w in enumerate(want))
            c[0] += bad > 0
            c[1] += sum(a != b for a, b in zip(sched.points, theirs, strict=False))
            c[1] += abs(len(sched.points) - len(theirs))
            c[2] += bad
    rows = [[f"`rounding={r!r}`", *(str(v) for v in c)] for r, c in counts.items()]
    header = [
        f"BatchSchedule.ramp over {len(grid)} ramps (ramp_samples 1-60, 1-12 increments)",
        "ramps that differ from Megatron's calculator",
        "thresholds that differ",
        "steps that differ (first 80 of each)",
    ]
    return table(header, rows)


def main() -> None:
    args = bench_args(__doc__)
    sizes = [10**5, 10**6] if args.quick else [10**6, 10**8]
    load = os.getloadavg()[0]
    print(
        f"\n### StepSampler iteration: one rank's epoch share (rank 0 of {WORLD}, micro batch "
        f"{MICRO}, global batch {GLOBAL}), {args.reps} interleaved reps, median (range)\n"
    )
    print(speed_table(sizes, args.reps))
    print(
        f"\nLoad average {load:.1f} at the start, {os.getloadavg()[0]:.1f} at the end. "
        "Ratios per rep: `a / b` above 1 means `b` is faster.\n"
    )
    print("\n### Ramp-up schedules against Megatron's calculator (vendored)\n")
    print(schedule_table())


if __name__ == "__main__":
    main()
