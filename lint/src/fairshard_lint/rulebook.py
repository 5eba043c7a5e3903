"""The rulebook: the ``Rule`` record and the decorator that enters a check into it.

Kept apart from the rules themselves so that every rule module can register
into one table without importing the others; ``rules`` assembles the table.
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


#: Every registered rule by code, in the order the rule modules were imported.
RULEBOOK: dict[str, Rule] = {}


def rule(code: str, name: str, problem: str, fix: str) -> Callable[[Check], Check]:
    """Register the decorated check as rule ``code``; the check itself is unchanged."""

    def register(check: Check) -> Check:
        RULEBOOK[code] = Rule(code, name, problem, fix, check)
        return check

    return register
