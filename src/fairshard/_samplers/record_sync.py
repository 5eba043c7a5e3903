"""The epoch-boundary exchange of ``HardExampleSampler``: records and identity together.

Every rank sends its loss records *and* what its sampler is (config, seed,
the epoch it is moving to) in one all-gather. Each rank then checks the
identities before touching a record, so ranks built differently -- a dataset
of another size on one rank, another temperature, another epoch -- all raise
the same ``RankMismatchError`` naming the field and each rank's value,
instead of some ranks failing on an out-of-range index while the others
carry on into the next collective and hang.

The exchange happens only when the sampler's world is the process group
(``world.talks_to_group``). A sampler built for one process keeps its
records to itself; one built for another world size with records to share
is an error: its ranks cannot agree on the scores without a group fairshard
may talk to, and silently diverging scores would make their shares overlap.
"""

from __future__ import annotations

from typing import Any

from .._distributed.groups import group_of
from .._distributed.verify import disagreement
from .._distributed.world import (
    all_gather_objects,
    group_size,
    process_group_active,
    talks_to_group,
)
from .._errors import ConfigError, RankMismatchError

__all__ = ["sync_records"]


def sync_records(sampler: Any, epoch: int, payload: Any, has_data: bool) -> list[Any]:
    """Every rank's ``payload`` in rank order, after checking that the ranks agree.

    Args:
        sampler: The ``HardExampleSampler`` (its ``full_config()``, ``seed``,
            ``kind``, ``num_replicas`` and ``sync_timeout`` are used).
        epoch: The epoch ``set_epoch`` is moving to.
        payload: This rank's loss records (any picklable value).
        has_data: Whether ``payload`` holds any record (a sampler without a
            group to exchange with may keep empty records to itself).

    Returns:
        One payload per rank, in rank order; ``[payload]`` when there is no
        group to exchange with.

    Raises:
        RankMismatchError: ranks disagree on the config, seed or epoch (the
            message names the field and each rank's value), or a rank did not
            arrive within ``sync_timeout``.
        ConfigError: the sampler has records but belongs to a world that is
            not the process group.
    """
    world, group = int(sampler.num_replicas), group_of(sampler)
    if world == 1 or not process_group_active():
        return [payload]
    if not talks_to_group(world, group):
        if not has_data:
            return [payload]
        raise ConfigError(
            f"{sampler.kind} was built for num_replicas={world} but the process group has "
            f"{group_size(group)} ranks, so its ranks cannot share their loss records (fairshard "
            "makes collectives only on the group a sampler's world is) and their scores "
            "would diverge; build it for the whole group (num_replicas=None) or for one "
            "process (num_replicas=1)"
        )
    identity = {**sampler.full_config(), "seed": sampler.seed, "epoch": epoch}
    gathered = all_gather_objects((identity, payload), timeout=sampler.sync_timeout, group=group)
    detail = disagreement([g[0] for g in gathered])
    if detail is not None:
        raise RankMismatchError(
            f"{sampler.kind}.set_epoch: ranks disagree on the sampler's {detail[0]}: "
            f"{detail[1]}; build the sampler with "
            "the same arguments (the same dataset) on every rank and call set_epoch with the "
            "same epoch; no scores were changed"
        )
    return [g[1] for g in gathered]
