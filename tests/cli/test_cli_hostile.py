"""Hostile input to the command line, through ``main(argv)``: never a traceback.

Every bad input ends as ``fairshard <command>: error: ...`` with exit code 2
(or, for ``lint``, an ``FS100`` finding for the one file it cannot check),
and runs too large to simulate are refused up front with the limit named.
The fuzz drives every ``simulate`` and ``lint`` flag with random values and
random-bytes files.
"""

from __future__ import annotations

import contextlib
import io
import os
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fairshard._cli.main import main
from fairshard._diagnostics.simulate import MAX_ITEMS, MAX_WORLD_SIZE


def run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def assert_usage_error(argv: list[str], *words: str) -> str:
    code, _, err = run(argv)
    assert code == 2, (argv, err)
    assert err.startswith(f"fairshard {argv[0]}: error: ") or "usage:" in err, err
    assert "Traceback" not in err
    for word in words:
        assert word in err, (word, err)
    return err


# ------------------------------------------------- the inputs of issue 14, item 10
def test_issue_inputs_are_usage_errors(tmp_path: Path) -> None:
    np.save(tmp_path / "strings.npy", np.array(["a", "b"]))
    full = tmp_path / "full.npy"
    np.save(full, np.arange(1000))
    (tmp_path / "truncated.npy").write_bytes(full.read_bytes()[:100])
    (tmp_path / "latin.txt").write_bytes("0\n1\n# catégorie\n2\n".encode("latin-1"))
    (tmp_path / "huge.txt").write_text(f"0\n{2**70}\n")
    np.save(tmp_path / "huge_u64.npy", np.array([2**64 - 1, 0], dtype=np.uint64))
    n = ["-n", "4", "-q"]
    assert_usage_error(["simulate", ":"], "module:Class")
    assert_usage_error(["simulate", "-n", "10", "--labels", "demo:abc"], "demo:N")
    assert_usage_error(["simulate", *n, "--labels", str(tmp_path / "strings.npy")], "numbers")
    assert_usage_error(["simulate", *n, "--labels", str(tmp_path / "truncated.npy")], ".npy")
    assert_usage_error(["simulate", *n, "--labels", str(tmp_path / "latin.txt")], "UTF-8")
    assert_usage_error(["simulate", *n, "--labels", str(tmp_path / "huge.txt")], "int64")
    assert_usage_error(["simulate", *n, "--labels", str(tmp_path / "huge_u64.npy")], "int64")
    assert_usage_error(["simulate", *n, "--plot", str(tmp_path / "no" / "x.png")], "does not exist")
    assert_usage_error(["simulate", *n, "--plot", str(tmp_path)], "is a folder")
    assert_usage_error(["simulate", "-n", "10", "-w", "100000"], str(MAX_WORLD_SIZE))
    assert_usage_error(["simulate", "-n", "1e9"], f"{MAX_ITEMS:,}")
    assert_usage_error(["simulate", "-n", "1000000000"], f"{MAX_ITEMS:,}")
    assert_usage_error(["simulate", "-n", str(10**30)], f"{MAX_ITEMS:,}")
    assert_usage_error(["simulate", "-n", "10", "--epochs", str(10**30)], f"{MAX_ITEMS:,}")
    assert_usage_error(["simulate", "-n", "10", "-b", str(10**30)], "batch_size")
    assert_usage_error(["simulate", "-n", "10", "--kwarg", f"seed={2**70}"], "seed")
    deep = tmp_path / "deep.py"
    deep.write_text(
        "import torch\nfrom torch.utils.data import DataLoader\nx = " + "-" * 200_000 + "1\n"
    )
    code, out, err = run(["lint", str(deep)])
    assert code == 1 and ": FS100 " in out and "nested too deeply" in out and not err


def test_large_runs_are_refused_before_any_work() -> None:
    # refused from the arguments alone: no sampler is built or iterated
    err = assert_usage_error(["simulate", "-n", str(MAX_ITEMS + 1)])
    assert "limit" in err
    err = assert_usage_error(["simulate", "-n", str(MAX_ITEMS // 2), "--epochs", "3"])
    assert "epochs" in err


# ------------------------------------------------------------------ the fuzz
_INTS = st.one_of(
    st.integers(-3, 40),
    st.sampled_from([0, 2**31, 2**63, 2**64 + 1, 10**30, -(10**30)]),
)
_TEXT = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
    max_size=12,
)
_VALUE = st.one_of(_INTS.map(str), _TEXT, st.sampled_from(["1e3", "1.5", "nan", "-inf", "{rank}"]))
_SAMPLERS = st.sampled_from(
    [
        "DistributedSampler",
        "DistributedEvalSampler",
        "WeightedSampler",
        "ClassBalancedSampler",
        "ClassBatchSampler",
        "LengthBucketBatchSampler",
        "TokenBudgetBatchSampler",
        "HardExampleSampler",
        "BatchShardSampler",
        "torch.utils.data:DistributedSampler",
        "torch.utils.data:RandomSampler",
        "torch.utils.data:SequentialSampler",
        ":",
        "os:path",
        "no.such.module:Thing",
        "fairshard:__version__",
    ]
)
_KWARGS = st.tuples(
    st.sampled_from(
        [
            "seed",
            "shuffle",
            "drop_last",
            "tail",
            "num_samples",
            "batch_size",
            "max_tokens",
            "replacement",
            "order",
            "layout",
            "alpha",
            "dataset",
            "bogus",
        ]
    ),
    _VALUE,
).map(lambda kv: f"{kv[0]}={kv[1]}")
_FILE_KINDS = st.sampled_from([".npy", ".txt", ".csv", ".csv:1", ".csv:label", ".json", ""])


def _valid_files(folder: Path) -> dict[str, str]:
    weights, lengths = folder / "w.npy", folder / "l.npy"
    if not weights.exists():
        np.save(weights, np.arange(60, dtype=np.float64) % 4)
        np.save(lengths, np.arange(60) % 9 + 1)
    return {"--weights": str(weights), "--lengths": str(lengths), "--labels": "demo:60"}


#: Legal starting points: each mutation below then breaks one or two things.
_BASES = [
    ["DistributedSampler", "-n", "60"],
    ["DistributedEvalSampler", "-n", "60"],
    ["torch.utils.data:DistributedSampler", "-n", "60"],
    ["WeightedSampler", "--weights", "@"],
    ["ClassBalancedSampler", "--labels", "@"],
    ["LengthBucketBatchSampler", "--lengths", "@", "--kwarg", "batch_size=4"],
    ["TokenBudgetBatchSampler", "--lengths", "@", "--kwarg", "max_tokens=20"],
    ["ClassBatchSampler", "--labels", "@", "--kwarg", "samples_per_class={0: 2, 1: 2}"],
]


@st.composite
def simulate_argv(draw: st.DrawFn, folder: Path) -> list[str]:
    files = _valid_files(folder)
    base = list(draw(st.sampled_from(_BASES)))
    argv = ["simulate"] + [files[base[i - 1]] if x == "@" else x for i, x in enumerate(base)]
    argv += ["--quiet", "-w", str(draw(st.integers(1, 6))), "-e", str(draw(st.integers(1, 3)))]
    for flag in ("--no-shuffle", "--drop-last", "--no-set-epoch", "--json", "--check"):
        if draw(st.booleans()):
            argv.append(flag)
    if draw(st.booleans()):
        argv += ["-b", str(draw(st.integers(1, 9)))] + ["--drop-last-batch"] * draw(st.booleans())
    for _ in range(draw(st.integers(0, 2))):  # the hostile part
        kind = draw(st.sampled_from(["flag", "kwarg", "file", "sampler", "plot", "demo"]))
        if kind == "flag":
            flag = draw(st.sampled_from(["-n", "-w", "-e", "-b", "--first", "--seed"]))
            argv += [flag, draw(_VALUE)]
        elif kind == "kwarg":
            argv += ["--kwarg", draw(_KWARGS)]
        elif kind == "file":
            suffix, _, column = draw(_FILE_KINDS).partition(":")
            path = folder / f"f{draw(st.integers(0, 10**9))}{suffix}"
            path.write_bytes(draw(st.binary(max_size=300)))
            flag = draw(st.sampled_from(["--labels", "--weights", "--lengths"]))
            argv += [flag, f"{path}:{column}" if column else str(path)]
        elif kind == "sampler":
            argv[1] = draw(_SAMPLERS)
        elif kind == "plot":
            name = draw(st.sampled_from(["p.png", "missing/p.png", ""]))
            argv += ["--plot", str(folder / name)]
        else:
            argv += ["--labels", draw(st.sampled_from(["demo:-1", "demo:x", "demo:", ""]))]
    return argv


_FUZZ = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@_FUZZ
@given(data=st.data())
def test_fuzz_simulate_never_raises(tmp_path: Path, data: st.DataObject) -> None:
    argv = data.draw(simulate_argv(tmp_path))
    try:
        code, _, err = run(argv)
    except SystemExit as exc:  # pragma: no cover - main must not exit
        pytest.fail(f"{argv}: SystemExit {exc.code}")
    assert code in (0, 1, 2), argv
    assert "Traceback" not in err, (argv, err)
    if code == 2:
        assert "error" in err, (argv, err)


@_FUZZ
@given(
    files=st.lists(
        st.tuples(
            st.sampled_from(["a.py", "b.pyw", "c", "d.txt", "sub/e.py"]), st.binary(max_size=400)
        ),
        min_size=1,
        max_size=4,
    ),
    torch_head=st.booleans(),
    fmt=st.sampled_from(["text", "json", "github", "sarif"]),
    extra=st.lists(
        st.sampled_from(
            [
                "--select",
                "--ignore",
                "--exclude",
                "--no-default-excludes",
                "FS101",
                "FS999",
                "*.py",
                ",",
            ]
        ),
        max_size=3,
    ),
)
def test_fuzz_lint_never_raises(
    tmp_path: Path, files: list[tuple[str, bytes]], torch_head: bool, fmt: str, extra: list[str]
) -> None:
    head = b"import torch\nfrom torch.utils.data import DataLoader\n" if torch_head else b""
    folder = tmp_path / f"run{abs(hash((tuple(files), torch_head, fmt, tuple(extra))))}"
    for name, data in files:
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(head + data)
    for argv in (
        ["lint", str(folder), "--format", fmt, *extra],
        ["lint", *(str(folder / n) for n, _ in files), "--format", fmt],
    ):
        code, out, err = run(argv)
        assert code in (0, 1, 2), argv
        assert "Traceback" not in err and "Traceback" not in out, (argv, err)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_fifo_inputs_are_named(tmp_path: Path) -> None:
    fifo = tmp_path / "labels.npy"
    os.mkfifo(fifo)
    assert_usage_error(["simulate", "-n", "4", "--labels", str(fifo), "-q"], "not a regular file")
    assert_usage_error(["lint", str(fifo)], "named pipe (FIFO)")
