"""Where a builder's result lands in a call site's tuple target (rule FS109).

``train_loader, test_loader = get_loader(args)`` mixes training and
evaluation names, so the names alone say neither. What the builder returns
decides: the padded sampler flows, through the builder's own names, into
one element of its returned tuple, and the call site's name at that
position says what the sampler is for.
"""

from __future__ import annotations

import ast

from .flow import Function
from .names import Module, dotted, is_eval_name, is_train_name

__all__ = ["WHOLE", "position_verdict", "returned_at", "returned_keywords"]


def _reads(node: ast.AST, names: set[str], origin: ast.AST) -> bool:
    return any(
        sub is origin or (isinstance(sub, ast.Name | ast.Attribute) and dotted(sub) in names)
        for sub in ast.walk(node)
    )


#: :func:`returned_at`'s mark for a ``return`` whose whole value holds what the origin builds.
WHOLE = -1


def returned_at(func: Function, origin: ast.AST) -> set[int]:
    """Where ``func`` hands back what ``origin`` builds: tuple positions, or :data:`WHOLE`.

    ``return train_loader, DataLoader(val_set, sampler=val_sampler)`` holds a
    ``val_sampler = DistributedSampler(...)`` at position 1; ``return loader``
    (a loader over it) holds it whole.
    """
    derived = _derived(func, origin)
    found = _returned_positions(func, origin, derived)
    for node in ast.walk(func):
        if (
            isinstance(node, ast.Return)
            and node.value is not None
            and not isinstance(node.value, ast.Tuple)
            and _reads(node.value, derived, origin)
        ):
            found.add(WHOLE)
    return found


def returned_keywords(func: Function, origin: ast.AST) -> set[str]:
    """Keywords of a constructor ``func`` returns whose values hold what ``origin`` builds.

    ``return MnistLoaders(train_loader=train_loader, val_loader=val_loader)``
    (a dataclass of loaders) holds a ``val_sampler`` built for ``val_loader``
    at ``val_loader``: a call site reads it as ``loaders.val_loader``. Empty
    where any return is not such a call (the value lands whole).
    """
    derived = _derived(func, origin)
    found: set[str] = set()
    for node in ast.walk(func):
        if not isinstance(node, ast.Return) or node.value is None:
            continue
        if not _reads(node.value, derived, origin):
            continue
        value = node.value
        if not isinstance(value, ast.Call) or value.args or not value.keywords:
            return set()
        if any(keyword.arg is None for keyword in value.keywords):
            return set()  # **fields: where the loader lands is not written here
        found |= {
            keyword.arg
            for keyword in value.keywords
            if keyword.arg is not None and _reads(keyword.value, derived, origin)
        }
    return found


def _derived(func: Function, origin: ast.AST) -> set[str]:
    """The names of ``func`` that hold what ``origin`` builds, or something built on it."""
    derived: set[str] = set()
    assigns = [n for n in ast.walk(func) if isinstance(n, ast.Assign)]
    for _ in range(8):
        before = len(derived)
        for assign in assigns:
            if _reads(assign.value, derived, origin):
                derived.update(
                    name
                    for target in assign.targets
                    for sub in ast.walk(target)
                    if (name := dotted(sub)) is not None
                )
        if len(derived) == before:
            break
    return derived


def _returned_positions(
    func: Function, origin: ast.AST, derived: set[str] | None = None
) -> set[int]:
    """Positions of ``func``'s returned tuples that hold what ``origin`` builds.

    ``derived``: :func:`_derived`'s names, where the caller has them already.
    """
    if derived is None:
        derived = _derived(func, origin)
    positions: set[int] = set()
    for node in ast.walk(func):
        if isinstance(node, ast.Return) and isinstance(node.value, ast.Tuple):
            for index, element in enumerate(node.value.elts):
                if _reads(element, derived, origin):
                    positions.add(index)
    return positions


def position_verdict(func: Function, origin: ast.AST, module: Module, site: ast.Call) -> str | None:
    """``"eval"`` or ``"train"`` from the site's tuple names at the positions ``origin`` reaches.

    ``None`` when the site is no tuple assignment, ``origin`` reaches no
    returned tuple, or the names at its positions say neither or both.
    """
    parent = module.parents.get(site)
    if not isinstance(parent, ast.Assign) or len(parent.targets) != 1:
        return None
    target = parent.targets[0]
    if not isinstance(target, ast.Tuple | ast.List):
        return None
    positions = _returned_positions(func, origin)
    names = [dotted(target.elts[i]) or "" for i in sorted(positions) if i < len(target.elts)]
    if not names:
        return None
    if all(is_eval_name(n) for n in names):
        return "eval"
    if all(is_train_name(n) for n in names):
        return "train"
    return None
