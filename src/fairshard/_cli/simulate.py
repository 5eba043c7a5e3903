"""``fairshard simulate``: every virtual rank's share of any sampler, in one process."""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

from .._diagnostics.label_files import load_labels, load_lengths, load_weights
from .._diagnostics.mesh import check_mesh, parse_mesh, sampler_world
from .._diagnostics.simulate import MAX_ITEMS, MAX_WORLD_SIZE, simulate
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
  fairshard simulate WeightedSampler -w 4 --weights w.npy --epochs 2
  fairshard simulate LengthBucketBatchSampler -w 2 --lengths lengths.csv:tokens \\
      --kwarg batch_size=32
  fairshard simulate -n 1000 -w 4 --kwarg 'seed={rank}' --check   # a rank-dependent seed
  fairshard simulate -n 1000 --mesh dp=2,tp=2 --check   # 2 data-parallel ranks x 2 tp peers
  fairshard simulate -n 1000 --mesh dp=2,tp=2 --group world --check   # exit 1: tp peers differ

--kwarg values may hold {rank}, replaced by each virtual rank (seed={rank},
seed=42+{rank}), to reproduce per-rank mistakes. With --mesh, {rank} is the
rank in the sampler's world (--group).
""" + (
    f"limits: at most {MAX_WORLD_SIZE} ranks and {MAX_ITEMS:,} items (dataset x epochs), "
    "refused up front.\nexit codes: 0 ok, 1 --check found a problem, 2 usage error.\n"
)


def _count(text: str) -> int:
    """An integer option that also takes ``1e6`` and ``1_000_000`` (exact values only)."""
    cleaned = text.strip().replace("_", "")
    try:
        return int(cleaned)
    except ValueError:
        pass
    try:
        value = float(cleaned)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid count {text!r}; give a whole number") from None
    if not value.is_integer():
        raise argparse.ArgumentTypeError(f"invalid count {text!r}; give a whole number")
    return int(value)


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
        type=_count,
        default=None,
        help="number of samples (fills the sampler's dataset argument)",
    )
    p.add_argument(
        "--world-size",
        "-w",
        type=_count,
        default=None,
        help="number of ranks (default 4; with --mesh: the size of --group)",
    )
    p.add_argument(
        "--mesh",
        default=None,
        metavar="DIMS",
        help="a device mesh, e.g. dp=2,tp=2 or dp_replicate=2,dp_shard=2,tp=2: show each "
        "global rank's share; --check also fails when model-parallel peers (tp, cp, pp, ...) "
        "differ or data-parallel ranks share data",
    )
    p.add_argument(
        "--group",
        default=None,
        metavar="DIMS",
        help="with --mesh: the dims the sampler's world spans, e.g. dp_replicate,dp_shard "
        "(default: every dim not named like a model-parallel one), or 'world' for a sampler "
        "built for the whole job",
    )
    p.add_argument("--epochs", "-e", type=_count, default=1, help="epochs to run (default 1)")
    p.add_argument(
        "--kwarg",
        "-k",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="keyword argument for the sampler: a Python literal or range(n), {rank} for a "
        "per-rank value (seed={rank}); repeatable",
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
        type=_count,
        default=None,
        help="wrap each rank's sampler in torch BatchSampler(batch_size)",
    )
    p.add_argument(
        "--drop-last-batch",
        action="store_true",
        help="BatchSampler drop_last=True (needs --batch-size)",
    )
    p.add_argument(
        "--labels",
        default=None,
        metavar="SPEC",
        help="class labels: 'demo', a .npy/.txt file or file.csv:column",
    )
    p.add_argument(
        "--weights",
        default=None,
        metavar="FILE",
        help="per-sample weights (fills the sampler's weights): a .npy/.txt file or "
        "file.csv:column",
    )
    p.add_argument(
        "--lengths",
        default=None,
        metavar="FILE",
        help="per-sample lengths (fills the sampler's lengths): a .npy/.txt file or "
        "file.csv:column",
    )
    p.add_argument(
        "--set-epoch",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="call set_epoch(e) before each epoch (default on; --no-set-epoch "
        "shows the forgotten-set_epoch symptom)",
    )
    p.add_argument(
        "--first", type=_count, default=8, help="first indices shown per rank (default 8)"
    )
    p.add_argument("--json", action="store_true", help="print JSON (schema in docs/simulate.md)")
    p.add_argument(
        "--plot",
        default=None,
        metavar="PNG",
        help="write a PNG: index ownership with a rank legend, missing samples, per-rank "
        "class mix, per-epoch change (needs pip install 'fairshard[plot]')",
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


def _check_plot_path(text: str) -> None:
    """Refuse a --plot path that cannot be written, before simulating anything."""
    path = Path(text)
    if path.is_dir():
        raise ConfigError(f"--plot {text!r} is a folder; give a file name, e.g. {path}/shares.png")
    parent = path.parent
    if not parent.is_dir():
        raise ConfigError(
            f"--plot {text!r}: the folder {str(parent)!r} does not exist; create it first"
        )


def _build_report(args: argparse.Namespace) -> Any:
    if args.drop_last_batch and args.batch_size is None:
        raise ConfigError(
            "--drop-last-batch needs --batch-size (it is the drop_last of the BatchSampler "
            "that --batch-size adds)"
        )
    if args.plot is not None:
        _check_plot_path(args.plot)
    kwargs = kwargs_from(args.kwarg)
    if args.seed is not None:
        kwargs["seed"] = args.seed
    if args.no_shuffle:
        kwargs["shuffle"] = False
    if args.drop_last:
        kwargs["drop_last"] = True
    world_size = 4 if args.world_size is None else args.world_size
    if args.mesh is not None:
        mesh = parse_mesh(args.mesh)
        dims = sampler_world(mesh, args.group)
        world_size = math.prod(mesh[d] for d in dims)
        if args.world_size is not None and args.world_size != world_size:
            raise ConfigError(
                f"--world-size {args.world_size} conflicts with --mesh {args.mesh!r}, whose "
                f"sampler world ({', '.join(dims)}) has {world_size} ranks; drop --world-size"
            )
    elif args.group is not None:
        raise ConfigError("--group needs --mesh (it names dims of the mesh)")
    labels = None if args.labels is None else load_labels(args.labels, args.dataset_size)
    weights = None if args.weights is None else load_weights(args.weights, args.dataset_size)
    lengths = None if args.lengths is None else load_lengths(args.lengths, args.dataset_size)
    report = simulate(
        args.sampler,
        world_size,
        epochs=args.epochs,
        dataset_size=args.dataset_size,
        first=args.first,
        labels=labels,
        set_epoch=args.set_epoch,
        batch_size=args.batch_size,
        drop_last_batch=args.drop_last_batch,
        kwargs=kwargs,
        progress=False if args.quiet else None,
        weights=weights,
        lengths=lengths,
    )
    return report


def run(args: argparse.Namespace) -> int:
    """Run the simulation described by ``args``; print it; return the exit code."""
    try:
        report = _build_report(args)
        mesh = None
        if args.mesh is not None:
            dims = parse_mesh(args.mesh)
            mesh = check_mesh(dims, sampler_world(dims, args.group), report.shares[0], args.first)
        if args.plot is not None:
            from .._diagnostics.plot import plot_simulation

            plot_simulation(report, args.plot)
    except (ConfigError, ConfigTypeError, ImportError) as exc:
        return _usage_error(str(exc))
    except OSError as exc:
        return _usage_error(f"cannot write {args.plot!r}: {exc.strerror or exc}")
    except MemoryError:
        return _usage_error("out of memory; simulate a smaller dataset, fewer ranks or epochs")
    except Exception as exc:
        # NOTE: the sampler is the user's code (any module:Class with any --kwarg), so its
        # own exceptions are a usage problem to report, not a crash of the CLI.
        return _usage_error(f"the sampler failed: {type(exc).__name__}: {exc}")
    if args.json:
        data = report.to_dict()
        if mesh is not None:
            data["mesh"] = mesh.to_dict()
        print(json.dumps(data, indent=2))
    else:
        print(report.to_text() if mesh is None else f"{report.to_text()}\n\n{mesh.to_text()}")
    failed = report.problems or (mesh is not None and mesh.problems)
    return 1 if args.check and failed else 0
