"""Where a call sits, judged by names: is it building something for evaluation?

Several rules treat evaluation differently (its order does not matter, its
padding corrupts metrics), and scripts say which loaders are for
evaluation only through names: ``val_loader``, ``dataset_test``,
``def evaluate(...)``.
"""

from __future__ import annotations

import ast

from .branches import train_branch
from .flow import LOADERS
from .names import Module, argument, dotted, is_eval_name, is_train_name, name_words, tail

__all__ = ["context_of", "in_eval_context", "is_sampler_class", "target_names"]

_EVAL_CONTAINERS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def target_names(mod: Module, node: ast.AST) -> list[str]:
    """The dotted names ``node`` is assigned to (``x = node``, ``x: T = node``, ``(x := node)``)."""
    parent = mod.parents.get(node)
    if isinstance(parent, ast.Assign):
        return [n for t in parent.targets if (n := dotted(t))]
    if isinstance(parent, ast.AnnAssign | ast.NamedExpr) and (n := dotted(parent.target)):
        return [n]
    return []


def _is_unit_test(node: ast.AST) -> bool:
    """``def test_padding``, ``class SamplerTests``: unit tests, not evaluation loops."""
    if isinstance(node, ast.ClassDef):
        return bool({"test", "tests"} & set(name_words(node.name)))
    name = getattr(node, "name", "")
    return name == "test" or name.startswith("test_")


def in_eval_context(mod: Module, call: ast.Call) -> bool:
    """The call builds something for evaluation (see :func:`context_of`)."""
    return context_of(mod, call) == "eval"


def context_of(mod: Module, call: ast.Call) -> str | None:
    """``"eval"`` or ``"train"`` when the names around the call say which; else ``None``.

    The names nearest the call decide first: the variable it is assigned to,
    the loader it is passed to (and that loader's variable) and the dataset
    argument (``DistributedSampler(val_dataset)``): an evaluation name there
    means evaluation, a training name (``train_sampler``, ``dataset_train``)
    means training even inside ``def eval_linear(...)``. Then a branch on
    training (the ``else`` of ``if is_train:`` is evaluation), then the
    enclosing functions.
    """
    near = target_names(mod, call)
    first = argument(call, "dataset", 0)
    if first is not None and (name := dotted(first)):
        near.append(name)
    enclosing: list[str] = []
    for ancestor in mod.ancestors(call):
        if isinstance(ancestor, _EVAL_CONTAINERS) and not _is_unit_test(ancestor):
            enclosing.append(ancestor.name)
        if isinstance(ancestor, ast.Call) and tail(ancestor) in LOADERS:
            near.extend(target_names(mod, ancestor))
            data = argument(ancestor, "dataset", 0)
            if data is not None and (name := dotted(data)):
                near.append(name)
    if any(is_eval_name(name) for name in near):
        return "eval"
    if any(is_train_name(name) for name in near):
        return "train"
    side = train_branch(mod, call)
    if side is not None:
        return "train" if side else "eval"
    for name in enclosing:  # innermost first
        if is_eval_name(name):
            return "eval"
        if is_train_name(name):
            return "train"
    return None


def is_sampler_class(node: ast.AST) -> bool:
    """A class statement whose base is named ``...Sampler``."""
    return isinstance(node, ast.ClassDef) and any(
        (dotted(b) or "").endswith("Sampler") for b in node.bases
    )
