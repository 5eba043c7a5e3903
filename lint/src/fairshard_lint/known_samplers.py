"""Padding sampler classes of widely used packages, known by their import (FS109).

The tree's own padding classes are found by reading them (``split_rules``);
these come from installed packages, so their code is not in the tree. Each
pads every rank's share with samples from the head, as PyTorch's
``DistributedSampler(drop_last=False)`` does; read at their source:

- timm's ``OrderedDistributedSampler`` (``timm/data/distributed_sampler.py``,
  huggingface/pytorch-image-models ``aa4b5850c154``): ``indices +=
  indices[:(self.total_size - len(indices))]``, always (it has no option
  to drop or keep the tail). It keeps dataset order, so it is the sampler
  codebases pick for distributed evaluation.
- mmengine's ``DefaultSampler`` (``mmengine/dataset/sampler.py``,
  open-mmlab/mmengine ``254342938d9b``): with ``round_up=True``, the
  default, ``(indices * k)[:total_size]``; ``round_up=False`` adds
  nothing (each rank then takes ``indices[rank::world]``), so it pads only
  where ``round_up`` is unset or ``True``.

Not known here: loaders that a package builds itself (timm's
``create_loader(..., distributed=True)`` puts an ``OrderedDistributedSampler``
on evaluation loaders inside timm), which are calls, not samplers.
"""

from __future__ import annotations

import ast

from .names import Module, argument, is_constant

__all__ = ["KNOWN_PADDING", "known_padding"]

#: (top-level package, class) -> the argument that turns the padding off, with
#: its position, or ``None`` where nothing does.
KNOWN_PADDING: dict[tuple[str, str], tuple[str, int] | None] = {
    ("timm", "OrderedDistributedSampler"): None,
    ("mmengine", "DefaultSampler"): ("round_up", 3),
}


def known_padding(mod: Module, call: ast.Call) -> bool:
    """``call`` builds a known package's padding sampler, with its padding on.

    The class is known by what the file imports (``from timm.data import
    OrderedDistributedSampler``, ``import timm`` then
    ``timm.data.OrderedDistributedSampler(...)``; an alias counts), never by
    its name alone: a class of the same name in the tree is read as code.
    """
    qualified = mod.qualified(call.func)
    if qualified is None or "." not in qualified:
        return False
    parts = qualified.split(".")
    key = (parts[0], parts[-1])
    if key not in KNOWN_PADDING:
        return False
    switch = KNOWN_PADDING[key]
    if switch is None:
        return True
    value = argument(call, *switch)
    return value is None or is_constant(value, True)
