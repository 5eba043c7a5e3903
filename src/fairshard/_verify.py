"""Runtime guard: check that every rank agrees on the sampler's plan.

``verify(sampler)`` all-gathers a fingerprint of the sampler -- kind, config,
seed, epoch, world size, plan length and a hash of the plan's head -- and
raises naming the ranks and the field that differ. This catches the classic
"each rank seeded differently" failure, in which ranks overlap silently.
Setting the environment variable ``FAIRSHARD_VERIFY=1`` runs it at the start
of every epoch of every fairshard sampler.
"""

from __future__ import annotations

from typing import Any

from ._context import all_gather_objects, process_group_active
from ._errors import ConfigTypeError, RankMismatchError, check_real

__all__ = ["verify"]


def verify(sampler: Any, *, timeout: float | None = 60.0) -> dict[str, Any]:
    """All-gather the sampler's fingerprint and fail loudly if ranks disagree.

    Without an initialized process group there is nothing to compare and the
    local fingerprint is returned.

    Args:
        sampler: A fairshard sampler (anything with ``fingerprint()``).
        timeout: Seconds to wait for the other ranks (``None``: the process
            group's timeout). A missing rank raises instead of hanging.

    Returns:
        This rank's fingerprint.

    Raises:
        RankMismatchError: ranks disagree; the message names the field, the
            ranks on each side and their values, or a rank never arrived.
    """
    if not hasattr(sampler, "fingerprint"):
        raise ConfigTypeError(
            f"verify() needs a fairshard sampler, got {type(sampler).__name__}; wrap other "
            "samplers with fairshard.ShardedSampler"
        )
    if timeout is not None:
        timeout = check_real("timeout", timeout, minimum=0.0, strict_minimum=True,
                             fix="pass seconds to wait, or None for the process group's timeout")
    local: dict[str, Any] = sampler.fingerprint()
    if not process_group_active():
        return local
    gathered = all_gather_objects(local, timeout=timeout)
    for key in local:
        values = [fp.get(key) for fp in gathered]
        if len({repr(v) for v in values}) > 1:
            groups: dict[str, list[int]] = {}
            for rank, value in enumerate(values):
                groups.setdefault(repr(value), []).append(rank)
            detail = "; ".join(f"ranks {ranks}: {value}" for value, ranks in groups.items())
            raise RankMismatchError(
                f"ranks disagree on the sampler's {key}: {detail}. Every rank must build "
                "the sampler with the same arguments and seed (never seed=rank) and call "
                "set_epoch with the same epoch"
            )
    return local
