"""Which ``...Sampler`` classes are data samplers (index streams for a ``DataLoader``).

Many libraries name other things samplers: mmdet's box samplers pick
proposals per image (``BaseSampler(metaclass=ABCMeta)``, a ``sample()``
method), diffusion code has noise samplers. Rules about the order of a
dataset's indices (``FS105``) concern only data samplers:

- a class whose base is a PyTorch sampler (``torch.utils.data.Sampler``,
  ``DistributedSampler``...) or a sampler of a package known to ship data
  samplers (:data:`SAMPLER_PACKAGES`), known by the import;
- a class whose base is a data sampler defined in the same file;
- a class whose base cannot be read (imported from the tree or unimported)
  but that iterates like one: it defines ``__iter__`` (itself or through a
  base of the file), or the file gives it to a ``DataLoader`` as
  ``sampler=``/``batch_sampler=``.

A class imported from elsewhere in the tree that defines ``__iter__`` only
in its base's module is not recognised (the file alone does not say).
"""

from __future__ import annotations

import ast

from .names import Module, argument, dotted, tail

__all__ = ["SAMPLER_PACKAGES", "is_data_sampler_class"]

#: Top-level packages whose ``...Sampler`` classes are data samplers.
SAMPLER_PACKAGES = frozenset({"torch", "timm", "mmengine", "fairshard", "torchdata"})
_TORCH_SAMPLERS = frozenset(
    {
        "Sampler",
        "BatchSampler",
        "DistributedSampler",
        "RandomSampler",
        "SequentialSampler",
        "SubsetRandomSampler",
        "WeightedRandomSampler",
    }
)


def _relative_names(mod: Module) -> set[str]:
    cached = mod.cache.get("relative_imports")
    if cached is None:
        cached = {
            alias.asname or alias.name
            for node in mod.nodes
            if isinstance(node, ast.ImportFrom) and node.level > 0
            for alias in node.names
        }
        mod.cache["relative_imports"] = cached
    return set(cached)


def _given_to_loader(mod: Module, name: str) -> bool:
    for call in mod.calls:
        if tail(call) not in {"DataLoader", "StatefulDataLoader"}:
            continue
        for keyword in ("sampler", "batch_sampler"):
            value = argument(call, keyword)
            if isinstance(value, ast.Call) and tail(value) == name:
                return True
            if isinstance(value, ast.Name) and any(
                isinstance(node, ast.Assign)
                and isinstance(node.value, ast.Call)
                and tail(node.value) == name
                and any(isinstance(t, ast.Name) and t.id == value.id for t in node.targets)
                for node in mod.nodes
            ):
                return True
    return False


def _iterates(mod: Module, cls: ast.ClassDef, seen: set[str]) -> bool:
    if any(
        isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) and item.name == "__iter__"
        for item in cls.body
    ):
        return True
    seen.add(cls.name)
    for base in cls.bases:
        name = dotted(base)
        for local in mod.classes.get(name or "", []):
            if local.name not in seen and _iterates(mod, local, seen):
                return True
    return False


def _base_kind(mod: Module, base: ast.expr, seen: set[str]) -> bool | None:
    """``True``: a data sampler base; ``False``: known not to be; ``None``: unread."""
    name = dotted(base)
    if name is None:
        return None
    local = [c for c in mod.classes.get(name, []) if c.name not in seen]
    if local:
        return any(_is_data_sampler(mod, c, seen) for c in local)
    qualified = mod.qualified(base) or name
    head = qualified.split(".")[0]
    if "." in qualified and name.split(".")[0] in mod.aliases:
        return head in SAMPLER_PACKAGES
    if name in _relative_names(mod):
        return None
    if name in _TORCH_SAMPLERS:
        return True  # a fragment that uses PyTorch's name without importing it
    return None


def _is_data_sampler(mod: Module, cls: ast.ClassDef, seen: set[str]) -> bool:
    seen.add(cls.name)
    kinds = [_base_kind(mod, b, seen) for b in cls.bases if (dotted(b) or "").endswith("Sampler")]
    if not kinds:
        return False
    if any(kind is True for kind in kinds):
        return True
    if all(kind is False for kind in kinds):
        return False
    return _iterates(mod, cls, set()) or _given_to_loader(mod, cls.name)


def is_data_sampler_class(mod: Module, node: ast.AST) -> bool:
    """``node`` is a class statement of a data sampler (see the module's docs)."""
    return isinstance(node, ast.ClassDef) and _is_data_sampler(mod, node, set())
