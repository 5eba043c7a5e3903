"""A custom batch sampler's ``set_epoch`` lost in accelerate's wrapper (rule FS101).

``accelerator.prepare(loader)`` (or accelerate's ``prepare_data_loader``) on
several processes wraps the loader's batch sampler in ``BatchSamplerShard``,
which has no ``set_epoch``, and the loader in ``DataLoaderShard``, whose
``set_epoch`` (also called at every ``__iter__``) reaches the wrapper's
``set_epoch`` (none), its ``.sampler`` and the wrapped batch sampler's
``.sampler``, never the wrapped batch sampler's own ``set_epoch`` (accelerate's
``src/accelerate/data_loader.py``, ``DataLoaderShard.set_epoch``). So for a
batch sampler of the tree that shuffles by the epoch its ``set_epoch``
stores (F5-TTS's ``DynamicBatchSampler``):

* ``prepared.batch_sampler.set_epoch(epoch)``, behind
  ``if hasattr(prepared.batch_sampler, "set_epoch")`` or not, never runs or
  fails, and ``prepared.set_epoch(epoch)`` does not reach it either: every
  epoch repeats the same batches;
* ``batch_sampler.set_epoch(epoch)`` on the object built before ``prepare``,
  ``loader.batch_sampler.set_epoch(epoch)`` before ``prepare``, or
  ``prepared.batch_sampler.batch_sampler.set_epoch(epoch)`` reach it.

A loader whose epoch-driven sampler is its ``sampler`` (reached by
``DataLoaderShard.set_epoch``), or one prepared by
``fairshard.integrations.accelerate.prepare_data_loader``, is not read here.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass

from .flow import LOADERS, epoch_managing
from .names import Module, argument, dotted, tail

__all__ = ["lost_batch_sampler_epochs"]


def _epoch_attributes(cls: ast.ClassDef) -> set[str]:
    """Attributes ``set_epoch`` stores its argument in (``self.epoch = epoch``)."""
    out: set[str] = set()
    for node in cls.body:
        if isinstance(node, ast.FunctionDef) and node.name == "set_epoch":
            params = {a.arg for a in node.args.args[1:]}
            for sub in ast.walk(node):
                if isinstance(sub, ast.Assign) and any(
                    isinstance(n, ast.Name) and n.id in params for n in ast.walk(sub.value)
                ):
                    out.update(
                        t.attr
                        for t in sub.targets
                        if isinstance(t, ast.Attribute) and dotted(t.value) == "self"
                    )
    return out


def shuffles_by_epoch(cls: ast.ClassDef) -> bool:
    """The class's ``__iter__`` reads what its ``set_epoch`` stores: its order changes by epoch."""
    stored = _epoch_attributes(cls)
    if not stored:
        return False
    for node in cls.body:
        if isinstance(node, ast.FunctionDef) and node.name == "__iter__":
            return any(
                isinstance(sub, ast.Attribute)
                and isinstance(sub.ctx, ast.Load)
                and dotted(sub.value) == "self"
                and sub.attr in stored
                for sub in ast.walk(node)
            )
    return False


def _class_of(mod: Module, call: ast.Call) -> str | None:
    """The class of the tree that ``call`` builds, if it shuffles by epoch."""
    name = tail(call)
    if not name:
        return None
    candidates = list(mod.classes.get(name, []))
    project = mod.cache.get("project")
    if not candidates and project is not None:
        where = project.resolve(mod.cache["module_name"], call)
        if where is not None:
            candidates = list(project.modules[where[0]].classes.get(where[1], []))
    return name if any(shuffles_by_epoch(cls) for cls in candidates) else None


def _accelerate_prepare(mod: Module, call: ast.Call) -> bool:
    """``accelerator.prepare(...)`` or accelerate's own ``prepare_data_loader(...)``."""
    if tail(call) == "prepare":
        return epoch_managing(mod, call)
    if tail(call) == "prepare_data_loader":
        return (mod.qualified(call.func) or "").startswith("accelerate")
    return False


@dataclass
class _Loader:
    sampler_class: str
    built: ast.Call
    prepared_at: int | None = None


def _targets(node: ast.Assign) -> list[str | None]:
    if len(node.targets) != 1:
        return [dotted(t) for t in node.targets]
    target = node.targets[0]
    if isinstance(target, ast.Tuple | ast.List):
        return [dotted(e) for e in target.elts]
    return [dotted(target)]


def _guard(mod: Module, call: ast.Call) -> ast.AST:
    """The ``if hasattr(..., "set_epoch")`` around ``call``, else ``call``."""
    for ancestor in mod.ancestors(call):
        if isinstance(ancestor, ast.FunctionDef | ast.AsyncFunctionDef):
            break
        if isinstance(ancestor, ast.If) and any(
            isinstance(sub, ast.Call) and tail(sub) == "hasattr" for sub in ast.walk(ancestor.test)
        ):
            return ancestor
    return call


def lost_batch_sampler_epochs(mod: Module) -> Iterator[tuple[ast.AST, str]]:
    """``set_epoch`` calls that accelerate's wrapper keeps from a custom batch sampler."""
    if "set_epoch" not in mod.identifiers or not mod.imports_any(frozenset({"accelerate"})):
        return
    samplers: dict[str, tuple[str, ast.Call]] = {}  # name -> (class, its call)
    loaders: dict[str, _Loader] = {}
    prepared: dict[str, tuple[_Loader, int]] = {}  # prepared name -> (loader, line)
    assigns = sorted(
        (n for n in mod.nodes if isinstance(n, ast.Assign)), key=lambda n: (n.lineno, n.col_offset)
    )
    for node in assigns:
        value = node.value
        names = _targets(node)
        if isinstance(value, ast.Call) and (cls := _class_of(mod, value)) is not None:
            samplers.update((n, (cls, value)) for n in names if n)
        elif isinstance(value, ast.Call) and tail(value) in LOADERS:
            given = argument(value, "batch_sampler", 4)
            found: tuple[str, ast.Call] | None = None
            if isinstance(given, ast.Call) and (cls := _class_of(mod, given)) is not None:
                found = (cls, given)
            elif given is not None and (name := dotted(given)) in samplers:
                found = samplers[name]
            if found is not None:
                loaders.update((n, _Loader(found[0], found[1])) for n in names if n)
        elif isinstance(value, ast.Call) and _accelerate_prepare(mod, value):
            args = list(value.args)
            if tail(value) == "prepare_data_loader":
                args = args[:1]
            for position, arg in enumerate(args):
                name = dotted(arg)
                if name in loaders and position < len(names) and (target := names[position]):
                    prepared[target] = (loaders[name], node.lineno)
    if not prepared:
        return
    lost: dict[int, list[tuple[ast.Call, str]]] = {}
    reached: set[int] = set()
    for call in mod.calls:
        if tail(call) != "set_epoch" or not isinstance(call.func, ast.Attribute):
            continue
        receiver = dotted(call.func.value) or ""
        if receiver in samplers:
            reached.add(id(samplers[receiver][1]))
            continue
        base = receiver.partition(".batch_sampler")[0]
        entry = prepared.get(base)
        if entry is not None and call.lineno > entry[1]:
            key = id(entry[0].built)
            if receiver in (base, f"{base}.batch_sampler"):
                lost.setdefault(key, []).append((call, base))
            elif receiver == f"{base}.batch_sampler.batch_sampler":
                reached.add(key)
        elif base in loaders and receiver == f"{base}.batch_sampler":
            reached.add(id(loaders[base].built))
    for loader, _line in prepared.values():
        key = id(loader.built)
        if key in reached or key not in lost:
            continue
        reached.add(key)  # one finding per batch sampler
        call, _base = lost[key][0]
        what = ast.unparse(call.func)
        built = [n for n, (_, c) in samplers.items() if c is loader.built]
        fix = f"{built[0]}.set_epoch(epoch)" if built else "the batch sampler you built"
        yield (
            _guard(mod, call),
            (
                f"{what}() never reaches {loader.sampler_class} (built at line "
                f"{loader.built.lineno}; it shuffles by its epoch): after accelerate's prepare "
                "the loader's batch_sampler is a BatchSamplerShard without set_epoch, and "
                "DataLoaderShard.set_epoch only reaches the wrapped batch sampler's .sampler, "
                "so every epoch repeats the same batches; call set_epoch on the batch sampler "
                f"object you built, which prepare wraps as it is ({fix})"
            ),
        )
