import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from fairshard._cli.main import main

from .._launch import child_env


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, Any]]:
    code = main(["simulate", "--json", "--quiet", *argv])
    return code, json.loads(capsys.readouterr().out)


TOP_KEYS = {
    "schema",
    "version",
    "sampler",
    "world_size",
    "dataset_size",
    "num_epochs",
    "num_classes",
    "set_epoch",
    "per_rank",
    "ok",
    "problems",
    "warnings",
    "epochs",
}
EPOCH_KEYS = {
    "epoch",
    "dataset_size",
    "covered",
    "missing",
    "overlap",
    "duplicates",
    "total_yielded",
    "equal_steps",
    "identical_ranks",
    "overlap_matrix",
    "declared",
    "ranks",
}
RANK_KEYS = {
    "rank",
    "length",
    "yielded",
    "batches",
    "steps",
    "unique",
    "duplicates",
    "first",
    "coverage",
    "class_counts",
    "order_change",
    "batch_entropy",
    "adjacent_correlation",
    "block_spread",
    "len_matches",
    "identical_order",
}
DECLARED_KEYS = {"padding", "dropped", "uneven", "shuffle", "source", "replacement"}


def test_json_schema(capsys: pytest.CaptureFixture[str]) -> None:
    code, doc = run_json(capsys, "-n", "100", "-w", "3", "--epochs", "2", "--labels", "demo")
    assert code == 0
    assert set(doc) == TOP_KEYS
    assert (doc["schema"], doc["version"]) == ("fairshard.simulate", 1)
    assert doc["num_epochs"] == len(doc["epochs"]) == 2 and doc["num_classes"] == 10
    for epoch in doc["epochs"]:
        assert set(epoch) == EPOCH_KEYS
        assert set(epoch["declared"]) == DECLARED_KEYS
        assert np.asarray(epoch["overlap_matrix"]).shape == (3, 3)
        for rank in epoch["ranks"]:
            assert set(rank) == RANK_KEYS
            assert sum(rank["class_counts"]) == rank["yielded"]
    assert doc["epochs"][0]["ranks"][0]["order_change"] is None
    assert doc["epochs"][1]["ranks"][0]["order_change"] > 0.5


@pytest.mark.parametrize(
    ("flag", "per_rank", "duplicates", "missing"),
    [([], 251, 1, 0), (["--drop-last"], 250, 0, 3)],
)
def test_worked_example_1003_on_4(
    capsys: pytest.CaptureFixture[str],
    flag: list[str],
    per_rank: int,
    duplicates: int,
    missing: int,
) -> None:
    code, doc = run_json(capsys, "-n", "1003", "-w", "4", "--check", *flag)
    assert code == 0 and doc["ok"]
    epoch = doc["epochs"][0]
    assert [r["yielded"] for r in epoch["ranks"]] == [per_rank] * 4
    assert [r["length"] for r in epoch["ranks"]] == [per_rank] * 4
    assert (epoch["duplicates"], epoch["missing"], epoch["covered"]) == (
        duplicates,
        missing,
        1003 - missing,
    )


def test_worked_example_50000_on_2_batch_64(capsys: pytest.CaptureFixture[str]) -> None:
    code, doc = run_json(capsys, "-n", "50000", "-w", "2", "--batch-size", "64", "--check")
    assert code == 0
    ranks = doc["epochs"][0]["ranks"]
    assert [(r["yielded"], r["batches"], r["length"]) for r in ranks] == [(25000, 391, 391)] * 2


def test_text_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "-n", "1003", "-w", "4", "-q"]) == 0
    out = capsys.readouterr().out
    assert "covered 1003, missing 0, overlap 1, duplicates 1" in out
    assert out.count("     251      251") == 4
    assert "pairwise overlap" in out and "all checks passed" in out


def test_torch_sampler_without_set_epoch_fails_check(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["torch.utils.data:DistributedSampler", "-n", "64", "-w", "2", "--epochs", "2"]
    code, doc = run_json(capsys, *argv, "--no-set-epoch", "--check")
    assert code == 1 and doc["set_epoch"] is False
    assert doc["epochs"][1]["identical_ranks"] == [0, 1]
    assert "identical order" in doc["problems"][0]
    code, doc = run_json(capsys, *argv, "--check")
    assert code == 0 and doc["epochs"][1]["identical_ranks"] == []
    assert main(["simulate", *argv, "--no-set-epoch", "-q"]) == 0  # without --check: report only
    assert "forgotten set_epoch?" in capsys.readouterr().out


def test_kwargs_and_overlap_check(capsys: pytest.CaptureFixture[str]) -> None:
    code, doc = run_json(
        capsys,
        "torch.utils.data:SequentialSampler",
        "-w",
        "2",
        "--kwarg",
        "data_source=range(6)",
        "--check",
    )
    assert code == 1
    assert doc["dataset_size"] == 6 and doc["epochs"][0]["overlap"] == 6
    assert doc["epochs"][0]["overlap_matrix"] == [[6, 6], [6, 6]]


def test_labels_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    np.save(tmp_path / "y.npy", np.arange(20) % 3)
    code, doc = run_json(
        capsys, "-n", "20", "-w", "2", "--labels", str(tmp_path / "y.npy"), "--no-shuffle"
    )
    assert code == 0
    assert [r["class_counts"] for r in doc["epochs"][0]["ranks"]] == [[4, 3, 3], [3, 4, 3]]


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    cases = [
        ["simulate", "NoSuchSampler", "-n", "10"],
        ["simulate", "-n", "10", "--kwarg", "broken"],
        ["simulate", "-n", "10", "--kwarg", "x=[1,"],
        ["simulate"],  # DistributedSampler needs a dataset size
        ["simulate", "-n", "10", "-w", "0"],
        ["simulate", "-n", "10", "--labels", "missing.npy"],
        ["simulate", "-n", "10", "--kwarg", "bogus=1"],
        ["simulate", "--world-size", "two"],
        ["nosuchcommand"],
    ]
    for argv in cases:
        assert main(argv) == 2, argv
    err = capsys.readouterr().err
    assert "no sampler named 'NoSuchSampler'" in err
    assert "world_size must be >= 1, got world_size=0" in err
    assert "needs a dataset" in err


def test_plot_is_a_png(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "shares.png"
    code = main(
        [
            "simulate",
            "-n",
            "2000",
            "-w",
            "4",
            "--epochs",
            "3",
            "--labels",
            "demo",
            "--plot",
            str(out),
            "-q",
        ]
    )
    assert code == 0
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    assert (width, height) == (2200, 550)  # four panels: owner, missing, class mix, change
    assert 10_000 < len(data) < 2_000_000
    capsys.readouterr()
    one = tmp_path / "one.png"
    assert main(["simulate", "-n", "50", "-w", "2", "--plot", str(one), "-q"]) == 0
    assert one.read_bytes()[:4] == b"\x89PNG"


def test_plot_without_matplotlib_names_the_extra(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    code = main(["simulate", "-n", "10", "-w", "2", "--plot", str(tmp_path / "x.png"), "-q"])
    assert code == 2
    assert "pip install 'fairshard[plot]'" in capsys.readouterr().err
    assert not (tmp_path / "x.png").exists()


def test_help_and_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    top = capsys.readouterr().out
    assert "simulate" in top and "lint" in top and "demo" in top
    assert main(["simulate", "--help"]) == 0
    text = capsys.readouterr().out
    for option in (
        "--kwarg",
        "--labels",
        "--plot",
        "--check",
        "--batch-size",
        "--no-set-epoch",
        "--json",
        "--quiet",
    ):
        assert option in text
    assert main(["--version"]) == 0


def test_python_dash_m_entry_point() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "fairshard", "simulate", "-n", "10", "-w", "2", "--check"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env=child_env(),  # this checkout's src (and lint/src) first
    )
    assert result.returncode == 0, result.stderr
    assert "all checks passed" in result.stdout
    assert result.stderr == ""  # no progress bar when stderr is not a terminal


@pytest.mark.parametrize("name", ["ClassBalancedSampler", "WeightedSampler", "HardExampleSampler"])
def test_weighted_families_simulate_and_check(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["simulate", name, "-w", "3", "--quiet", "--check"]
    if name == "ClassBalancedSampler":
        argv += ["--labels", "demo:300"]
    elif name == "WeightedSampler":
        argv += ["--kwarg", f"weights={[float(i % 4) for i in range(100)]}"]
    else:
        argv += ["-n", "100"]
    assert main(argv) == 0, capsys.readouterr().out
    assert "all checks passed" in capsys.readouterr().out


# ---------------------------------------------------------------- issue 15 items
def _png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


@pytest.mark.parametrize("kind", ["npy", "txt", "csv"])
def test_weights_and_lengths_from_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    weights = np.array([1.0, 0.0, 2.0, 0.5] * 25)
    lengths = np.arange(1, 101) % 17 + 3
    if kind == "npy":
        np.save(tmp_path / "w.npy", weights)
        np.save(tmp_path / "l.npy", lengths)
        w_spec, l_spec = str(tmp_path / "w.npy"), str(tmp_path / "l.npy")
    elif kind == "txt":
        (tmp_path / "w.txt").write_text("\n".join(map(str, weights)) + "\n")
        (tmp_path / "l.txt").write_text("\n".join(map(str, lengths)) + "\n")
        w_spec, l_spec = str(tmp_path / "w.txt"), str(tmp_path / "l.txt")
    else:
        pairs = enumerate(zip(weights, lengths, strict=True))
        rows = "\n".join(f"s{i},{w},{n}" for i, (w, n) in pairs)
        (tmp_path / "meta.csv").write_text("id,weight,tokens\n" + rows + "\n")
        w_spec, l_spec = f"{tmp_path}/meta.csv:weight", f"{tmp_path}/meta.csv:tokens"
    code, doc = run_json(capsys, "WeightedSampler", "-w", "4", "--weights", w_spec, "--check")
    assert code == 0 and doc["dataset_size"] == 100
    seen = {i for r in doc["epochs"][0]["ranks"] for i in r["first"]}
    assert not seen & {i for i in range(100) if weights[i] == 0}  # zero weight: never drawn
    code, doc = run_json(
        capsys,
        "LengthBucketBatchSampler",
        "-w",
        "2",
        "--lengths",
        l_spec,
        "--kwarg",
        "batch_size=8",
        "--check",
    )
    assert code == 0, doc["problems"]
    assert doc["epochs"][0]["missing"] == 0 and doc["epochs"][0]["ranks"][0]["batches"]


def test_missing_required_argument_names_the_flag(capsys: pytest.CaptureFixture[str]) -> None:
    for name, flag in [
        ("WeightedSampler", "--weights FILE"),
        ("LengthBucketBatchSampler", "--lengths FILE"),
        ("TokenBudgetBatchSampler", "--lengths FILE"),
        ("ClassBalancedSampler", "--labels FILE"),
        ("DistributedSampler", "--dataset-size N"),
    ]:
        assert main(["simulate", name, "-w", "2", "-q"]) == 2, name
        err = capsys.readouterr().err
        assert f"{name} needs" in err and flag in err, err
        assert "Traceback" not in err


def test_draws_with_replacement_are_not_padding(capsys: pytest.CaptureFixture[str]) -> None:
    weights = [float(i % 4) for i in range(40)]
    argv = ["WeightedSampler", "-w", "4", "--kwarg", f"weights={weights}", "--check"]
    code, doc = run_json(capsys, *argv)
    epoch = doc["epochs"][0]
    assert code == 0 and epoch["duplicates"] > 0
    assert epoch["declared"]["padding"] == 0
    assert epoch["declared"]["replacement"] >= epoch["duplicates"]
    assert main(["simulate", *argv, "-q"]) == 0
    text = capsys.readouterr().out
    assert f"duplicates: {epoch['duplicates']} drawn with replacement" in text
    assert "declared padding" not in text
    assert main(["simulate", "-n", "1003", "-w", "4", "-q"]) == 0
    assert "duplicates: 1 declared padding" in capsys.readouterr().out


def test_class_count_table_has_a_header(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "-n", "300", "-w", "3", "--labels", "demo:300", "-q"]) == 0
    lines = capsys.readouterr().out.splitlines()
    at = lines.index("  class counts per rank:")
    assert lines[at + 1].split() == ["rank"] + [f"c{c}" for c in range(10)]
    assert [line.split()[0] for line in lines[at + 2 : at + 5]] == ["0", "1", "2"]


def test_rank_placeholder_names_the_cause(capsys: pytest.CaptureFixture[str]) -> None:
    code, doc = run_json(capsys, "-n", "1000", "-w", "4", "--kwarg", "seed={rank}", "--check")
    assert code == 1 and doc["per_rank"] == {"seed": [0, 1, 2, 3]}
    assert doc["problems"][0].startswith("cause: seeds differ across ranks (seed = 0, 1, 2, 3")
    assert any("never yielded" in p for p in doc["problems"][1:])
    code, doc = run_json(capsys, "-n", "1000", "-w", "2", "--kwarg", "seed=42+{rank}*0")
    assert code == 0 and doc["ok"] and doc["per_rank"] == {}  # the same on every rank
    assert main(["simulate", "-n", "10", "--kwarg", "seed={rank}+"]) == 2
    assert "cannot evaluate" in capsys.readouterr().err


def test_drop_last_batch_needs_batch_size(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "-n", "100", "--drop-last-batch", "-q"]) == 2
    assert "--drop-last-batch needs --batch-size" in capsys.readouterr().err
    assert main(["simulate", "-n", "100", "-b", "8", "--drop-last-batch", "-q"]) == 0


def test_plot_panels_legend_and_counts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import fairshard
    from fairshard._diagnostics.plot import import_pyplot

    one = tmp_path / "one.png"
    assert main(["simulate", "-n", "500", "-w", "4", "--plot", str(one), "-q"]) == 0
    assert _png_size(one) == (1650, 550)  # one epoch: no empty order-change panel
    report = fairshard.simulate(
        "DistributedSampler", 4, dataset_size=500, epochs=3, kwargs={"seed": 0}, set_epoch=False
    )
    fig = fairshard.plot_simulation(report)
    try:
        titles = [ax.get_title() for ax in fig.axes]
        assert titles[0].startswith("owner of each index") and "missing in epoch 0" in titles[1]
        legend = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
        assert legend[:4] == ["rank 0", "rank 1", "rank 2", "rank 3"]
        assert "no rank (missing)" in legend and "several ranks" in legend
        headline = fig._suptitle.get_text()
        assert "0 missing" in headline and "0 overlapping" in headline
        lines = fig.axes[3].get_lines()
        xs = {tuple(line.get_xdata()) for line in lines}
        assert len(lines) == 4 and len(xs) == 4  # equal values, never drawn on top of each other
    finally:
        import_pyplot().close(fig)
    seeded = fairshard.simulate(
        lambda rank, world: fairshard.DistributedSampler(500, world, rank, seed=rank),
        4,
        dataset_size=500,
    )
    assert seeded.per_rank == {"seed": [0, 1, 2, 3]}
    assert seeded.problems[0].startswith("cause: seeds differ across ranks")
    fig = fairshard.plot_simulation(seeded)
    try:
        missing = seeded.epochs[0].missing
        assert missing and f"{missing} missing" in fig._suptitle.get_text()
    finally:
        import_pyplot().close(fig)


def test_data_source_is_filled_from_dataset_size(capsys: pytest.CaptureFixture[str]) -> None:
    # PyTorch's RandomSampler/SequentialSampler name their dataset data_source
    code, doc = run_json(capsys, "torch.utils.data:RandomSampler", "-n", "20", "-w", "2", "--check")
    assert code == 1 and doc["dataset_size"] == 20
    assert doc["epochs"][0]["overlap"] > 0  # not sharded: every rank draws from all 20
    assert main(["simulate", "torch.utils.data:SequentialSampler", "-w", "2", "-q"]) == 2
    assert "needs a dataset: give --dataset-size N" in capsys.readouterr().err
