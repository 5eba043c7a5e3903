"""The world size a sampler is built for, where the code says it (``FS109``).

A sampler over one replica (``DistributedSampler(ds, num_replicas=1,
rank=0)``) pads nothing: the one rank's share is the whole dataset. The
world size is read where it is a literal: at the sampler, or, through the
parameter of the builder function the sampler's ``num_replicas=`` is
(``init_data(..., world_size=1, rank=0)``), at the builder's call sites.
"""

from __future__ import annotations

import ast

from .names import Module, argument, tail

__all__ = ["ONE_REPLICA", "one_replica", "replica_parameter", "xla_world"]

#: The literal that says one replica, as a requirement's value is written.
ONE_REPLICA = ("1",)


def _world_argument(call: ast.Call) -> ast.expr | None:
    position = 1 if tail(call) == "DistributedSampler" else None
    return argument(call, "num_replicas", position) or argument(call, "world_size")


def one_replica(call: ast.Call) -> bool:
    """The sampler call gives ``num_replicas=1`` (or ``world_size=1``) literally."""
    value = _world_argument(call)
    return isinstance(value, ast.Constant) and type(value.value) is int and value.value == 1


def xla_world(mod: Module, call: ast.Call) -> bool:
    """The sampler's world size or rank comes from torch_xla: a TPU run's sampler.

    ``DistributedSampler(ds, num_replicas=xm.xrt_world_size(), rank=xm.get_ordinal())``
    (transformers' old ``get_tpu_sampler``, copied into many trees): only a TPU
    launch builds it; a tree that ships GPU launch lines never does.
    """
    position = 2 if tail(call) == "DistributedSampler" else None
    given = [_world_argument(call), argument(call, "rank", position)]
    return any(
        isinstance(value, ast.Call) and (mod.qualified(value.func) or "").startswith("torch_xla.")
        for value in given
    )


def replica_parameter(call: ast.Call, params: list[str]) -> str | None:
    """The parameter among ``params`` that the sampler's world size is passed straight from."""
    value = _world_argument(call)
    if isinstance(value, ast.Name) and value.id in params:
        return value.id
    return None
