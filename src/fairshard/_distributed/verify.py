"""Runtime guard: check that every rank agrees on the sampler's plan.

``verify(sampler)`` all-gathers a fingerprint of each rank's sampler and
raises naming the ranks and the field that differ. This catches the classic
"each rank seeded differently" failure, in which ranks overlap silently, and
its cousins: a rank that forgot ``set_epoch``, a hard-coded ``rank=0``, a
world size that does not match the process group, a dataset of another size.

The fingerprint has two parts:

* **shared** fields every rank must have equal: sampler kind, the config
  (plain values, so a difference is reported as the field and each rank's
  value), seed, epoch, world size, plan length and a digest of the plan
  (sampled at its head, evenly through it and at its end: O(1) work however
  large the epoch);
* **own** fields: the rank the sampler was built for, its ``len()`` and a
  digest of its first items. Each rank recomputes what every other rank's
  first items must be from its own plan and partition, so a rank whose
  share differs is named even when all shared fields agree.

Setting ``FAIRSHARD_VERIFY=1`` runs ``verify`` at the start of every epoch
of every fairshard sampler whose world is the process group. PyTorch's
``DistributedSampler`` (anything with ``num_replicas``, ``rank``, ``seed``
and ``epoch``) can be verified too, on the fields it exposes.

NOTE (replicas): on a device mesh the ranks of one model-parallel group
(``tp``, ``cp``, ``pp``) hold *replicas*: the identical share of the same
data-parallel rank. ``verify(sampler, replicas=mesh["tp"])`` all-gathers the
whole fingerprint in that group first and requires it equal, then checks the
data-parallel group as above; the replica verdict travels with the second
gather, so every rank of a data-parallel group raises the same error and
none waits for a peer that already raised. ``FAIRSHARD_VERIFY=1`` does both
for a sampler built from a mesh (the replicas are the mesh dims its group
does not span).

NOTE (which samplers communicate): ``verify`` all-gathers only when the
sampler's ``num_replicas`` is the size of the group it checks against (the
default group, or ``group=``), the rule of ``world.talks_to_group``. A
sampler built for one process is returned unchecked (nothing to compare);
one built for another world size is an error raised locally, on every rank
that calls, without any collective. The per-epoch check of
``FAIRSHARD_VERIFY=1`` skips both silently: a sampler of a sub-group or of
one process is legitimate, and the check must never consume a collective
that the user's code makes on the other ranks.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._errors import ConfigTypeError, RankMismatchError, check_real
from .digest import digest
from .groups import describe_group, group_of, replica_group, resolve_group
from .world import all_gather_objects, group_size, process_group_active, talks_to_group

__all__ = [
    "FIRST_ITEMS",
    "SHARED_FIELDS",
    "disagreement",
    "fingerprint",
    "verify",
    "verify_epoch",
]

#: Fields every rank must agree on, in the order they are compared.
SHARED_FIELDS = ("kind", "world_size", "config", "seed", "epoch", "plan_length", "plan")
#: How many of a rank's first items enter its fingerprint.
FIRST_ITEMS = 16
_SAMPLED = 64

_FIX = (
    "Every rank must build the sampler with the same arguments and seed (never seed=rank), "
    "call set_epoch with the same epoch, and leave num_replicas/rank to the process group"
)


def _plan_positions(length: int) -> np.ndarray[Any, np.dtype[np.int64]]:
    """Head, evenly spaced and last positions of a plan of ``length``, sorted, unique."""
    if length == 0:
        return np.empty(0, dtype=np.int64)
    head = np.arange(min(length, _SAMPLED), dtype=np.int64)
    spread = np.linspace(0, length - 1, num=min(length, _SAMPLED)).astype(np.int64)
    return np.unique(np.concatenate([head, spread, [length - 1]]))


def _plain(item: Any) -> Any:
    """An index, a batch of indices or a batch of rows of indices, as nested lists of ints.

    Packed batches hold rows of different lengths, which no rectangular
    array can: each level is converted on its own.
    """
    if isinstance(item, list | tuple) or (isinstance(item, np.ndarray) and item.ndim > 0):
        return [_plain(i) for i in item]
    return int(item)


def _first_items(sampler: Any, rank: int) -> str:
    """Digest of the first items ``rank`` takes under this sampler's plan and partition."""
    partition = sampler.partition()
    count = min(FIRST_ITEMS, partition.num_items(rank))
    items = sampler.plan().items(partition.positions(rank, 0, count))
    return digest([_plain(i) for i in items])


def fingerprint(sampler: Any) -> dict[str, Any]:
    """This rank's fingerprint of ``sampler`` (plain, picklable values).

    Raises:
        ConfigTypeError: ``sampler`` is neither a fairshard sampler nor exposes
            ``num_replicas``, ``rank``, ``seed`` and ``epoch``.
    """
    if hasattr(sampler, "plan") and hasattr(sampler, "partition") and hasattr(sampler, "kind"):
        plan = sampler.plan()
        positions = _plan_positions(len(plan))
        return {
            "kind": sampler.kind,
            "world_size": sampler.num_replicas,
            "config": dict(sampler.full_config()),
            "seed": sampler.seed,
            "epoch": sampler.epoch,
            "plan_length": len(plan),
            "plan": digest([_plain(i) for i in plan.items(positions)]),
            "rank": sampler.rank,
            "len": len(sampler),
            "uneven": sampler.tail == "uneven",
            "first": _first_items(sampler, sampler.rank),
        }
    needed = ("num_replicas", "rank", "seed", "epoch")
    if not all(hasattr(sampler, name) for name in needed):
        raise ConfigTypeError(
            f"verify() needs a fairshard sampler or one with {', '.join(needed)} attributes "
            f"(like PyTorch's DistributedSampler), got {type(sampler).__name__}"
        )
    config = {k: getattr(sampler, k) for k in ("shuffle", "drop_last") if hasattr(sampler, k)}
    dataset = getattr(sampler, "dataset", None)
    if dataset is not None and hasattr(dataset, "__len__"):
        config["dataset_length"] = len(dataset)
    return {
        "kind": f"{type(sampler).__module__}.{type(sampler).__qualname__}",
        "world_size": sampler.num_replicas,
        "config": config,
        "seed": sampler.seed,
        "epoch": sampler.epoch,
        "plan_length": getattr(sampler, "total_size", None),
        "plan": None,
        "rank": sampler.rank,
        "len": len(sampler),
        "uneven": False,
        "first": None,
    }


def _describe(field: str, values: list[Any]) -> str:
    groups: dict[str, list[int]] = {}
    for rank, value in enumerate(values):
        groups.setdefault(repr(value), []).append(rank)
    ordered = sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[1][0]))
    parts = [
        f"{'rank' if len(ranks) == 1 else 'ranks'} {ranks[0] if len(ranks) == 1 else ranks} "
        f"{'has' if len(ranks) == 1 else 'have'} {field}={value}"
        for value, ranks in ordered
    ]
    return "; ".join(parts)


def disagreement(per_rank: list[Any]) -> tuple[str, str] | None:
    """The first field that ranks disagree on and who has which value, or ``None``.

    Args:
        per_rank: One flat mapping per rank, in rank order (a sampler's
            config, or any exchanged identity).

    Returns:
        For example ``("n", "ranks [0, 2] have n=1003; rank 1 has n=1000")``:
        the field and each rank's value, as ``load_state_dict`` names a
        config difference; ``None`` when the mappings are equal (or not
        mappings).
    """
    if not all(isinstance(c, dict) for c in per_rank):
        return None
    for key in sorted({k for c in per_rank for k in c}):
        values = [c.get(key, "<missing>") for c in per_rank]
        if len({repr(v) for v in values}) > 1:
            return key, _describe(key, values)
    return None


def _compare(local: dict[str, Any], gathered: list[dict[str, Any]], sampler: Any) -> None:
    for field in SHARED_FIELDS:
        values = [fp.get(field) for fp in gathered]
        if len({repr(v) for v in values}) > 1:
            detail = disagreement(values) if field == "config" else None
            if detail is not None:
                raise RankMismatchError(
                    f"ranks disagree on the sampler's config field {detail[0]!r}: {detail[1]}. "
                    f"{_FIX}"
                )
            raise RankMismatchError(
                f"ranks disagree on the sampler's {field}: {_describe(field, values)}. {_FIX}"
            )
    claimed = [fp["rank"] for fp in gathered]
    wrong = [r for r, c in enumerate(claimed) if c != r]
    if wrong:
        raise RankMismatchError(
            f"process ranks {wrong} built their samplers with rank={[claimed[r] for r in wrong]} "
            f"(claimed ranks in process order: {claimed}), so shares overlap; pass "
            f"rank=dist.get_rank() or leave rank=None. {_FIX}"
        )
    lengths = [fp["len"] for fp in gathered]
    spread = max(lengths) - min(lengths)
    if spread > (1 if local["uneven"] else 0):
        raise RankMismatchError(
            f"ranks disagree on the sampler's len: {_describe('len', lengths)}; unequal step "
            "counts hang DDP. Resume every rank from the same state_dict"
        )
    if local["first"] is None:
        return
    for rank, fp in enumerate(gathered):
        if fp["first"] != _first_items(sampler, rank):
            raise RankMismatchError(
                f"rank {rank}'s first items differ from what its share of the agreed plan "
                f"must be (checked on rank {sampler.rank}): its partition differs. {_FIX}"
            )


def _replica_verdict(local: dict[str, Any], replicas: Any, timeout: float | None) -> str | None:
    """All-gather ``local`` in ``replicas``; the error message if the replicas differ."""
    import torch

    pg = resolve_group(replicas, "replicas", data_parallel=False).pg
    gathered = all_gather_objects(local, timeout=timeout, group=pg)
    ranks = torch.distributed.get_process_group_ranks(pg)
    for field in (*SHARED_FIELDS, "rank", "len", "first"):
        values = [fp.get(field) for fp in gathered]
        if len({repr(v) for v in values}) > 1:
            who = "; ".join(
                f"global rank {g} has {field}={v!r}" for g, v in zip(ranks, values, strict=True)
            )
            hint = (
                "The sampler was built for a world that splits the replicas (the whole job?): "
                "pass group= the data-parallel group (e.g. group=mesh['dp'])"
                if field == "rank"
                else _FIX
            )
            return (
                f"the replicas in {describe_group(replicas)} (global ranks {ranks}) must hold "
                f"the identical share, but they disagree on {field}: {who}. {hint}"
            )
    return None


def verify(
    sampler: Any, *, timeout: float | None = 60.0, group: Any = None, replicas: Any = None
) -> dict[str, Any]:
    """All-gather the sampler's fingerprint and fail loudly if ranks disagree.

    Call it on every rank (it is a collective). Without an initialized
    process group, or for a sampler built for one process, there is nothing
    to compare and the local fingerprint is returned without communicating.

    Args:
        sampler: A fairshard sampler, or one with ``num_replicas``, ``rank``,
            ``seed`` and ``epoch`` attributes (PyTorch's ``DistributedSampler``).
        timeout: Seconds to wait for the other ranks (``None``: the process
            group's timeout). A missing rank raises instead of hanging.
        group: The process group the sampler shards for (default: the group
            it was built with, else the default group), e.g. the
            data-parallel group of a job that also shards its model.
        replicas: The ranks that must hold this rank's identical share: a
            process group or device mesh, e.g. ``mesh["tp"]`` (or
            ``mesh["cp", "tp"]``). Checked first, by the whole fingerprint.

    Returns:
        This rank's fingerprint.

    Raises:
        RankMismatchError: ranks disagree; the message names the field, the
            ranks on each side and their values, or a rank never arrived.
            Replicas that differ are named by global rank. Also (locally, with
            no collective) when the sampler was built for more than one rank
            but not for as many as ``group`` has.
        ConfigTypeError: ``sampler`` exposes nothing to compare, or
            ``replicas`` is neither a process group nor a device mesh.

    Example:
        >>> from fairshard import DistributedSampler
        >>> fp = verify(DistributedSampler(10, num_replicas=2, rank=1, seed=3))
        >>> fp["seed"], fp["rank"], fp["len"]
        (3, 1, 5)
    """
    if timeout is not None:
        timeout = check_real(
            "timeout",
            timeout,
            minimum=0.0,
            strict_minimum=True,
            fix="pass seconds to wait, or None for the process group's timeout",
        )
    local = fingerprint(sampler)
    if group is None:
        group = group_of(sampler)
    verdict = None if replicas is None else _replica_verdict(local, replicas, timeout)
    if not process_group_active() or local["world_size"] == 1:
        if verdict is not None:
            raise RankMismatchError(verdict)
        return local
    if not talks_to_group(local["world_size"], group):
        raise RankMismatchError(
            f"the sampler was built for num_replicas={local['world_size']} but the process "
            f"group has {group_size(group)} ranks, so verify cannot compare it with its peers "
            "(it makes no collective for a sampler of another world). Pass group= the "
            f"process group the sampler shards for, or build it for that group. {_FIX}"
        )
    exchanged = all_gather_objects((local, verdict), timeout=timeout, group=group)
    verdicts = [v for _, v in exchanged if v is not None]
    if verdicts:  # this rank's own replicas first, else the first group that failed
        raise RankMismatchError(verdict or verdicts[0])
    _compare(local, [fp for fp, _ in exchanged], sampler)
    return local


def verify_epoch(sampler: Any) -> None:
    """The per-epoch check of ``FAIRSHARD_VERIFY=1``: ``verify`` where the rule allows it.

    Only a sampler whose world is its group (the default process group, or
    the ``group=`` it was built with) is checked; samplers of one process or
    of another world are left alone (see the module's NOTE), so turning the
    check on never adds a collective that the other ranks do not make. A
    sampler built from a device mesh is also checked against its replicas.
    """
    group = group_of(sampler)
    if not talks_to_group(int(sampler.num_replicas), group):
        return
    replicas = replica_group(sampler)
    if sampler.num_replicas > 1 or replicas is not None:
        verify(sampler, group=group, replicas=replicas)
