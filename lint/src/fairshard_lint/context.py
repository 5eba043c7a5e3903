"""Where a call sits, judged by names: is it building something for evaluation?

Several rules treat evaluation differently (its order does not matter, its
padding corrupts metrics), and scripts say which loaders are for
evaluation only through names: ``val_loader``, ``dataset_test``,
``def evaluate(...)``.
"""

from __future__ import annotations

import ast

from .flow import LOADERS
from .names import Module, argument, dotted, is_eval_name, name_words, tail

__all__ = ["in_eval_context", "is_sampler_class", "target_names"]

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
    """The call builds something for evaluation, judged by the names around it.

    The variable it is assigned to, the loader it is passed to (and that
    loader's variable), the enclosing functions, and the dataset argument
    (``DistributedSampler(val_dataset)``).
    """
    names = target_names(mod, call)
    first = argument(call, "dataset", 0)
    if first is not None and (name := dotted(first)):
        names.append(name)
    for ancestor in mod.ancestors(call):
        if isinstance(ancestor, _EVAL_CONTAINERS) and not _is_unit_test(ancestor):
            names.append(ancestor.name)
        if isinstance(ancestor, ast.Call) and tail(ancestor) in LOADERS:
            names.extend(target_names(mod, ancestor))
            data = argument(ancestor, "dataset", 0)
            if data is not None and (name := dotted(data)):
                names.append(name)
    return any(is_eval_name(name) for name in names)


def is_sampler_class(node: ast.AST) -> bool:
    """A class statement whose base is named ``...Sampler``."""
    return isinstance(node, ast.ClassDef) and any(
        (dotted(b) or "").endswith("Sampler") for b in node.bases
    )
