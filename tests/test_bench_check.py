"""bench_check (``make bench-check``) finds every headline row in README.md; its cells are
the bench modules' own. No timing: nothing here is measured."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import bench_batch  # noqa: E402
import bench_check  # noqa: E402
import bench_cold  # noqa: E402
import bench_packing  # noqa: E402
import bench_samplers  # noqa: E402
import bench_steps  # noqa: E402
import bench_streams  # noqa: E402
import bench_weighted  # noqa: E402

README = (ROOT / "README.md").read_text()


@pytest.mark.parametrize("headline", bench_check.HEADLINES, ids=bench_check.labels())
def test_every_headline_row_is_in_the_readme(headline: bench_check.Headline) -> None:
    value, written = bench_check.readme_figure(README, headline)
    assert value > 0
    assert bench_check.parse_figure(written) == value


def test_the_brief_headlines_are_all_checked() -> None:
    labels = " ".join(bench_check.labels())
    for name in (
        "ClassBatchSampler(P=16 x K=4, stop)",
        "LengthBucketBatchSampler(32)",
        "TokenBudgetBatchSampler(16384)",
        "PackingBatchSampler",
        "DistributedSampler",
        "replacement=True",
        "replacement=False",
        "Megatron random / StepSampler, 1e+06",
        "Megatron random / StepSampler, 1e+08",
        "fresh-process resume, 1e+06",
        "fresh-process resume, 1e+08",
        "WeightedSampler 1e8 weights",
        "ShardedIterable / islice recipe, list",
        "ShardedIterable / islice recipe, stream",
        "cold read, one thread, 4 KiB: locality / sequential",
        "cold read, DataLoader, 2 workers, 4 KiB: locality / sequential",
    ):
        assert name in labels


def test_cells_are_the_bench_modules_own_and_consistent() -> None:
    own = {
        **bench_batch.plan_cells(10**7, peers=False),
        **bench_packing.plan_cells(10**7, list(bench_packing.CASES)),
        **bench_weighted.large_cells(10**8, [8]),
    }
    keys: set[str] = set()
    for h in bench_check.HEADLINES:
        cells = h.cells()
        if h.label.startswith("DistributedSampler fresh-process resume"):
            n = int(float(h.row[0]))
            assert cells == {"fairshard": bench_samplers.resume_cells(n)["fairshard"]}
            own[h.ours] = cells[h.ours]
        assert h.ours in cells
        assert h.kind == (
            "time" if "/" not in h.column else ("inverse ratio" if h.lower_is_better else "ratio")
        )
        if h.theirs is not None:
            assert h.theirs in cells and set(cells) == {h.ours, h.theirs}
        else:
            assert list(cells) == [h.ours]
            assert cells[h.ours] == own[h.ours]
        keys |= {bench_check.key(h, name) for name in cells}
    assert len(keys) == sum(len(h.cells()) for h in bench_check.HEADLINES)  # no cell shared
    assert len(set(bench_check.labels())) == len(bench_check.HEADLINES)
    dist = bench_samplers.epoch_cells(10**7, 8, peers=True)
    assert bench_check.HEADLINES[4].cells() == {k: dist[k] for k in ("fairshard", "torch")}
    assert bench_check.HEADLINES[5].cells() == bench_weighted.compare_cells(1 << 24, True)
    steps = bench_steps.step_cells(10**6, 3)
    assert bench_check.HEADLINES[7].cells() == {
        k: steps[k] for k in ("StepSampler", "Megatron random")
    }
    assert [h.by_result for h in bench_check.HEADLINES] == (
        [False] * 7 + [True] * 2 + [False] * 5 + [True] * 2
    )
    by_label = {h.label: h for h in bench_check.HEADLINES}
    for kind in ("list", "stream"):
        h = by_label[f"ShardedIterable / islice recipe, {kind}, 0 workers"]
        assert h.cells() == bench_streams.stream_cells(4 * 10**6, kind, 0, peers=False)
        assert (h.ours, h.theirs, h.lower_is_better) == ("fairshard", "recipe", True)
    for where, workers in (("one thread", 0), ("DataLoader, 2 workers", 2)):
        h = by_label[f"cold read, {where}, 4 KiB: locality / sequential"]
        path = bench_check.COLD_DIR / "records.bin"
        assert h.cells() == bench_cold.cold_cells(path, 4096, workers)
        assert not path.exists()  # naming the cells writes nothing; the first cell's setup does


def test_a_missing_row_is_named() -> None:
    h = bench_check.HEADLINES[0]
    text = "\n".join(line for line in README.splitlines() if not line.startswith(f"| {h.row[0]} "))
    with pytest.raises(bench_check.MissingRow, match=r"ClassBatchSampler\(P=16 x K=4, stop\)"):
        bench_check.readme_figure(text, h)
    assert bench_check.main(["--readme", str(_write(text)), "--only", "ClassBatch"]) == 2


def _write(text: str) -> Path:
    import tempfile

    path = Path(tempfile.mkdtemp()) / "README.md"
    path.write_text(text)
    return path


def test_figures_and_verdicts() -> None:
    assert bench_check.parse_figure("0.804 s (0.785-0.807)") == 0.804
    assert bench_check.parse_figure("1.789 s") == 1.789
    assert bench_check.parse_figure("0.81 ms (0.74-4.86)") == pytest.approx(0.00081)
    assert bench_check.parse_figure("17.84x (16.65-22.56)") == 17.84
    with pytest.raises(ValueError, match="not a figure"):
        bench_check.parse_figure("not run")
    assert bench_check.verdict(1.0, 1.05, "time", 0.1) == "holds"
    assert bench_check.verdict(1.0, 2.0, "time", 0.1) == "slower by 100%"
    assert bench_check.verdict(1.0, 0.5, "time", 0.1) == "faster by 100%"
    assert bench_check.verdict(4.0, 2.0, "ratio", 0.1) == "slower by 100%"
    assert bench_check.verdict(2.0, 4.0, "ratio", 0.1) == "faster by 100%"
    # fairshard / peer (ShardedIterable / recipe): a bigger ratio is fairshard slower
    assert bench_check.verdict(1.0, 2.0, "inverse ratio", 0.1) == "slower by 100%"
    assert bench_check.verdict(1.0, 1.05, "inverse ratio", 0.1) == "holds"
    assert bench_check.fmt_value(0.00292, "time") == "2.92 ms"
    assert bench_check.fmt_value(4.557, "time") == "4.557 s"
    assert bench_check.fmt_value(1.53, "ratio") == "1.53x"


def test_ratio_figures_are_taken_within_each_rep() -> None:
    from _harness import Measurement

    by_label = {h.label: h for h in bench_check.HEADLINES}

    def ms(*seconds: float) -> list[Measurement]:
        return [Measurement(s, 0.0, "ok", s) for s in seconds]

    stream = by_label["ShardedIterable / islice recipe, stream, 0 workers"]
    got = {
        bench_check.key(stream, "fairshard"): ms(1.1, 2.0),
        bench_check.key(stream, "recipe"): ms(1.0, 1.0),
    }
    assert bench_check.now_values(stream, got) == pytest.approx([1.1, 2.0])  # fairshard / recipe
    cold = by_label["cold read, one thread, 4 KiB: locality / sequential"]
    # RESULT is seconds per record: locality 1/200k, sequential 1/100k -> locality reads 2x faster
    got = {
        bench_check.key(cold, "locality"): ms(1 / 200e3),
        bench_check.key(cold, "sequential"): ms(1 / 100e3),
    }
    assert bench_check.now_values(cold, got) == pytest.approx([2.0])


def test_make_bench_leaves_the_check_out_of_the_readme_tables() -> None:
    import run

    assert "bench_check.py" in run.NOT_TABLES


def test_epoch_cells_time_the_epoch_not_the_lazy_import() -> None:
    # `import fairshard` is lazy (PEP 562): the first `fairshard.DistributedSampler` imports
    # the module chain (about 0.5 s on 2026-12-03), which torch's cell pays in its setup.
    for n, world, peers in ((10**7, 8, True), (10**9, 8, False)):
        setup, body = bench_samplers.epoch_cells(n, world, peers)["fairshard"]
        assert "fairshard.DistributedSampler\n" in setup.splitlines(keepends=True)
        assert "fairshard.DistributedSampler(" in body


def test_cells_run_on_compiled_sources() -> None:
    """A bench compiles fairshard's sources once, so a fresh cell never compiles them again."""
    import importlib.util

    import _harness  # type: ignore[import-not-found]

    init = _harness._SOURCES / "fairshard" / "__init__.py"
    _harness.compile_sources()
    cached = Path(importlib.util.cache_from_source(str(init)))
    assert cached.exists() and cached.stat().st_mtime >= init.stat().st_mtime


def test_a_headline_of_self_timed_cells_reads_their_result() -> None:
    """bench_steps' cells time their best pass (RESULT), not the whole process run."""
    from _harness import Measurement

    steps = next(h for h in bench_check.HEADLINES if h.by_result)
    got = {
        bench_check.key(steps, steps.ours): [Measurement(9.0, 0.0, "ok", 0.5)],
        bench_check.key(steps, "Megatron random"): [Measurement(9.0, 0.0, "ok", 2.0)],
    }
    assert bench_check.now_values(steps, got) == [4.0]
