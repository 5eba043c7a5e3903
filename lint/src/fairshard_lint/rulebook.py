"""The rulebook: the ``Rule`` record and the decorator that enters a check into it.

Kept apart from the rules themselves so that every rule module can register
into one table without importing the others; ``rules`` assembles the table.

NOTE (default and opt-in rules): a rule whose findings on held-out foreign
code were mostly wrong is registered with ``default=False``: it runs only
when selected (``--select ALL``, ``--select FS103`` or ``--extend-select
FS103``). The measured verdicts behind each choice are on
docs/lint-measurement.md ("Default and opt-in rules"); a rule earns its way
back into the default set by its held-out precision, not by its fixtures.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from .names import Module

__all__ = ["RULEBOOK", "Check", "Rule", "rule"]

Check = Callable[[Module], Iterator[tuple[ast.AST, str]]]


@dataclass(frozen=True)
class Rule:
    """A lint rule: stable code, short name, what goes wrong, the fix, the check."""

    code: str
    name: str
    problem: str
    fix: str
    check: Check
    #: Runs when no codes are selected; opt-in rules (``False``) run only when selected.
    default: bool = True


#: Every registered rule by code, in the order the rule modules were imported.
RULEBOOK: dict[str, Rule] = {}


def rule(
    code: str, name: str, problem: str, fix: str, *, default: bool = True
) -> Callable[[Check], Check]:
    """Register the decorated check as rule ``code``; the check itself is unchanged.

    ``default=False`` makes the rule opt-in (see the module's note).
    """

    def register(check: Check) -> Check:
        RULEBOOK[code] = Rule(code, name, problem, fix, check, default)
        return check

    return register
