"""``fairshard demo``: a real torchrun job on long-tailed digits (``make demo``).

Steps: build the long-tailed digits split (scikit-learn's bundled copy, no
network) and save it; launch one torchrun job on ``--ranks`` processes that
trains a small MLP with DDP once per method, checking every epoch that the
ranks' shares are disjoint and cover the sampler's plan, and checkpointing
mid-way through the last epoch; launch a second torchrun job on
``--resume-ranks`` processes that finishes that epoch from the checkpoint;
then write ``summary.json``, PNG plots and print a table.

Exit code 0 when every check passed, 1 when one failed, 2 on a usage error
or a missing ``[demo]`` extra.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import time
from pathlib import Path
from typing import Any

__all__ = ["register", "run"]

_EXTRAS = {"sklearn": "scikit-learn", "matplotlib": "matplotlib"}


def register(sub: Any) -> None:
    """Add the ``demo`` sub-command."""
    p: argparse.ArgumentParser = sub.add_parser(
        "demo",
        help="train on long-tailed digits under torchrun and check every rank's share",
        description=(
            "Launch a real multi-process job (torchrun, DDP; gloo on CPU, nccl with CUDA) "
            "on a long-tailed digits dataset; compare sampling methods, verify every epoch "
            "that the ranks' shares are disjoint and complete, and resume a mid-epoch "
            "checkpoint on fewer ranks. Needs: pip install 'fairshard[demo]'."
        ),
    )
    p.add_argument("--ranks", type=int, default=4, help="processes to launch (default 4)")
    p.add_argument(
        "--resume-ranks",
        type=int,
        default=None,
        help="processes for the resume launch (default: ranks - 1, at least 1; 0 skips the resume)",
    )
    p.add_argument("--epochs", type=int, default=20, help="training epochs (default 20)")
    p.add_argument(
        "--methods",
        default=None,
        help="comma-separated: plain, balanced, hard (default: every one this fairshard provides)",
    )
    p.add_argument(
        "--output", default="fairshard-demo", help="output folder (default ./fairshard-demo)"
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the split, model and samplers")
    p.add_argument(
        "--timeout",
        type=float,
        default=600.0,
        help="seconds each torchrun launch may take (default 600)",
    )
    p.add_argument("--quiet", action="store_true", help="no progress display")
    p.set_defaults(func=run)


def _missing_extras() -> list[str]:
    return [pip for module, pip in _EXTRAS.items() if importlib.util.find_spec(module) is None]


def _usage(args: argparse.Namespace) -> str | None:
    if args.ranks < 1:
        return f"--ranks must be >= 1, got --ranks {args.ranks}"
    if args.resume_ranks is not None and args.resume_ranks < 0:
        return f"--resume-ranks must be >= 0, got --resume-ranks {args.resume_ranks}"
    if args.epochs < 1:
        return f"--epochs must be >= 1, got --epochs {args.epochs}"
    if args.timeout <= 0:
        return f"--timeout must be > 0, got --timeout {args.timeout}"
    return None


def run(args: argparse.Namespace) -> int:
    """Run the demo described by ``args``; return the exit code."""
    missing = _missing_extras()
    if missing:
        print(
            f"fairshard demo needs {' and '.join(missing)}, not installed here. "
            "Install the demo extra: pip install 'fairshard[demo]'",
            file=sys.stderr,
        )
        return 2
    from fairshard_demo.methods import METHODS, parse_methods, unavailable

    problem = _usage(args)
    requested = args.methods
    if requested is None:
        for name in METHODS:
            reason = unavailable(name)
            if reason and not args.quiet:
                print(f"fairshard demo: skipping {name!r}: {reason}", file=sys.stderr)
        requested = ",".join(m for m in METHODS if unavailable(m) is None)
    try:
        methods = parse_methods(requested)
    except ValueError as exc:
        problem = problem or str(exc)
    if problem:
        print(f"fairshard demo: {problem}", file=sys.stderr)
        return 2
    return _run(args, methods)


def _run(args: argparse.Namespace, methods: list[str]) -> int:
    from fairshard_demo.data import load_long_tailed_digits
    from fairshard_demo.launch import LaunchError, LaunchLog, run_torchrun, torchrun_command
    from fairshard_demo.report import build_summary, plot, table

    started = time.monotonic()
    out = Path(args.output)
    (out / "checkpoints").mkdir(parents=True, exist_ok=True)
    for stale in ("train.json", "resume.json", "summary.json"):
        (out / stale).unlink(missing_ok=True)
    for stale_ckpt in (out / "checkpoints").glob("*.pt"):
        stale_ckpt.unlink()
    split = load_long_tailed_digits(seed=args.seed)
    data = out / "digits_long_tailed.npz"
    split.save(data)
    resume_ranks = max(1, args.ranks - 1) if args.resume_ranks is None else args.resume_ranks
    progress = LaunchLog(quiet=args.quiet)
    script = [
        "--data",
        str(data),
        "--output",
        str(out),
        "--methods",
        ",".join(methods),
        "--epochs",
        str(args.epochs),
        "--seed",
        str(args.seed),
    ]
    try:
        progress.note(f"training on {args.ranks} ranks: {', '.join(methods)}")
        run_torchrun(torchrun_command(args.ranks, script), progress, timeout=args.timeout)
        train = json.loads((out / "train.json").read_text())
        resume = None
        resumable = [m for m in methods if train["methods"][m]["checkpointed"]]
        if resume_ranks and resumable:
            progress.note(f"resuming the checkpointed epoch on {resume_ranks} ranks")
            resume_args = [*script, "--resume"]
            resume_args[resume_args.index("--methods") + 1] = ",".join(resumable)
            run_torchrun(
                torchrun_command(resume_ranks, resume_args), progress, timeout=args.timeout
            )
            resume = json.loads((out / "resume.json").read_text())
    except LaunchError as exc:
        print(f"fairshard demo: {exc}", file=sys.stderr)
        return 1
    config = {
        "ranks": args.ranks,
        "resume_ranks": resume_ranks,
        "epochs": args.epochs,
        "seed": args.seed,
        "methods": methods,
        "train_class_counts": split.class_counts(),
        "test_per_class": int(len(split.test_y) // 10),
    }
    summary = build_summary(train, resume, config)
    summary["plots"] = [p.name for p in plot(summary, out)]
    summary["wall_time_s"] = round(time.monotonic() - started, 2)
    (out / "summary.json").write_text(json.dumps(summary, indent=2))
    print(table(summary))
    print(
        f"\nwrote {out / 'summary.json'} and {', '.join(summary['plots'])} "
        f"in {summary['wall_time_s']:.0f}s"
    )
    return 0 if summary["ok"] else 1
