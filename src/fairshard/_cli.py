"""The ``fairshard`` command line: one sub-command per module.

Each sub-command lives in its own module exposing ``register(subparsers)``,
which adds its parser and sets ``func`` (``argv namespace -> exit code``).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from . import __version__, _cli_demo, _cli_simulate

__all__ = ["build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    """The top-level parser with every sub-command registered."""
    parser = argparse.ArgumentParser(
        prog="fairshard",
        description="Distributed samplers that stay correct on many processes.",
    )
    parser.add_argument("--version", action="version", version=f"fairshard {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module in (_cli_simulate, _cli_demo):
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit code (0 ok, 1 check failed, 2 usage error)."""
    parser = build_parser()
    args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    code: int = args.func(args)
    return code


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
