"""The size of a well-known evaluation split a sampler is built on (FS109).

Also a part of literal size: ``test_set.select(range(500))``, ``Subset(ds, range(500))``.

CIFAR-10's and CIFAR-100's test splits hold 10,000 images, MNIST's and its
variants' 10,000, SVHN's 26,032 and STL-10's 8,000: fixed numbers, whether
torchvision's class or a project's wrapper of the same name builds them.
With the process counts a tree's launch lines name (``launch_counts``),
they tell whether a padding sampler repeats anything at all.
"""

from __future__ import annotations

import ast

from .names import Module, argument, dotted, tail

__all__ = ["known_split_size"]

#: Dataset class (lower case) -> its test split's size. The split is asked for with
#: ``train=False`` (torchvision's CIFAR and MNIST families, and projects' wrappers of any
#: of them) or ``split="test"`` (torchvision's SVHN and STL-10).
_TEST_SIZES = {
    "cifar10": 10_000,
    "cifar100": 10_000,
    "mnist": 10_000,
    "fashionmnist": 10_000,
    "kmnist": 10_000,
    "svhn": 26_032,
    "stl10": 8_000,
}


def known_split_size(mod: Module, sampler: ast.Call) -> int | None:
    """The size of the known split ``sampler``'s dataset is, or ``None``.

    The dataset argument is the split's constructor itself or a name whose
    every binding in the sampler's function (or at module level) is one.
    """
    data = argument(sampler, "dataset", 0)
    if isinstance(data, ast.Call):
        return _size_of(data)
    name = dotted(data) if data is not None else None
    if name is None:
        return None
    scope = mod.function_of(sampler) or mod.tree
    sizes = set()
    for node in ast.walk(scope):
        if isinstance(node, ast.Assign) and any(dotted(t) == name for t in node.targets):
            sizes.add(_size_of(node.value) if isinstance(node.value, ast.Call) else None)
        elif isinstance(node, ast.AugAssign | ast.AnnAssign) and dotted(node.target) == name:
            sizes.add(None)
    return sizes.pop() if len(sizes) == 1 else None


def _range_size(node: ast.AST | None) -> int | None:
    """``range(500)``, ``range(100, 600)``, ``list(range(500))``: how many indices, or ``None``."""
    if isinstance(node, ast.Call) and tail(node) == "list" and len(node.args) == 1:
        node = node.args[0]
    if not (isinstance(node, ast.Call) and tail(node) == "range" and 1 <= len(node.args) <= 2):
        return None
    bounds = [
        a.value
        for a in node.args
        if isinstance(a, ast.Constant)
        and isinstance(a.value, int)
        and not isinstance(a.value, bool)
    ]
    if len(bounds) != len(node.args):
        return None
    start, stop = (0, bounds[0]) if len(bounds) == 1 else (bounds[0], bounds[1])
    return max(stop - start, 0)


def _selected_size(call: ast.Call) -> int | None:
    """A part of literal size: ``test_set.select(range(500))``, ``Subset(ds, range(500))``.

    The part holds that many samples whenever the whole holds at least as many
    (a smaller whole makes ``select`` raise; ``Subset`` would fail on its first
    index past the end).
    """
    name = tail(call)
    if name == "select" and isinstance(call.func, ast.Attribute) and len(call.args) == 1:
        return _range_size(call.args[0])
    if name == "Subset":
        return _range_size(argument(call, "indices", 1))
    return None


def _size_of(call: ast.Call) -> int | None:
    selected = _selected_size(call)
    if selected is not None:
        return selected
    size = _TEST_SIZES.get(tail(call).lower())
    if size is None:
        return None
    train = argument(call, "train", 1)
    split = argument(call, "split", 1)
    test = (isinstance(train, ast.Constant) and train.value is False) or (
        isinstance(split, ast.Constant) and split.value == "test"
    )
    return size if test else None
