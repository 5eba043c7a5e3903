"""``fairshard-lint``: a static checker for distributed data-loading pitfalls in training scripts.

AST only: scripts are parsed, never imported or run, and the linter imports
nothing beyond the standard library (no torch, no fairshard), so it starts
in tens of milliseconds and installs in a pre-commit environment without
torch. ``rules`` holds the table of rules, one small check per rule code
(written in ``sampler_rules``, ``order_rules``, ``loader_rules`` and
``split_rules``, entered in ``rulebook``), ``engine`` runs them with
``# noqa`` handling, ``project`` follows imports between the files of one
linted tree, ``report`` formats the findings and ``cli`` is the command
line (``fairshard-lint`` and ``fairshard lint`` are the same program).
"""

from ._errors import LintConfigError
from ._version import __version__
from .engine import ALL, PARSE_ERROR, Finding, lint_paths, lint_source
from .rules import DEFAULT_CODES, RULES, Rule

__all__ = [
    "ALL",
    "DEFAULT_CODES",
    "PARSE_ERROR",
    "RULES",
    "Finding",
    "LintConfigError",
    "Rule",
    "__version__",
    "lint_paths",
    "lint_source",
]
