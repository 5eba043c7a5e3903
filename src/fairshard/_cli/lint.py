"""``fairshard lint``: check training scripts for distributed-sampler pitfalls."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .._diagnostics.lint import lint_paths
from .._diagnostics.lint.files import DEFAULT_EXCLUDES
from .._diagnostics.lint.report import FORMATS, format_findings, format_rules
from .._errors import ConfigError

__all__ = ["register", "run"]

_EPILOG = f"""\
examples:
  fairshard lint train.py                  # one line per finding
  fairshard lint . --format github         # annotations in a GitHub Actions job
  fairshard lint src/ --format sarif > fairshard.sarif
  fairshard lint scripts/ --format json --exclude 'legacy/*'
  fairshard lint train.py --ignore FS108
  fairshard lint --list-rules

what is linted: .py files under folders (skipping {", ".join(DEFAULT_EXCLUDES)}
unless --no-default-excludes) and files named explicitly; only files that use
PyTorch data loading produce findings; other files named explicitly are skipped
with a note on stderr.

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
        "--format",
        choices=FORMATS,
        default="text",
        help="output: text lines, json, github (Actions annotations) or sarif (default text)",
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
        "--exclude",
        action="append",
        default=[],
        metavar="GLOBS",
        help="skip files and folders matching these globs while walking folders "
        "(comma-separated, repeatable; added to the defaults)",
    )
    p.add_argument(
        "--no-default-excludes",
        action="store_true",
        help="also lint test files, virtual environments and build output under folders",
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
    excludes = [] if args.no_default_excludes else list(DEFAULT_EXCLUDES)
    excludes += [glob for text in args.exclude for glob in _codes(text)]
    skipped: list[str] = []
    try:
        findings, files = lint_paths(
            args.paths,
            select=args.select,
            ignore=args.ignore,
            excludes=excludes,
            skipped=skipped,
        )
    except ConfigError as exc:
        print(f"fairshard lint: error: {exc}", file=sys.stderr)
        return 2
    for note in skipped:
        print(f"fairshard lint: {note}", file=sys.stderr)
    output = format_findings(args.format, findings, files)
    if output:
        print(output)
    return 1 if findings else 0
