"""Where a sampler's loader goes: the statements that use it, the functions that iterate it.

Rule FS109 asks of a padded evaluation sampler what becomes of what its
loader yields (kept by sample id? combined across ranks?); both questions
start from the same places, found here: the names of the sampler and of the
loaders built on it, the statements that hand one of them to a call or
iterate it, and, through calls of the linted tree, the function that finally
iterates it.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from .context import target_names
from .flow import LOADERS, WRAPPERS, is_batch_sampler_call, parameters, spread_entry
from .names import Module, argument, conditional_arms, dotted, name_words, tail
from .objects import stored_attributes

__all__ = [
    "Reader",
    "batches_of",
    "block_of",
    "carrying_names",
    "consumer_sites",
    "defs_of",
    "readers",
    "wrapped_names",
]

Function = ast.FunctionDef | ast.AsyncFunctionDef


def carrying_names(mod: Module, sampler: ast.Call, names: set[str] | None = None) -> set[str]:
    """The sampler's names and those of the loaders built on it (``data_loader_test``).

    ``names`` replaces the names ``sampler`` is assigned to where a call site
    receives it by position (a tuple target's element).
    """
    names = set(target_names(mod, sampler)) if names is None else set(names)
    for call in mod.calls:  # batch samplers over it first: a loader may take one
        if batches_of(call) and any(
            a is sampler or dotted(a) in names
            for a in [*call.args, *(k.value for k in call.keywords)]
        ):
            names.update(target_names(mod, call))
    for call in mod.calls:
        if tail(call) not in LOADERS:
            continue
        given = (
            argument(call, "sampler", 3)
            or argument(call, "batch_sampler", 4)
            or spread_entry(mod, call, "sampler")
        )
        if given is not None and (sampler in conditional_arms(given) or dotted(given) in names):
            names.update(target_names(mod, call))
    return names


def batches_of(call: ast.Call) -> bool:
    """``call`` groups a sampler into batches: ``BatchSampler(...)``, a ``make_batch_data_sampler``.

    It reads no data; the loader it is given to does, so its name carries the sampler on.
    """
    return is_batch_sampler_call(call) or {"batch", "sampler"} <= set(name_words(tail(call)))


Loop = ast.For | ast.AsyncFor | ast.comprehension


def _iterates(node: ast.AST, names: set[str]) -> bool:
    return isinstance(node, Loop) and any(dotted(n) in names for n in ast.walk(node.iter))


#: Calls that only look at a loader (its length, its name) or pass its items through.
_LOOKS = frozenset({"len", "print", "str", "repr", "isinstance", "hasattr", "getattr", "type"})


def consumer_sites(mod: Module, names: set[str], scope: ast.AST | None = None) -> list[ast.AST]:
    """Calls that are handed one of ``names``, and loops that iterate one (in ``scope``).

    A wrapper inside a loop's iterable (``enumerate(loader)``, ``tqdm(loader)``)
    is part of that loop; calls that only look (``len(loader)``) are no use.
    """
    names = wrapped_names(mod, names, scope)
    loops = [
        n for n in (ast.walk(scope) if scope is not None else mod.nodes) if _iterates(n, names)
    ]
    inside = {id(n) for loop in loops for n in ast.walk(loop.iter)}  # type: ignore[attr-defined]
    out: list[ast.AST] = list(loops)
    for node in ast.walk(scope) if scope is not None else mod.nodes:
        if (
            isinstance(node, ast.Call)
            and id(node) not in inside
            and tail(node) not in LOADERS | WRAPPERS | _LOOKS
            and not batches_of(node)
        ):
            given = [*node.args, *(k.value for k in node.keywords)]
            if any(carries(g, names) for g in given) and not _rebinds(mod, node, names):
                out.append(node)
    return out


def wrapped_names(mod: Module, names: set[str], scope: ast.AST | None = None) -> set[str]:
    """``names`` and the names bound to a wrapper around one (``pbar = tqdm(loader)``).

    A progress bar or ``enumerate`` assigned to a name is iterated under that
    name (``for batch in pbar``): the loop reads the loader all the same. So
    is a choice between the two (``it = tqdm(loader) if rank == 0 else
    loader``, a progress bar on one rank only): every arm carries the loader.
    """
    names = set(names)
    wraps: list[tuple[list[ast.expr], list[str]]] = []
    for node in ast.walk(scope) if scope is not None else mod.nodes:
        if not isinstance(node, ast.Assign):
            continue
        sources = _wrapped_sources(node.value)
        targets = [n for t in node.targets if (n := dotted(t))]
        if sources and targets:
            wraps.append((sources, targets))
    for _ in range(3):
        before = len(names)
        for sources, targets in wraps:
            if any(dotted(a) in names for a in sources):
                names.update(targets)
        if len(names) == before:
            break
    return names


def _wrapped_sources(value: ast.expr) -> list[ast.expr]:
    """What a wrapper call wraps (its arguments); for a conditional choice, each arm's."""
    if isinstance(value, ast.Call):
        return list(value.args) if tail(value) in WRAPPERS else []
    if isinstance(value, ast.IfExp):
        return [
            source
            for arm in (value.body, value.orelse)
            for source in ([arm] if isinstance(arm, ast.Name | ast.Attribute) else [])
            + _wrapped_sources(arm)
        ]
    return []


def _rebinds(mod: Module, call: ast.Call, names: set[str]) -> bool:
    """``x = Wrap(x)``: the name goes on carrying what the call wraps; its later uses count."""
    parent = mod.parents.get(call)
    return isinstance(parent, ast.Assign) and any(dotted(t) in names for t in parent.targets)


def block_of(mod: Module, node: ast.AST) -> list[ast.stmt]:
    """The statement list that holds ``node``'s statement (an ``if`` body, a function body)."""
    child = node
    for ancestor in mod.ancestors(node):
        for part in ("body", "orelse", "finalbody"):
            statements = getattr(ancestor, part, None)
            if isinstance(statements, list) and child in statements:
                return statements
        child = ancestor
    return []


def defs_of(mod: Module, call: ast.Call) -> tuple[Module, list[Function]] | None:
    """The module and definitions of the function ``call`` calls (this file or the tree)."""
    project = mod.cache.get("project")
    if project is None:
        found = mod.functions.get(call.func.id) if isinstance(call.func, ast.Name) else None
        return (mod, list(found)) if found else None
    where = project.resolve(mod.cache["module_name"], call)
    if where is None:
        return None
    owner = project.modules[where[0]]
    return owner, list(owner.functions.get(where[1], []))


@dataclass(frozen=True)
class Reader:
    """A function that iterates the loader, and the calls that led there from the site."""

    module: Module
    #: The function that reads it, or the module itself for a script's top-level loop.
    function: Function | ast.Module
    #: ``(module, call)`` from the consumer site down to the call of ``function``.
    path: tuple[tuple[Module, ast.Call], ...]
    #: The names the loader goes by in ``function`` (a parameter, an attribute).
    names: frozenset[str] = frozenset()


def carries(node: ast.AST, names: set[str]) -> bool:
    """``node`` is one of ``names``, or a loader built on one right there.

    ``_summed(model, DataLoader(val_set, sampler=val_sampler))``: the loader
    handed over is ``val_sampler``'s, though no name holds it.
    """
    if dotted(node) in names:
        return True
    return (
        isinstance(node, ast.Call)
        and tail(node) in LOADERS
        and any(dotted(a) in names for a in [*node.args, *(k.value for k in node.keywords)])
    )


def _bound(func: Function, call: ast.Call, names: set[str]) -> set[str]:
    """The parameters of ``func`` that ``call`` passes one of ``names`` to."""
    params = parameters(func)
    bound = {k.arg for k in call.keywords if k.arg and carries(k.value, names)}
    for position, arg in enumerate(call.args):
        if isinstance(arg, ast.Starred):
            break
        if position < len(params) and carries(arg, names):
            bound.add(params[position])
    return bound


def _kept_by_instance(
    mod: Module, site: ast.Call, names: set[str]
) -> tuple[Module, ast.ClassDef, set[str]] | None:
    """``Trainer(model, val_loader=val_loader)``: the class, and the attributes that keep it.

    The tree's class whose constructor the call is, and the ``self.<attr>``
    names its ``__init__`` (or a base class's, handed the parameter through
    ``super().__init__``: distributed-ml-stanford-cars' trainer) stores the
    loader parameter in; its methods read the loader through them.
    """
    project = mod.cache.get("project")
    if project is None:
        return None
    where = project.resolve(mod.cache["module_name"], site)
    if where is None or where[1] not in project.modules[where[0]].classes:
        return None
    owner = project.modules[where[0]]
    cls = owner.classes[where[1]][0]
    init = next(
        (f for f in cls.body if isinstance(f, ast.FunctionDef) and f.name == "__init__"), None
    )
    if init is None:
        return None
    bound = _bound(init, site, names)
    attributes = {
        name
        for node in ast.walk(init)
        if isinstance(node, ast.Assign) and dotted(node.value) in bound
        for target in node.targets
        if (name := dotted(target)) is not None and name.startswith("self.")
    }
    for param in bound:  # handed on to a base class's constructor that stores it
        attributes |= stored_attributes(project, where[0], cls, param)
    return (owner, cls, attributes) if attributes else None


def readers(
    mod: Module, site: ast.AST, names: set[str], depth: int = 3, partial: bool = False
) -> list[Reader] | None:
    """The functions that iterate the loader handed over at ``site``; ``None``: not all known.

    A loop over the loader is read in its own function; a call is followed
    into the tree's function it resolves to, along the parameter the loader
    is bound to, up to ``depth`` calls deep; a class of the tree built with
    the loader, into the methods that read the attribute ``__init__`` keeps
    it in. With ``partial``, the readers that can be followed are returned
    and the others left out (evidence that some reader combines), never ``None``.
    """
    unknown: list[Reader] | None = [] if partial else None
    if not isinstance(site, ast.Call):
        func = mod.function_of(site)
        return unknown if func is None else [Reader(mod, func, (), frozenset(names))]
    kept = _kept_by_instance(mod, site, names)
    if kept is not None:
        owner, cls, attributes = kept
        return _read_below(mod, site, owner, [(cls, attributes)], depth, partial)
    found = defs_of(mod, site)
    if found is None or not found[1] or depth == 0:
        return unknown
    owner, defs = found
    scopes: list[tuple[ast.AST, set[str]]] = []
    for func in defs:
        bound = _bound(func, site, names)
        if not bound and not partial:
            return None
        scopes.append((func, bound))
    return _read_below(mod, site, owner, scopes, depth, partial)


def _read_below(
    mod: Module,
    site: ast.Call,
    owner: Module,
    scopes: list[tuple[ast.AST, set[str]]],
    depth: int,
    partial: bool = False,
) -> list[Reader] | None:
    """The readers of each ``(scope, names)`` of ``owner``, with ``site`` put on their paths."""
    out: list[Reader] = []
    for scope, names in scopes:
        inner = consumer_sites(owner, names, scope) if depth > 0 and names else []
        if not inner and not partial:
            return None
        for node in inner:
            below = readers(owner, node, names, depth - 1, partial)
            if below is None:
                return None
            out.extend(Reader(r.module, r.function, ((mod, site), *r.path), r.names) for r in below)
    return out
