"""The lint rules: one small function per rule, registered with its code and docs.

Each rule reads the syntax tree (never runs the script) and yields
``(node, message)`` pairs. Codes are stable: a rule keeps its code forever
and a retired code is never reused.

NOTE (layout): the checks live by concern — ``sampler_rules`` (epochs,
seeds, RNG), ``order_rules`` (weighting, shuffling), ``loader_rules``
(DataLoader arguments, environment), ``split_rules`` (evaluation, splits,
ranks, batch samplers) and ``parallel_rules`` (model parallelism,
accelerate) — share one per-file analysis (``flow``: where
samplers and loaders go; ``loops``: epoch loops), and register themselves in
``rulebook``; this module imports them all and orders the table by code, so
the engine runs and reports rules in code order.
"""

from __future__ import annotations

from . import loader_rules, order_rules, parallel_rules, sampler_rules, split_rules  # noqa: F401  (imported for their registrations)
from .rulebook import RULEBOOK, Rule

__all__ = ["DEFAULT_CODES", "RULES", "Rule"]

#: Every rule by code, in code order.
RULES: dict[str, Rule] = dict(sorted(RULEBOOK.items()))
#: The codes that run when no codes are selected (``Rule.default``; see ``rulebook``).
DEFAULT_CODES: frozenset[str] = frozenset(code for code, rule in RULES.items() if rule.default)
