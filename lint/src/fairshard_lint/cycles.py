"""Generators that cycle a distributed loader without ``set_epoch`` (rule FS101).

``def sample_data(loader): while True: for batch in loader: yield batch``
(or ``while True: yield from loader``) re-iterates the loader on every pass
of its outer loop, and each pass asks the sampler for its order again: a
shuffling ``DistributedSampler`` whose epoch never moves gives the same
order every time. The outer loop is the
epoch loop, though it yields (``loops`` leaves yielding loops to whoever
drives them, which is right for a generator that hands a sampler's indices
on once, and wrong for one that starts the loader over).

Fine, so not reported: a ``set_epoch`` in the outer loop (directly or
through a function of the file that calls it), or in the function that
hands the loader to the generator (it advances the epoch between passes);
a loader whose sampler does not need ``set_epoch`` (``shuffle=False``, an
``IterableDataset``): the flow's carriers are only those that do; a
sampler repeated by a wrapper class (see :func:`_of_sampler`).
"""

from __future__ import annotations

import ast

from .flow import Flow, Function, bound_argument, defaults_of, parameters
from .names import dotted, is_constant, name_words, tail

__all__ = ["cycling_loops", "imported_cycles"]

Loop = ast.For | ast.AsyncFor | ast.While


def _restarted(loop: Loop) -> list[ast.expr]:
    """What ``loop`` iterates anew on each pass and yields from.

    The iterable of a ``for`` inside it (not ``loop`` itself) whose body
    yields, the value of a ``yield from loader`` in it, and what a yielding
    loop starts over by hand (ProBayes's ``inf_iterator``: ``yield
    iterator.__next__()``, and on ``StopIteration`` ``iterator =
    iterable.__iter__()``; ``iter(loader)`` alike).
    """
    out: list[ast.expr] = []
    yields = any(isinstance(sub, ast.Yield | ast.YieldFrom) for sub in ast.walk(loop))
    # ``for x in iter(loader): yield x`` is read as the ``for`` (its file's loop rule reports it)
    iterated = {id(n.iter) for n in ast.walk(loop) if isinstance(n, ast.For | ast.AsyncFor)}
    for node in ast.walk(loop):
        if node is loop or id(node) in iterated:
            continue
        if isinstance(node, ast.For | ast.AsyncFor) and any(
            isinstance(sub, ast.Yield | ast.YieldFrom) for sub in ast.walk(node)
        ):
            out.append(node.iter)
        elif isinstance(node, ast.YieldFrom):
            out.append(node.value)
        elif yields and isinstance(node, ast.Call):
            if isinstance(node.func, ast.Name) and node.func.id == "iter" and len(node.args) == 1:
                out.append(node.args[0])
            elif (
                isinstance(node.func, ast.Attribute)
                and node.func.attr == "__iter__"
                and not node.args
            ):
                out.append(node.func.value)
    return out


def _sets_epoch(scope: ast.AST, setters: set[str]) -> bool:
    return any(isinstance(c, ast.Call) and tail(c) in setters for c in ast.walk(scope))


def _of_sampler(iterable: ast.expr) -> bool:
    """``self.sampler``, ``iter(self.sampler)``: a sampler repeated, not a loader restarted.

    A class that repeats a sampler (yolov5's ``_RepeatSampler``) sits under a
    loader; whoever drives that loader sets the epoch through it
    (``loader.sampler.set_epoch``), so it is the loader's loop that counts.
    """
    if isinstance(iterable, ast.Call) and tail(iterable) == "iter" and iterable.args:
        iterable = iterable.args[0]
    name = dotted(iterable)
    return name is not None and "sampler" in name_words(name.rpartition(".")[2])


def _optional_setters(func: Function, loop: Loop, setters: set[str]) -> set[str] | None:
    """The ``None``-default parameters whose ``set_epoch`` is all the loop's setting.

    ``def cycle_loader(dataloader, sampler=None)`` with ``if sampler is not
    None: sampler.set_epoch(...)`` sets the epoch only for callers that pass
    a sampler; ``None`` when the loop sets it some other way too (or not at all).
    """
    calls = [c for c in ast.walk(loop) if isinstance(c, ast.Call) and tail(c) in setters]
    if not calls:
        return None
    defaults = defaults_of(func)
    out: set[str] = set()
    for call in calls:
        receiver = dotted(call.func.value) if isinstance(call.func, ast.Attribute) else None
        root = (receiver or "").partition(".")[0]
        if not (root in defaults and is_constant(defaults[root], None)):
            return None
        out.add(root)
    return out


def _cycled(
    flow: Flow,
    func: Function,
    iterable: ast.expr,
    setters: set[str],
    optional: set[str] | None = None,
) -> str | None:
    """What the generator restarts: a carrier it reads, or one its callers hand it.

    With ``optional`` (see :func:`_optional_setters`), only callers that leave
    every one of those parameters unset (or ``None``) restart it unsynced.
    """
    if _of_sampler(iterable):
        return None
    name = dotted(iterable)
    own = name is not None and name in parameters(func)
    if optional is None and not own and flow.carries(iterable) and not flow.managed(iterable):
        return name or ast.unparse(iterable)
    if name is None or name not in parameters(func):
        return None
    for call in flow.mod.calls:
        if tail(call) != func.name:
            continue
        given = bound_argument(call, func, name)
        if given is None or not flow.carries(given) or flow.managed(given):
            continue
        if optional and any(
            (passed := bound_argument(call, func, param)) is not None
            and not is_constant(passed, None)
            for param in optional
        ):
            continue  # this caller hands the generator its sampler to set
        caller = flow.mod.function_of(call)
        if caller is not None and _sets_epoch(
            caller, setters - {func.name} if optional else setters
        ):
            continue  # (the generator's own optional setting is what the caller left unset)
        return f"{dotted(given) or ast.unparse(given)} (cycled by {func.name}())"
    return None


def cycling_loops(flow: Flow, setters: set[str]) -> list[tuple[Loop, str]]:
    """Outer loops of generators that restart a shuffling distributed loader, unsynced."""
    found: list[tuple[Loop, str]] = []
    for funcs in flow.mod.functions.values():
        for func in funcs:
            for loop in ast.walk(func):
                if not isinstance(loop, Loop) or flow.mod.function_of(loop) is not func:
                    continue
                optional = _optional_setters(func, loop, setters)
                if optional is None and _sets_epoch(loop, setters):
                    continue
                for iterable in _restarted(loop):
                    what = _cycled(flow, func, iterable, setters, optional)
                    if what is not None:
                        found.append((loop, what))
                        break
    return found


def _restarted_parameter(func: Function) -> str | None:
    """The parameter an endless loop of ``func`` iterates anew and yields from, unsynced.

    ``def cycle(dl): while True: for data in dl: yield data`` gives ``dl``; a
    loop that calls ``set_epoch`` (or a generator that takes a sampler to set)
    gives nothing.
    """
    params = set(parameters(func))
    for loop in ast.walk(func):
        if not isinstance(loop, ast.While) or _sets_epoch(loop, {"set_epoch"}):
            continue
        for iterable in _restarted(loop):
            name = dotted(iterable)
            if name in params and not _of_sampler(iterable):
                return name
    return None


def imported_cycles(flow: Flow) -> list[tuple[ast.Call, str]]:
    """Calls of a generator of another module of the tree that restarts a distributed loader.

    s-forcing's trainers: ``self.dataloader = cycle(dataloader)``, with
    ``cycle`` in ``utils/dataset.py`` (``while True: for data in dl: yield
    data``), then ``next(self.dataloader)`` in an endless training loop: each
    pass over the shuffling ``DistributedSampler`` starts over at epoch 0.
    The file's own generators are :func:`cycling_loops`'; a file that names
    ``set_epoch`` anywhere may advance the sampler between passes and is left
    alone.
    """
    project = flow.mod.cache.get("project")
    if project is None or "set_epoch" in flow.mod.identifiers:
        return []
    name = flow.mod.cache.get("module_name")
    found: list[tuple[ast.Call, str]] = []
    for call in flow.mod.calls:
        if not isinstance(call.func, ast.Name) or not call.args:
            continue
        if call.func.id in flow.mod.functions:
            continue  # the file's own generator: cycling_loops reads its loop
        where = project.resolve(name, call)
        if where is None or where[0] == name:
            continue
        owner = project.modules[where[0]]
        for func in owner.functions.get(where[1], []):
            param = _restarted_parameter(func)
            given = bound_argument(call, func, param) if param is not None else None
            if given is None or not flow.carries(given) or flow.managed(given):
                continue
            path = project.paths.get(where[0], where[0])
            found.append((call, f"{dotted(given) or ast.unparse(given)} ({where[1]}() in {path})"))
            break
    return found
