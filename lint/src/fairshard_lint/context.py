"""Where a call sits, judged by names: is it building something for evaluation?

Several rules treat evaluation differently (its order does not matter, its
padding corrupts metrics), and scripts say which loaders are for
evaluation only through names: ``val_loader``, ``dataset_test``,
``def evaluate(...)``.
"""

from __future__ import annotations

import ast

from .branches import train_branch
from .flow import LOADERS, spread_entry
from .names import (
    Module,
    argument,
    calls_bound_to,
    conditional_arms,
    dotted,
    is_eval_name,
    is_train_name,
    name_words,
    tail,
)

__all__ = [
    "context_of",
    "evaluation_split_loop",
    "in_eval_context",
    "is_sampler_class",
    "key_names",
    "loaders_over",
    "loops_around",
    "stored_for_evaluation",
    "target_names",
    "training_split_loop",
]

_EVAL_CONTAINERS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _unpacked(target: ast.Tuple | ast.List) -> list[str]:
    """The names of a tuple target (``val_loader, val_sampler = ...``), if they agree.

    A tuple whose names mix training and evaluation (``train_loader,
    val_loader = build(...)``) says neither, so it gives no names.
    """
    names = [
        n
        for element in target.elts
        if (n := dotted(element.value if isinstance(element, ast.Starred) else element))
    ]
    if any(is_eval_name(n) for n in names) and any(is_train_name(n) for n in names):
        return []
    return names


def rebound_later(mod: Module, node: ast.AST) -> list[ast.Call]:
    """The calls that ``node``'s names are bound to again later in its function.

    ``train_sampler = SubsetRandomSampler(idx)`` then ``if multinode: train_sampler
    = DistributedSampler(...)``: what a distributed run replaces the value with.
    """
    scope = mod.function_of(node) or mod.tree
    at = (getattr(node, "lineno", 0), getattr(node, "col_offset", 0))
    return [
        call
        for name in set(target_names(mod, node))
        for call in calls_bound_to(scope, name)
        if (call.lineno, call.col_offset) > at
    ]


def target_names(mod: Module, node: ast.AST) -> list[str]:
    """The dotted names ``node`` is assigned to (``x = node``, ``x: T = node``, ``(x := node)``).

    The names of a tuple target count alike (``val_loader, val_sampler =
    init_data(...)``), unless they mix training and evaluation. Each arm of a
    conditional expression is assigned too (``test_sampler = SequentialSampler(ds)
    if single else DistributedSampler(ds)``). An element of a tuple assigned to a
    tuple of the same length is bound to its own target only (``model, loader =
    make_model(), make_data(...)``).
    """
    parent = mod.parents.get(node)
    while isinstance(parent, ast.IfExp) and node is not parent.test:
        node, parent = parent, mod.parents.get(parent)
    if isinstance(parent, ast.Tuple) and node in parent.elts:
        # ``model, loader = make_model(), make_data(...)``: the element's own target
        outer = mod.parents.get(parent)
        if isinstance(outer, ast.Assign) and outer.value is parent:
            position = parent.elts.index(node)
            return [
                name
                for target in outer.targets
                if isinstance(target, ast.Tuple | ast.List)
                and len(target.elts) == len(parent.elts)
                and not any(isinstance(e, ast.Starred) for e in target.elts)
                for name in [dotted(target.elts[position])]
                if name
            ]
        return []
    if isinstance(parent, ast.Assign):
        names: list[str] = []
        for t in parent.targets:
            if n := dotted(t):
                names.append(n)
            elif isinstance(t, ast.Tuple | ast.List):
                names.extend(_unpacked(t))
        return names
    if isinstance(parent, ast.AnnAssign | ast.NamedExpr) and (n := dotted(parent.target)):
        return [n]
    return []


def _key(node: ast.AST) -> str | None:
    """The string key of a subscript (``sampler["dev"]``), else ``None``."""
    if isinstance(node, ast.Subscript):
        key = node.slice
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            return key.value
    return None


def key_names(mod: Module, node: ast.AST) -> list[str]:
    """The string keys ``node`` is stored under: ``d["dev"] = node``, ``{"dev": node}``.

    Scripts that keep one sampler or loader per split in a dict say which is
    which only by its key (``sampler["dev"] = DistributedSampler(...)``,
    ``{"train": DataLoader(...), "dev": DataLoader(...)}``).
    """
    parent = mod.parents.get(node)
    while isinstance(parent, ast.IfExp) and node is not parent.test:
        node, parent = parent, mod.parents.get(parent)
    keys: list[str] = []
    if isinstance(parent, ast.Assign):
        keys.extend(key for t in parent.targets if (key := _key(t)) is not None)
    elif isinstance(parent, ast.Dict):
        for entry, value in zip(parent.keys, parent.values, strict=True):
            if value is node and isinstance(entry, ast.Constant) and isinstance(entry.value, str):
                keys.append(entry.value)
    return keys


def stored_for_evaluation(mod: Module, call: ast.Call) -> bool:
    """The call's result is kept under an evaluation key, or it reads an evaluation entry.

    ``sampler["dev"] = DistributedSampler(dataset["dev"], shuffle=False)``,
    ``{"train": ..., "val": DataLoader(...)}``: the keys say which split it
    is, where no variable name does. Read by the order rule (an unshuffled
    evaluation sampler is fine); the padding rule does not take keys as
    evidence of evaluation (whether such a split is combined across ranks
    is seldom traceable through the dicts).
    """
    keys = key_names(mod, call)
    first = argument(call, "dataset", 0)
    if first is not None and (key := _key(first)) is not None:
        keys.append(key)
    return any(is_eval_name(k) for k in keys) and not any(is_train_name(k) for k in keys)


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


_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def loops_around(mod: Module, node: ast.AST) -> list[tuple[ast.AST, ast.expr, set[str]]]:
    """``(loop, iterable, loop variables)`` of the loops and comprehensions around ``node``."""
    out: list[tuple[ast.AST, ast.expr, set[str]]] = []
    child = node
    for ancestor in mod.ancestors(node):
        if isinstance(ancestor, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            break
        if isinstance(ancestor, ast.For | ast.AsyncFor) and child in ancestor.body:
            names = {n.id for n in ast.walk(ancestor.target) if isinstance(n, ast.Name)}
            out.append((ancestor, ancestor.iter, names))
        elif isinstance(ancestor, _COMPREHENSIONS):
            for gen in ancestor.generators:
                names = {n.id for n in ast.walk(gen.target) if isinstance(n, ast.Name)}
                out.append((ancestor, gen.iter, names))
        child = ancestor
    return out


def _eval_strings(node: ast.AST) -> bool:
    """The expression holds a string that names evaluation (``["train", "val"]``)."""
    return any(
        isinstance(sub, ast.Constant) and isinstance(sub.value, str) and is_eval_name(sub.value)
        for sub in ast.walk(node)
    )


def _holds_eval_split(mod: Module, iterable: ast.expr) -> bool:
    """The loop's iterable holds an evaluation split: literally, or by what the file puts in it.

    ``for split in ("train", "test")``; ``for split in self.available_splits``
    after ``self.available_splits.append("TEST")`` (or ``= [..., "val"]``)
    anywhere in the file; ``.items()`` / ``.keys()`` of such a dict.
    """
    if (
        isinstance(iterable, ast.Call)
        and tail(iterable) in ("items", "keys", "values")
        and isinstance(iterable.func, ast.Attribute)
    ):
        iterable = iterable.func.value
    if isinstance(iterable, ast.List | ast.Tuple | ast.Set | ast.Dict):
        return _eval_strings(iterable)
    name = dotted(iterable)
    if name is None:
        return False
    for node in mod.nodes:
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("append", "extend", "add", "insert")
            and dotted(node.func.value) == name
            and any(_eval_strings(a) for a in node.args)
        ):
            return True
        if (
            isinstance(node, ast.Assign | ast.AugAssign)
            and any(
                dotted(t) == name
                for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
            )
            and isinstance(node.value, ast.List | ast.Tuple | ast.Set | ast.Dict)
            and _eval_strings(node.value)
        ):
            return True
    return False


def evaluation_split_loop(mod: Module, call: ast.Call) -> ast.AST | None:
    """The loop that builds ``call``'s result once per split, an evaluation split among them.

    ``{split: build_loader(data[split], split=split) for split in splits}``
    where ``splits`` holds ``"test"``: the same builder serves evaluation too,
    though no name at the call says so. The loop variable must reach the call's
    arguments (a call that ignores the split is not built per split).
    """
    for loop, iterable, names in loops_around(mod, call):
        if not names:
            continue
        passed = [*call.args, *(k.value for k in call.keywords)]
        uses = any(
            isinstance(sub, ast.Name) and sub.id in names for arg in passed for sub in ast.walk(arg)
        )
        if uses and _holds_eval_split(mod, iterable):
            return loop
    return None


def training_split_loop(mod: Module, call: ast.Call) -> ast.AST | None:
    """The loop that builds ``call``'s result once per split, the training split among them.

    ``{split: DistributedSampler(ds) for split, ds in zip(["train", "valid"], sets)}``:
    one of the samplers it builds is the training one, though no name at the
    call says so. The loop variable must reach the call's arguments, and the
    iterable must hold a training split's name as a literal (in a ``zip`` too).
    """
    for loop, iterable, names in loops_around(mod, call):
        passed = [*call.args, *(k.value for k in call.keywords)]
        uses = any(
            isinstance(sub, ast.Name) and sub.id in names for arg in passed for sub in ast.walk(arg)
        )
        named = (s.value for s in ast.walk(iterable) if isinstance(s, ast.Constant))
        if uses and any(isinstance(value, str) and is_train_name(value) for value in named):
            return loop
    return None


def loaders_over(mod: Module, sampler: ast.Call) -> list[ast.Call]:
    """The loaders of ``sampler``'s function built on it (``sampler=`` the call or its name).

    Also through a spread dict (``DataLoader(ds, **config)`` with
    ``config = {"sampler": test_sampler, **cuda_kw}``), as an arm of a
    conditional expression (ERC's ``sampler=DistributedSampler(val_ds,
    shuffle=False) if world_size > 1 else None``), and through a
    ``BatchSampler`` over it handed as ``batch_sampler=``.
    """
    scope = mod.function_of(sampler) or mod.tree
    names = set(target_names(mod, sampler))
    # a BatchSampler over it (berenslab's DistributedBucketSampler): the loader takes that
    batchers: list[ast.Call] = []
    for node in ast.walk(scope):
        if isinstance(node, ast.Call) and tail(node) == "BatchSampler":
            inner = argument(node, "sampler", 0)
            if inner is not None and (inner is sampler or dotted(inner) in names):
                batchers.append(node)
    batch_names = {n for b in batchers for n in target_names(mod, b)}
    found = []
    for node in ast.walk(scope):
        if not isinstance(node, ast.Call) or tail(node) not in LOADERS:
            continue
        given = argument(node, "sampler", 3) or spread_entry(mod, node, "sampler")
        if given is not None and (sampler in conditional_arms(given) or dotted(given) in names):
            found.append(node)
            continue
        batched = argument(node, "batch_sampler", 4)
        if batched is not None and (batched in batchers or dotted(batched) in batch_names):
            found.append(node)
    return found
