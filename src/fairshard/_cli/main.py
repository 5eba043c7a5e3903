"""The ``fairshard`` command line: one sub-command per module.

Each sub-command lives in its own module exposing ``register(subparsers)``,
which adds its parser and sets ``func`` (``argv namespace -> exit code``).
:func:`main` is the front door of ``fairshard`` (the console script) and of
``python -m fairshard``: ``lint`` goes straight to the linter's own command
line (``fairshard_lint.cli``, standard library only), before any sub-command
module, and so torch, is imported.

Exit codes: 0 success, 1 a check or the linter found something, 2 usage
error (bad arguments, a missing file, a sampler that cannot be built).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import warnings
from collections.abc import Iterator, Sequence
from typing import Any

from fairshard_lint.cli import main as lint_main

from .._version import __version__

__all__ = ["build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    """The top-level parser with every sub-command registered."""
    from . import demo, lint, simulate  # simulate imports torch: not before it is needed

    parser = argparse.ArgumentParser(
        prog="fairshard",
        description=(
            "Distributed samplers that stay correct on many processes: simulate every "
            "rank's share, lint training scripts for sampler pitfalls, run the demo."
        ),
    )
    parser.add_argument("--version", action="version", version=f"fairshard {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module in (simulate, lint, demo):
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit code (0 ok, 1 check failed or findings, 2 usage error)."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    if arguments[:1] == ["lint"]:
        # NOTE: the parser ``build_parser`` mounts under ``lint`` is this same program's
        # (``_cli.lint``), so both paths take the same options and print the same lines;
        # this one never imports torch (seconds of start-up for a command that parses files).
        return lint_main(arguments[1:], prog="fairshard lint")
    parser = build_parser()
    try:
        args = parser.parse_args(arguments)
    except SystemExit as exc:  # argparse: 0 after --help/--version, 2 on bad usage
        return exc.code if isinstance(exc.code, int) else 2
    try:
        with _warnings_as_cli_lines(f"fairshard {args.command}"):
            code: int = args.func(args)
        sys.stdout.flush()
    except BrokenPipeError:  # output piped into `head` and closed early: not an error
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    return code


@contextlib.contextmanager
def _warnings_as_cli_lines(prog: str) -> Iterator[None]:
    """Show warnings as ``PROG: warning: Category: message`` lines on stderr.

    A command-line user has no line of their own to point at: Python's
    default ``file:line:`` prefix would name a module inside fairshard.
    """

    def show(
        message: Warning | str,
        category: type[Warning],
        filename: str,
        lineno: int,
        file: Any = None,
        line: str | None = None,
    ) -> None:
        print(f"{prog}: warning: {category.__name__}: {message}", file=sys.stderr)

    with warnings.catch_warnings():
        warnings.showwarning = show
        yield


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
