"""A static checker for distributed data-loading pitfalls in training scripts.

AST only: scripts are parsed, never imported or run. ``rules`` holds the
table of rules, one small check per rule code (written in ``sampler_rules``
and ``loader_rules``), ``engine`` runs them with ``# noqa`` handling,
``report`` formats the findings.
"""

from .engine import PARSE_ERROR, Finding, lint_paths, lint_source
from .rules import RULES, Rule

__all__ = ["PARSE_ERROR", "RULES", "Finding", "Rule", "lint_paths", "lint_source"]
