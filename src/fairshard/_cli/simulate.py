"""``fairshard simulate``: every virtual rank's share of any sampler, in one process."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from .._diagnostics.label_files import load_labels
from .._diagnostics.simulate import simulate
from .._diagnostics.spec import kwargs_from
from .._errors import ConfigError, ConfigTypeError

__all__ = ["register", "run"]

_EPILOG = """\
examples:
  fairshard simulate -n 1003 -w 4                      # pads: 251 per rank, 1 duplicate
  fairshard simulate -n 1003 -w 4 --drop-last          # drops: 250 per rank, 3 left out
  fairshard simulate -n 50000 -w 2 --batch-size 64     # 391 batches per rank
  fairshard simulate torch.utils.data:DistributedSampler -n 100 --epochs 2 --no-set-epoch
  fairshard simulate DistributedEvalSampler -n 10 -w 4 --json
  fairshard simulate -n 10000 --labels demo --plot shares.png

exit codes: 0 ok, 1 --check found a problem, 2 usage error.
"""


def register(sub: Any) -> None:
    """Add the ``simulate`` sub-command."""
    p: argparse.ArgumentParser = sub.add_parser(
        "simulate",
        help="show every rank's share of a sampler, without launching processes",
        description=(
            "Build a sampler for virtual ranks 0..W-1 in one process, run it for some "
            "epochs and report per rank: len() vs items yielded, unique items, duplicates, "
            "coverage, pairwise overlap, first indices, class counts and order change "
            "between epochs."
        ),
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "sampler",
        nargs="?",
        default="DistributedSampler",
        help="a fairshard sampler name (default DistributedSampler) or module:Class, "
        "e.g. torch.utils.data:DistributedSampler",
    )
    p.add_argument(
        "--dataset-size",
        "-n",
        type=int,
        default=None,
        help="number of samples (fills the sampler's dataset argument)",
    )
    p.add_argument("--world-size", "-w", type=int, default=4, help="number of ranks (default 4)")
    p.add_argument("--epochs", "-e", type=int, default=1, help="epochs to run (default 1)")
    p.add_argument(
        "--kwarg",
        "-k",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="keyword argument for the sampler, a Python literal or range(n); repeatable",
    )
    p.add_argument("--seed", type=int, default=None, help="shortcut for --kwarg seed=S")
    p.add_argument("--no-shuffle", action="store_true", help="shortcut for --kwarg shuffle=False")
    p.add_argument(
        "--drop-last",
        action="store_true",
        help="shortcut for --kwarg drop_last=True (drop the tail instead of padding)",
    )
    p.add_argument(
        "--batch-size",
        "-b",
        type=int,
        default=None,
        help="wrap each rank's sampler in torch BatchSampler(batch_size)",
    )
    p.add_argument(
        "--drop-last-batch",
        action="store_true",
        help="BatchSampler drop_last=True (with --batch-size)",
    )
    p.add_argument(
        "--labels",
        default=None,
        metavar="SPEC",
        help="class labels: 'demo', a .npy/.txt file or file.csv:column",
    )
    p.add_argument(
        "--set-epoch",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="call set_epoch(e) before each epoch (default on; --no-set-epoch "
        "shows the forgotten-set_epoch symptom)",
    )
    p.add_argument("--first", type=int, default=8, help="first indices shown per rank (default 8)")
    p.add_argument("--json", action="store_true", help="print JSON (schema in docs/simulate.md)")
    p.add_argument(
        "--plot",
        default=None,
        metavar="PNG",
        help="write a PNG: index ownership, per-rank class mix, per-epoch change "
        "(needs pip install 'fairshard[plot]')",
    )
    p.add_argument(
        "--check",
        action="store_true",
        help="exit 1 when an invariant fails: overlap beyond declared padding, "
        "missing samples beyond declared drops, len() mismatch, unequal "
        "steps, identical order between epochs",
    )
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    p.set_defaults(func=run)


def _usage_error(message: str) -> int:
    print(f"fairshard simulate: error: {message}", file=sys.stderr)
    return 2


def run(args: argparse.Namespace) -> int:
    """Run the simulation described by ``args``; print it; return the exit code."""
    try:
        kwargs = kwargs_from(args.kwarg)
        if args.seed is not None:
            kwargs["seed"] = args.seed
        if args.no_shuffle:
            kwargs["shuffle"] = False
        if args.drop_last:
            kwargs["drop_last"] = True
        labels = None
        if args.labels is not None:
            labels = load_labels(args.labels, args.dataset_size)
        report = simulate(
            args.sampler,
            args.world_size,
            epochs=args.epochs,
            dataset_size=args.dataset_size,
            first=args.first,
            labels=labels,
            set_epoch=args.set_epoch,
            batch_size=args.batch_size,
            drop_last_batch=args.drop_last_batch,
            kwargs=kwargs,
            progress=False if args.quiet else None,
        )
        if args.plot is not None:
            from .._diagnostics.plot import plot_report

            plot_report(report, args.plot, labels=labels)
    except (ConfigError, ConfigTypeError) as exc:
        return _usage_error(str(exc))
    except ImportError as exc:
        return _usage_error(str(exc))
    print(json.dumps(report.to_dict(), indent=2) if args.json else report.to_text())
    return 1 if args.check and report.problems else 0
