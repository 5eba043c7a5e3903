"""``gather_in_order``: every rank's evaluation outputs, back in dataset order.

Ranks of an evaluation job hold outputs for different, possibly unequal,
parts of the dataset. ``all_gather`` needs equal shapes and returns rank
order; a padded ``DistributedSampler`` also scores some samples twice. This
helper sends the sizes first, pads every rank's rows to the longest, gathers,
trims, drops padding duplicates and puts each row where its dataset index
says -- the indices themselves are never sent: every rank recomputes every
rank's share from the sampler (``fairshard._evaluation.shares``).

NOTE (safe by construction): the function makes all of its collectives in a
fixed sequence -- one small metadata exchange, then one payload gather --
and checks happen *between* them on data every rank holds, so every rank
raises the same error instead of some ranks waiting forever. A failure on
one rank before the metadata exchange (wrong output size, bad type) is sent
to the others as part of the metadata.

Memory on each receiving rank: the full result (every sample's row) plus,
during the gather, one buffer of ``world_size x max share size`` rows
(bytes). A non-receiving rank (``dst`` given) holds only its own padded rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypeVar, overload

import numpy as np
import torch
import torch.distributed as dist
from numpy.typing import NDArray

from .._distributed.groups import group_of, resolve_group
from .._distributed.world import (
    _collective_device,
    all_gather_objects,
    complete,
    group_size,
    process_group_active,
    retain,
    talks_to_group,
)
from .._errors import ConfigError, RankMismatchError, check_int, check_real
from .codec import Encoded, Meta, decode, encode
from .shares import ShareMap, describe

__all__ = ["gather_in_order"]

A = TypeVar("A", bound=np.generic)


@dataclass(frozen=True)
class _Report:
    """What each rank tells the others before any payload moves."""

    error: str | None
    meta: Meta | None = None
    identity: tuple[Any, ...] = ()
    dst: int | None = None


@overload
def gather_in_order(
    outputs: torch.Tensor,
    sampler: Any,
    *,
    dst: int | None = None,
    timeout: float | None = None,
    group: Any = None,
) -> torch.Tensor | None: ...
@overload
def gather_in_order(
    outputs: NDArray[A],
    sampler: Any,
    *,
    dst: int | None = None,
    timeout: float | None = None,
    group: Any = None,
) -> NDArray[A] | None: ...
@overload
def gather_in_order(
    outputs: list[Any] | tuple[Any, ...],
    sampler: Any,
    *,
    dst: int | None = None,
    timeout: float | None = None,
    group: Any = None,
) -> list[Any] | None: ...
def gather_in_order(
    outputs: Any,
    sampler: Any,
    *,
    dst: int | None = None,
    timeout: float | None = None,
    group: Any = None,
) -> Any:
    """Gather every rank's outputs into one result in dataset order.

    Call it on every rank, after the evaluation loop, with what this rank
    produced for its share in the order the sampler yielded it: row ``i``
    belongs to the ``i``-th sample of the rank's share.

    Works on any process group backend (gloo with CPU tensors, nccl with CUDA
    tensors; inputs are moved to the collective's device and the result goes
    back to the input's device) and, without a process group, for a single
    process (``world_size == 1``).

    Args:
        outputs: This rank's results: a tensor or numpy array whose leading
            dimension is the share size, or a list with one picklable object
            per sample. A rank with an empty share may pass ``[]``.
        sampler: The sampler that produced the share: a fairshard sampler
            (``DistributedEvalSampler`` is meant for this) or PyTorch's
            ``DistributedSampler``, whose padding duplicates are dropped.
        dst: Return the result only on this rank (others get ``None`` and
            keep no copy); ``None`` returns it on every rank.
        timeout: Seconds to wait for the other ranks; ``None`` uses the
            process group's timeout.
        group: The data-parallel group to gather in (a ``ProcessGroup`` or
            ``DeviceMesh``); default: the group the sampler was built with,
            else the default group. ``dst`` is a rank of this group.

    Returns:
        Every sample's row, sorted by dataset index (ties -- samplers that
        draw with replacement -- in plan order): a tensor, numpy array or list
        like ``outputs``. With ``tail="uneven"`` or ``"pad"`` and no resume,
        row ``i`` is dataset sample ``i``.

    Raises:
        ConfigError: the leading dimension differs from the rank's share size
            (the message names both), the sampler dropped samples
            (``tail="drop"``), or ``dst``/``timeout`` are invalid.
        ConfigTypeError: ``outputs`` or ``sampler`` has an unsupported type.
        RankMismatchError: another rank failed one of those checks, ranks
            disagree on the sampler, dtype or shape, or a peer did not arrive
            within ``timeout``.

    Example:
        >>> import torch
        >>> from fairshard import DistributedSampler
        >>> sampler = DistributedSampler(5, num_replicas=1, rank=0, seed=1)
        >>> order = list(sampler)
        >>> gather_in_order(torch.tensor(order) * 10, sampler).tolist()
        [0, 10, 20, 30, 40]
    """
    group = group_of(sampler) if group is None else resolve_group(group).pg
    if not _talks(sampler, group):
        return _gather_single(outputs, sampler, dst, timeout, group)
    rank, world = dist.get_rank(group), dist.get_world_size(group)
    local: Encoded | None = None
    shares: ShareMap | None = None
    failure: BaseException | None = None
    try:
        _check_args(dst, timeout, world)
        shares = describe(sampler)
        shares.check_complete("gather_in_order")
        _check_world(shares, rank, world)
        local = _prepare(outputs, shares)
        report = _Report(None, local.meta, shares.identity, dst)
    except Exception as exc:  # every rank must still reach the exchange
        failure = exc
        report = _Report(f"{type(exc).__name__}: {exc}")
    reports: list[_Report] = all_gather_objects(report, timeout=timeout, group=group)
    if failure is not None:
        raise failure
    assert local is not None and shares is not None
    _check_reports(reports, rank)
    metas = [r.meta for r in reports]
    gathered = _exchange(local, metas, rank, world, dst, timeout, group)  # type: ignore[arg-type]
    if gathered is None:
        return None
    return _assemble(gathered, metas, shares, local)  # type: ignore[arg-type]


def _talks(sampler: Any, group: Any) -> bool:
    """Whether to gather over the process group (``world.talks_to_group``).

    A sampler whose ``num_replicas`` is not the group's size (one process
    evaluating alone, another world) is gathered locally, without any
    collective. A sampler without an int ``num_replicas`` goes to the group
    path, whose exchange reports the bad argument on every rank.
    """
    if not process_group_active():
        return False
    world = getattr(sampler, "num_replicas", None)
    return not isinstance(world, int) or talks_to_group(world, group)


def _gather_single(
    outputs: Any, sampler: Any, dst: int | None, timeout: float | None, group: Any
) -> Any:
    _check_args(dst, timeout, 1)
    shares = describe(sampler)
    shares.check_complete("gather_in_order")
    if shares.world_size != 1:
        where = (
            f"in a process group of {group_size(group)} ranks (fairshard talks only to the group "
            "a sampler's world is)"
            if process_group_active()
            else "without a process group"
        )
        raise ConfigError(
            f"gather_in_order was called {where}, but the sampler has "
            f"num_replicas={shares.world_size}; call torch.distributed.init_process_group "
            "first (torchrun sets up the environment), or build the sampler for one process"
        )
    local = _prepare(outputs, shares)
    return _assemble([local.data], [local.meta], shares, local)


def _check_args(dst: int | None, timeout: float | None, world: int) -> None:
    if dst is not None:
        check_int("dst", dst, minimum=0, maximum=world - 1, fix="dst is a rank of the group")
    if timeout is not None:
        check_real("timeout", timeout, minimum=0.0, strict_minimum=True)


def _check_world(shares: ShareMap, rank: int, world: int) -> None:
    if shares.world_size != world or shares.rank != rank:
        raise ConfigError(
            f"the sampler was built for rank={shares.rank} of num_replicas={shares.world_size}, "
            f"but this process is rank {rank} of a process group of {world}; build the sampler "
            "after init_process_group (or pass the group's rank and size)"
        )


def _prepare(outputs: Any, shares: ShareMap) -> Encoded:
    local = encode(outputs)
    expected = shares.size(shares.rank)
    if local.meta.rows != expected:
        raise ConfigError(
            f"outputs have {local.meta.rows} samples (leading dimension) but rank "
            f"{shares.rank}'s share has {expected} (len(sampler) at the start of the epoch); "
            "pass exactly one row per sample the sampler yielded, padding included"
        )
    return local


def _check_reports(reports: list[_Report], rank: int) -> None:
    """Raise the same error on every rank when the ranks cannot be combined."""
    failed = [(r, rep.error) for r, rep in enumerate(reports) if rep.error is not None]
    if failed:
        detail = "; ".join(f"rank {r}: {msg}" for r, msg in failed)
        raise RankMismatchError(
            f"gather_in_order failed on rank(s) {[r for r, _ in failed]}: {detail}"
        )
    for name, values in (
        ("sampler (kind, config, seed, epoch)", [rep.identity for rep in reports]),
        ("dst", [rep.dst for rep in reports]),
    ):
        if len(set(values)) > 1:
            other = next(r for r, v in enumerate(values) if v != values[0])
            raise RankMismatchError(
                f"ranks disagree on the {name}: rank 0 has {values[0]!r} and rank {other} has "
                f"{values[other]!r}; every rank must pass the same arguments (and call "
                "set_epoch with the same epoch)"
            )
    metas = [rep.meta for rep in reports if rep.meta is not None and rep.meta.rows > 0]
    for r, rep in enumerate(reports):
        meta = rep.meta
        assert meta is not None
        if (
            meta.rows
            and metas
            and (meta.kind, meta.dtype, meta.trailing)
            != (metas[0].kind, metas[0].dtype, metas[0].trailing)
        ):
            raise RankMismatchError(
                f"ranks passed different outputs: {metas[0].describe()} on one rank and "
                f"{meta.describe()} on rank {r}; every rank must produce the same type"
            )


def _exchange(
    local: Encoded,
    metas: list[Meta],
    rank: int,
    world: int,
    dst: int | None,
    timeout: float | None,
    group: Any = None,
) -> list[torch.Tensor] | None:
    """Pad this rank's byte rows to the longest rank's and gather them (to ``dst`` or all)."""
    device = _collective_device(dist.get_backend(group))
    ref = next((m for m in metas if m.rows > 0), None)
    receives = dst is None or dst == rank
    if ref is None:  # nothing anywhere: no payload collective at all
        return [local.data[:0]] * world if receives else None
    longest = max(m.length for m in metas if m.rows > 0)
    buffer = torch.zeros((longest, ref.width), dtype=torch.uint8, device=device)
    if local.meta.rows > 0:  # an empty rank may have passed [] or another empty shape
        buffer[: local.meta.length] = local.data.to(device)
    slots = [torch.empty_like(buffer) for _ in range(world)] if receives else None
    if dst is None:
        work = dist.all_gather(slots, buffer, group=group, async_op=True)
    else:
        to = dst if group is None else dist.get_global_rank(group, dst)
        work = dist.gather(buffer, slots, dst=to, group=group, async_op=True)
    retain(buffer, slots)
    complete(work, timeout, "gather_in_order's payload gather")
    return slots


def _assemble(
    gathered: list[torch.Tensor], metas: list[Meta], shares: ShareMap, local: Encoded
) -> Any:
    """Drop padding, then place every rank's rows at their dataset-order slot."""
    ranks = [r for r in range(shares.world_size) if shares.num_real(r) > 0]
    keys = [shares.indices(r, 0, shares.num_real(r)) for r in ranks]
    plan_positions = [shares.real_positions(r) for r in ranks]
    total = sum(k.size for k in keys)
    order = np.lexsort(
        (
            np.concatenate(plan_positions or [np.zeros(0, np.int64)]),
            np.concatenate(keys or [np.zeros(0, np.int64)]),
        )
    )
    dest = np.empty(total, dtype=np.int64)
    dest[order] = np.arange(total, dtype=np.int64)  # slot of the i-th kept row in rank order
    ref = next((metas[r] for r in ranks), local.meta)
    pieces = [(decode(metas[r], gathered[r]), k.size) for r, k in zip(ranks, keys, strict=True)]
    bounds = np.cumsum([0] + [k.size for k in keys])
    if ref.kind == "objects":
        out_list: list[Any] = [None] * total
        for (piece, count), begin in zip(pieces, bounds, strict=False):
            for slot, value in zip(
                dest[begin : begin + count].tolist(), piece[:count], strict=True
            ):
                out_list[slot] = value
        return out_list
    if ref.kind == "numpy":
        out_np = np.empty((total, *ref.trailing), dtype=ref.dtype)
        for (piece, count), begin in zip(pieces, bounds, strict=False):
            out_np[dest[begin : begin + count]] = piece[:count]
        return out_np
    device = local.device if local.meta.kind == "tensor" else gathered[0].device
    out = torch.empty((total, *ref.trailing), dtype=ref.dtype, device=device)
    for (piece, count), begin in zip(pieces, bounds, strict=False):
        where = torch.from_numpy(dest[begin : begin + count]).to(device)
        out[where] = piece[:count].to(device)
    return out
