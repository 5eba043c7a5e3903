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

Loaders that a package builds with such a sampler inside are known too
(:data:`KNOWN_PADDING_LOADERS`):

- timm's ``create_loader`` (``timm/data/loader.py``, the same commit):
  ``if distributed and not isinstance(dataset, IterableDataset)``, then
  ``if is_training:`` a ``DistributedSampler`` (or ``RepeatAugSampler``),
  else ``OrderedDistributedSampler(dataset)`` ("will add extra duplicate
  entries ... will slightly alter validation results"). ``is_training``
  defaults to ``False``; it pads where ``distributed=`` is given and not
  ``False`` and ``is_training`` is unset or ``False`` (an evaluation
  loader by its own arguments). An ``is_training`` that cannot be read is
  left alone.
"""

from __future__ import annotations

import ast

from .names import Module, argument, is_constant

__all__ = ["KNOWN_PADDING", "KNOWN_PADDING_LOADERS", "known_padding", "known_padding_loader"]

#: (top-level package, class) -> the argument that turns the padding off, with
#: its position, or ``None`` where nothing does.
KNOWN_PADDING: dict[tuple[str, str], tuple[str, int] | None] = {
    ("timm", "OrderedDistributedSampler"): None,
    ("mmengine", "DefaultSampler"): ("round_up", 3),
}


#: (top-level package, loader builder) -> (the distributed switch, the training
#: flag with its position): the builder pads evaluation loaders when distributed.
KNOWN_PADDING_LOADERS: dict[tuple[str, str], tuple[str, tuple[str, int]]] = {
    ("timm", "create_loader"): ("distributed", ("is_training", 3)),
}


def _known(mod: Module, call: ast.Call) -> tuple[str, str] | None:
    qualified = mod.qualified(call.func)
    if qualified is None or "." not in qualified:
        return None
    parts = qualified.split(".")
    return parts[0], parts[-1]


def known_padding_loader(mod: Module, call: ast.Call) -> bool:
    """``call`` builds a known package's distributed evaluation loader on a padding sampler.

    ``create_loader(ds, ..., is_training=False, distributed=args.distributed)``
    imported from timm: distributed (any value but a literal ``False``) and
    not training (``is_training`` unset or a literal ``False``).
    """
    key = _known(mod, call)
    if key is None or key not in KNOWN_PADDING_LOADERS:
        return False
    switch, training = KNOWN_PADDING_LOADERS[key]
    distributed = argument(call, switch)
    if distributed is None or is_constant(distributed, False):
        return False
    flag = argument(call, *training)
    return flag is None or is_constant(flag, False)


def known_padding(mod: Module, call: ast.Call) -> bool:
    """``call`` builds a known package's padding sampler, with its padding on.

    The class is known by what the file imports (``from timm.data import
    OrderedDistributedSampler``, ``import timm`` then
    ``timm.data.OrderedDistributedSampler(...)``; an alias counts), never by
    its name alone: a class of the same name in the tree is read as code.
    """
    key = _known(mod, call)
    if key is None or key not in KNOWN_PADDING:
        return False
    switch = KNOWN_PADDING[key]
    if switch is None:
        return True
    value = argument(call, *switch)
    return value is None or is_constant(value, True)
