"""``fairshard lint``: the linter's own command line (``fairshard_lint.cli``) as a sub-command.

The linter lives in its own stdlib-only package, ``fairshard_lint``, so that
it runs without torch (and ``fairshard._cli.main.main`` sends ``lint``
straight to it, before anything imports torch); this module only mounts the
same parser and ``run`` under ``fairshard`` (its ``--help`` and the list of
commands).
"""

from __future__ import annotations

import argparse
from typing import Any

from fairshard_lint.cli import DESCRIPTION, EPILOG, add_arguments

__all__ = ["register"]


def register(sub: Any) -> None:
    """Add the ``lint`` sub-command (the linter's own arguments and ``run``)."""
    p: argparse.ArgumentParser = sub.add_parser(
        "lint",
        help="statically check training scripts for sampler pitfalls (never runs them)",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_arguments(p)
