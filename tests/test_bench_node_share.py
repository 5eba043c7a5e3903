"""bench_node_share measures the plan, not fairshard's lazy import. No timing here."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import bench_node_share  # noqa: E402

RESOLVE = 'eval(BUILD.split("(", 1)[0])'


def test_the_family_is_resolved_before_the_baseline_and_the_clock() -> None:
    # `import fairshard` is lazy (PEP 562): the first `fs.<Family>` imports torch and the
    # family's modules, about 130 MiB of a process's memory and a second (2026-12-05), which
    # the node table once counted as plan memory (4.8-5.9x one rank instead of 1.05-1.13x).
    child = bench_node_share._CHILD
    assert child.index(RESOLVE) < child.index("before = status()") < child.index("t0 =")
    restart = bench_node_share._RESTART
    assert restart.index(RESOLVE) < restart.index("t0 =")


def test_every_family_resolves_to_a_fairshard_class() -> None:
    import fairshard as fs

    for build in bench_node_share.FAMILIES.values():
        name = build.split("(", 1)[0]
        assert name.startswith("fs.")
        assert isinstance(eval(name, {"fs": fs}), type)
