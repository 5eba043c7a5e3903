"""The linter's command line: ``fairshard-lint PATH...``, also run as ``fairshard lint``.

One implementation: :func:`add_arguments` and :func:`run` build and run the
``lint`` sub-command of ``fairshard`` too, so both commands take the same
options and print the same findings. Exit codes: 0 no findings, 1 findings,
2 usage error.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from ._errors import LintConfigError
from ._version import __version__
from .engine import lint_paths
from .files import DEFAULT_EXCLUDES
from .report import FORMATS, format_findings, format_rules
from .rules import DEFAULT_CODES, RULES

__all__ = ["DESCRIPTION", "EPILOG", "add_arguments", "build_parser", "main", "run"]

DESCRIPTION = (
    "Parse Python files (never import or run them) and report distributed "
    "data-loading pitfalls as path:line:col: CODE message lines."
)

EPILOG = f"""\
examples:
  fairshard lint train.py                  # one line per finding
  fairshard lint . --format github         # annotations in a GitHub Actions job
  fairshard lint src/ --format sarif > fairshard.sarif
  fairshard lint scripts/ --format json --exclude 'legacy/*'
  fairshard lint train.py --ignore FS108
  fairshard lint train.py --select ALL     # the opt-in rules too
  fairshard lint --list-rules

rules: the opt-in ones ({", ".join(sorted(set(RULES) - DEFAULT_CODES))}, marked in
--list-rules), whose findings on held-out third-party code were seldom right
(docs/lint-measurement.md), run only with --select ALL or --extend-select CODES;
the others run by default.

(fairshard-lint is the same program.)

what is linted: .py files under folders (skipping {", ".join(DEFAULT_EXCLUDES)}
unless --no-default-excludes, and vendored or archived trees unless --include-vendored)
and files named explicitly; only files that use
PyTorch data loading produce findings; other files named explicitly are skipped
with a note on stderr. A folder's files are linted as one project: a loader
built in one of its modules and used in another is followed.

silence one finding with a comment on its line: # noqa: FS104 (or a bare # noqa).
exit codes: 0 no findings, 1 findings, 2 usage error.
"""


def _codes(text: str) -> list[str]:
    return [c for c in text.replace(" ", ",").split(",") if c]


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Add the linter's arguments and options to ``p`` (and ``run`` as its ``func``)."""
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
        help="only these rule codes, comma-separated (default: the default rules; ALL: "
        "every rule, the opt-in ones included)",
    )
    p.add_argument(
        "--extend-select",
        type=_codes,
        default=None,
        metavar="CODES",
        help="also these rule codes, comma-separated (turns opt-in rules on: "
        "--extend-select FS103)",
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
        "--include-vendored",
        action="store_true",
        help="also lint vendored trees under folders (third_party/, vendor/, copies of "
        "known packages such as mmcv or detectron2, nested distributions with their own "
        "setup.py and licence) and archived folders (archive/, old/, legacy/... that no "
        "shipped line runs and nothing outside imports); skipped by default",
    )
    p.add_argument(
        "--list-rules", action="store_true", help="print every rule: code, what goes wrong, the fix"
    )
    p.set_defaults(func=run, lint_prog=p.prog)


def run(args: argparse.Namespace) -> int:
    """Lint ``args.paths``; print findings; 1 when there are any, 2 on usage errors."""
    prog = getattr(args, "lint_prog", "fairshard-lint")
    if args.list_rules:
        print(format_rules())
        return 0
    if not args.paths:
        print(f"{prog}: error: give at least one PATH (or --list-rules)", file=sys.stderr)
        return 2
    excludes = [] if args.no_default_excludes else list(DEFAULT_EXCLUDES)
    excludes += [glob for text in args.exclude for glob in _codes(text)]
    skipped: list[str] = []
    try:
        findings, files = lint_paths(
            args.paths,
            select=args.select,
            ignore=args.ignore,
            extend_select=args.extend_select,
            excludes=excludes,
            skipped=skipped,
            include_vendored=args.include_vendored,
        )
    except LintConfigError as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return 2
    for note in skipped:
        print(f"{prog}: {note}", file=sys.stderr)
    output = format_findings(args.format, findings, files)
    if output:
        print(output)
    return 1 if findings else 0


def build_parser(prog: str = "fairshard-lint") -> argparse.ArgumentParser:
    """The stand-alone parser (``fairshard-lint``)."""
    parser = argparse.ArgumentParser(
        prog=prog,
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"fairshard-lint {__version__}")
    add_arguments(parser)
    return parser


def main(argv: Sequence[str] | None = None, prog: str = "fairshard-lint") -> int:
    """Run the linter's command line; returns the exit code (0, 1 findings, 2 usage error)."""
    parser = build_parser(prog)
    try:
        args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    except SystemExit as exc:  # argparse: 0 after --help/--version, 2 on bad usage
        return exc.code if isinstance(exc.code, int) else 2
    try:
        code = run(args)
        sys.stdout.flush()
    except BrokenPipeError:  # output piped into `head` and closed early: not an error
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    return code
