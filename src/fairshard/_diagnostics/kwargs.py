"""``--kwarg key=value`` values for the simulator: literals, ``range(n)``, ``{rank}``.

A value is a Python literal (``3``, ``0.5``, ``[1, 2]``, ``'text'``),
``range(n)``, a bare word (``order=torch``), or a template holding
``{rank}`` (``seed={rank}``, ``seed=42+{rank}``) evaluated per virtual rank
with integer arithmetic only -- nothing is ever executed.
"""

from __future__ import annotations

import ast
import operator
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from .._errors import ConfigError

__all__ = ["RANK_PLACEHOLDER", "RankTemplate", "kwargs_from", "parse_kwarg"]

_RANGE = re.compile(r"^range\(\s*(\d+)\s*\)$")
_WORD = re.compile(r"^[A-Za-z_][A-Za-z0-9_.\-]*$")


#: Placeholder for the virtual rank in ``--kwarg`` values: ``seed={rank}``.
RANK_PLACEHOLDER = "{rank}"

_ARITHMETIC: dict[type[ast.operator], Callable[[int, int], int]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
}


def _evaluate(node: ast.AST) -> Any:
    """A literal, or integer arithmetic (+ - * // %) over literals; nothing else."""
    if isinstance(node, ast.BinOp) and type(node.op) in _ARITHMETIC:
        left, right = _evaluate(node.left), _evaluate(node.right)
        if not all(isinstance(v, int) and abs(v) < 2**63 for v in (left, right)):
            raise ValueError("arithmetic only on integers below 2**63")
        return _ARITHMETIC[type(node.op)](left, right)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        value = _evaluate(node.operand)
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.List | ast.Tuple):
        items = [_evaluate(e) for e in node.elts]
        return items if isinstance(node, ast.List) else tuple(items)
    return ast.literal_eval(node)


@dataclass(frozen=True)
class RankTemplate:
    """A ``--kwarg`` value that differs per virtual rank: ``seed={rank}``, ``seed=42+{rank}``.

    Lets the simulator reproduce the classic mistakes (a rank-dependent
    seed) that a launcher would create on real ranks.

    Example:
        >>> RankTemplate("seed", "42 + {rank}").value(3)
        45
    """

    key: str
    text: str

    def value(self, rank: int) -> Any:
        """The value on virtual rank ``rank``."""
        filled = self.text.replace(RANK_PLACEHOLDER, str(rank))
        try:
            return _evaluate(ast.parse(filled, mode="eval").body)
        except (ValueError, SyntaxError, TypeError, ZeroDivisionError, RecursionError):
            raise ConfigError(
                f"--kwarg {self.key}={self.text}: cannot evaluate {filled!r} for rank {rank}; "
                "use a literal with {rank} and integer + - * // %, e.g. seed=42+{rank}"
            ) from None

    def __repr__(self) -> str:
        return self.text


def parse_kwarg(text: str) -> tuple[str, Any]:
    """Parse ``key=value``; the value is a Python literal, ``range(n)`` or a bare word.

    A value containing ``{rank}`` becomes a :class:`RankTemplate`, evaluated
    per virtual rank.

    Example:
        >>> parse_kwarg("drop_last=True"), parse_kwarg("dataset=range(10)")
        (('drop_last', True), ('dataset', range(0, 10)))
        >>> parse_kwarg("order=torch")
        ('order', 'torch')
        >>> parse_kwarg("seed={rank}")
        ('seed', {rank})

    Raises:
        ConfigError: no ``=``, an invalid key, or a value that is neither.
    """
    key, sep, raw = text.partition("=")
    key = key.strip()
    if not sep or not key.isidentifier():
        raise ConfigError(f"--kwarg must look like key=value, got {text!r}")
    raw = raw.strip()
    if RANK_PLACEHOLDER in raw:
        template = RankTemplate(key, raw)
        template.value(0)  # fail now, not on the first rank
        return key, template
    match = _RANGE.match(raw)
    if match:
        size = int(match.group(1))
        if size >= 2**63:
            raise ConfigError(f"--kwarg {key}=range(n): n must be below 2**63, got {size}")
        return key, range(size)
    try:
        return key, ast.literal_eval(raw)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        if _WORD.match(raw):
            return key, raw  # a bare word is a string: order=torch
        raise ConfigError(
            f"--kwarg {key}: cannot parse {raw!r}; give a Python literal (3, 0.5, True, "
            "[1, 2], 'text') or range(n)"
        ) from None


def kwargs_from(pairs: Sequence[str]) -> dict[str, Any]:
    """Parse repeated ``--kwarg key=value`` options (later keys win)."""
    return dict(parse_kwarg(p) for p in pairs)
