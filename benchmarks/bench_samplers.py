"""DistributedSampler vs PyTorch's and torchdata's: epoch (n and world-size sweeps), resume.

Every cell runs in a fresh child process (``_harness.measure``), cells are
interleaved and repeated (``--reps``, default 3); tables give the median with
the range over the reps, and ratios per rep (the cells of one rep ran back to
back). Absolute times on a shared machine are noise; the ratios count.

    python benchmarks/bench_samplers.py            # n = 1e6 .. 1e9, W = 1, 8, 64
    python benchmarks/bench_samplers.py --quick    # seconds

Cases (shuffle=True):
  epoch   one full per-rank epoch of rank 0, consumed without storing it
  resume  a fresh process (a restart): build the sampler, load a mid-epoch
          state, take the first index -- everything after ``import`` (the
          sampler's modules imported: ``import fairshard`` itself is lazy)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _harness import bench_args, fmt_mem, fmt_ratio, fmt_time, run_cells, table

SRC = str(Path(__file__).resolve().parents[1] / "src")
MEMORY_LIMIT_GIB = 16.0  # a runaway allocation raises MemoryError instead of swapping

SETUP = f"""
import sys
sys.path.insert(0, {SRC!r})
from collections import deque
from itertools import islice
import torch.utils.data as tud
import fairshard
"""


def epoch_cells(n: int, world: int, peers: bool) -> dict[str, tuple[str, str]]:
    """One epoch of rank 0 of ``world`` at ``n`` items (also bench_check's cells)."""
    # `import fairshard` is lazy: name the class in the setup, so its module chain is
    # imported there (torch's cell imports torch.utils.data in its setup) and the body
    # times the epoch alone.
    ours = SETUP + "fairshard.DistributedSampler\n"
    cells = {"fairshard": (ours, f"deque(fairshard.DistributedSampler({n}, {world}, 0), maxlen=0)")}
    if peers:
        cells["torch"] = (SETUP, f"deque(tud.DistributedSampler(range({n}), {world}, 0), maxlen=0)")
        cells["torchdata"] = (
            SETUP
            + "from torchdata.stateful_dataloader.sampler import StatefulDistributedSampler\n",
            f"deque(StatefulDistributedSampler(range({n}), {world}, 0), maxlen=0)",
        )
    return cells


def epoch_table(points: list[tuple[int, int]], reps: int) -> str:
    rows = []
    for n, world in points:
        got = run_cells(
            epoch_cells(n, world, peers=n <= 10**8), reps, memory_limit_gib=MEMORY_LIMIT_GIB
        )
        ours = got["fairshard"]
        torch_ms = got.get("torch", [])
        td_ms = got.get("torchdata", [])
        rows.append(
            [
                f"{n:.0e}",
                str(world),
                fmt_time(torch_ms) if torch_ms else "not run",
                fmt_time(td_ms) if td_ms else "not run",
                fmt_time(ours),
                fmt_ratio(torch_ms, ours) if torch_ms else "n/a",
                fmt_ratio(td_ms, ours) if td_ms else "n/a",
                fmt_mem(torch_ms) if torch_ms else "-",
                fmt_mem(ours),
            ]
        )
    return table(
        [
            "n",
            "W",
            "torch",
            "torchdata Stateful",
            "fairshard",
            "torch / fairshard",
            "torchdata / fairshard",
            "torch peak extra",
            "fairshard peak extra",
        ],
        rows,
    )


def resume_cells(n: int) -> dict[str, tuple[str, str]]:
    """torch's and fairshard's resume at ``n`` items, half of rank 0's share of 8 consumed.

    Timed from after ``import`` to the first index of the rest of the epoch
    in a fresh process (also bench_check's cells).
    """
    half = n // 8 // 2
    state_code = (
        f"import sys; sys.path.insert(0, {SRC!r}); import fairshard, json\n"
        f"s = fairshard.DistributedSampler({n}, 8, 0); it = iter(s)\n"
        "next(it)\n"
    )
    ns: dict[str, object] = {}
    exec(state_code, ns)
    sampler = ns["s"]
    state = sampler.state_dict()  # type: ignore[attr-defined]
    from fairshard._core.state import seal

    raw = {k: v for k, v in state.items() if k not in ("format", "version", "checksum")}
    text = json.dumps(seal({**raw, "steps": half}))
    setup = (
        f"import sys, json\nsys.path.insert(0, {SRC!r})\nimport fairshard\n"
        # `import fairshard` is lazy: resolving the class is the import of its modules
        "fairshard.DistributedSampler\n"
        f"import torch.utils.data as tud\nfrom itertools import islice\n"
        f"state = json.loads({text!r})\n"
    )
    return {
        "torch": (
            setup,
            f"s = tud.DistributedSampler(range({n}), 8, 0)\n"
            f"RESULT = next(islice(iter(s), {half}, None))",
        ),
        "fairshard": (
            setup,
            f"s = fairshard.DistributedSampler({n}, 8, 0)\ns.load_state_dict(state)\n"
            "RESULT = next(iter(s))",
        ),
    }


def resume_table(sizes: list[int], reps: int) -> str:
    rows = []
    for n in sizes:
        got = run_cells(resume_cells(n), reps, memory_limit_gib=MEMORY_LIMIT_GIB)
        rows.append(
            [
                f"{n:.0e}",
                fmt_time(got["torch"]),
                fmt_time(got["fairshard"], 1e3, "ms"),
                fmt_ratio(got["torch"], got["fairshard"]),
            ]
        )
    return table(
        ["n", "torch (build + skip)", "fairshard (build + load_state_dict + first)", "ratio"],
        rows,
    )


def main(argv: list[str] | None = None) -> int:
    args = bench_args(__doc__, argv)
    if args.quick:
        sweep_n, sweep_w, resume_n = [10**5, 10**6], [(10**6, 1), (10**6, 64)], [10**6]
    else:
        sweep_n = [10**6, 10**7, 10**8, 10**9]
        sweep_w = [(10**8, 1), (10**8, 64)]
        resume_n = [10**6, 10**8]
    points = [(n, 8) for n in sweep_n] + sweep_w
    print("### DistributedSampler: one full epoch of rank 0 (n sweep at W=8, W sweep)\n")
    print(
        "torch and torchdata build the whole index list on every rank (O(n) per rank); "
        "fairshard computes only its own positions (O(n / W)), so the ratio grows with W.\n"
    )
    print(epoch_table(points, args.reps), flush=True)
    print("\n### Resume in a fresh process (rank 0 of 8, half an epoch consumed)\n")
    print(
        "Timed from after `import` to the first index: a real restart, with no warm caches. "
        "torch has no resume: it rebuilds the list and skips.\n"
    )
    print(resume_table(resume_n, args.reps), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
