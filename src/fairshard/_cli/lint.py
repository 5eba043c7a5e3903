"""``fairshard lint``: check training scripts for distributed-sampler pitfalls."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .._diagnostics.lint import lint_paths
from .._diagnostics.lint.report import format_json, format_rules, format_text
from .._errors import ConfigError

__all__ = ["register", "run"]

_EPILOG = """\
examples:
  fairshard lint train.py                  # one line per finding
  fairshard lint scripts/ --format json
  fairshard lint train.py --ignore FS108
  fairshard lint --list-rules

silence one finding with a comment on its line: # noqa: FS104 (or a bare # noqa).
exit codes: 0 no findings, 1 findings, 2 usage error.
"""


def _codes(text: str) -> list[str]:
    return [c for c in text.replace(" ", ",").split(",") if c]


def register(sub: Any) -> None:
    """Add the ``lint`` sub-command."""
    p: argparse.ArgumentParser = sub.add_parser(
        "lint",
        help="statically check training scripts for sampler pitfalls (never runs them)",
        description=(
            "Parse Python files (never import or run them) and report distributed "
            "data-loading pitfalls as path:line:col: CODE message lines."
        ),
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("paths", nargs="*", metavar="PATH", help=".py files or folders (recursed)")
    p.add_argument(
        "--format", choices=("text", "json"), default="text", help="output format (default text)"
    )
    p.add_argument(
        "--select",
        type=_codes,
        default=None,
        metavar="CODES",
        help="only these rule codes, comma-separated",
    )
    p.add_argument(
        "--ignore",
        type=_codes,
        default=None,
        metavar="CODES",
        help="skip these rule codes, comma-separated",
    )
    p.add_argument(
        "--list-rules", action="store_true", help="print every rule: code, what goes wrong, the fix"
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Lint ``args.paths``; print findings; 1 when there are any, 2 on usage errors."""
    if args.list_rules:
        print(format_rules())
        return 0
    if not args.paths:
        print("fairshard lint: error: give at least one PATH (or --list-rules)", file=sys.stderr)
        return 2
    try:
        findings, files = lint_paths(args.paths, select=args.select, ignore=args.ignore)
    except ConfigError as exc:
        print(f"fairshard lint: error: {exc}", file=sys.stderr)
        return 2
    if args.format == "json":
        print(format_json(findings, files))
    elif findings:
        print(format_text(findings))
    return 1 if findings else 0
