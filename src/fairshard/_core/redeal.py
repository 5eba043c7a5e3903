"""Re-dealing an epoch's unread positions over the replica groups of a quorum.

Under a per-step quorum (torchft's ``Manager``) replica groups leave and
join at step boundaries. A *deal* hands the plan positions an epoch has not
yet read to the groups now present; when the quorum changes, what each group
committed is taken out and the rest is dealt again over the new groups.
Everything here is a pure function of the plan length, the sorted group ids
and the committed step counts, so every process that knows the quorum
history computes the same deal, and a joining group that receives that
history with the model state computes it too.

Layout of one deal, for ``S = len(groups) * slots_per_group`` slots: group
``groups[g]`` owns slots ``g * slots_per_group ... (g + 1) * slots_per_group - 1``
and its step ``s`` reads ``pool[s * S + slot]`` (strided, as ``Partition``):
every step of the quorum reads the next ``S`` unread positions in plan order.
Every group takes the same number of steps (``num_steps``): with
``tail="pad"`` the last step wraps to the head of the pool (declared
padding, ``num_padded``), with ``tail="drop"`` the last ``M mod S`` unread
positions are left out (``num_dropped``).

NOTE (memory): the pool is an int64 array of the unread positions of the
current epoch (8 bytes a plan position). When every group of a deal
committed the same number of steps -- the case under torchft, where a group
that fell behind heals from a peer -- the new pool is a slice of the old
one (no copy).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import NDArray

from .._errors import ConfigError, check_choice, check_int

__all__ = ["Deal", "first_deal", "redeal", "unread"]

DealTail = Literal["pad", "drop"]
DEAL_TAILS: tuple[DealTail, ...] = ("pad", "drop")


def _sorted_groups(groups: Iterable[Hashable]) -> tuple[Hashable, ...]:
    out = tuple(sorted(groups))  # type: ignore[type-var]
    if not out:
        raise ConfigError("groups must name at least one replica group, got groups=()")
    if len(set(out)) != len(out):
        raise ConfigError(f"groups must be distinct, got groups={out!r}")
    return out


@dataclass(frozen=True, eq=False)
class Deal:
    """The unread positions of an epoch dealt over the groups of one quorum.

    Attributes:
        pool: (M,) sorted int64 plan positions still unread when the deal began.
        groups: The quorum's group ids, sorted.
        slots_per_group: Positions one group reads per step (its ranks times
            the items each rank takes a step).
        tail: ``"pad"`` or ``"drop"`` (see the module docstring).

    Example:
        >>> deal = first_deal(10, groups=[0, 1], slots_per_group=2)
        >>> deal.num_steps, deal.positions(1, 0, deal.num_steps).tolist()
        (3, [[2, 3], [6, 7], [0, 1]])
    """

    pool: NDArray[np.int64]
    groups: tuple[Hashable, ...]
    slots_per_group: int
    tail: DealTail = "pad"

    @property
    def num_slots(self) -> int:
        """Positions the whole quorum reads per step."""
        return len(self.groups) * self.slots_per_group

    @property
    def num_steps(self) -> int:
        """Steps every group of the quorum takes to finish the epoch under this deal."""
        m, s = len(self.pool), self.num_slots
        return -(-m // s) if self.tail == "pad" else m // s

    def num_padded(self) -> int:
        """Declared duplicate positions of the deal's last step (``pad`` only)."""
        return self.num_steps * self.num_slots - len(self.pool) if self.tail == "pad" else 0

    def num_dropped(self) -> int:
        """Unread positions no group takes (``drop`` only)."""
        return len(self.pool) - self.num_steps * self.num_slots if self.tail == "drop" else 0

    def group_index(self, group: Hashable) -> int:
        """Where ``group`` sits in ``groups``; raises if it is not in this quorum."""
        try:
            return self.groups.index(group)
        except ValueError:
            raise ConfigError(
                f"group={group!r} is not in this quorum's groups={self.groups!r}; "
                "re-deal with the quorum it joined"
            ) from None

    def offsets(self, group: Hashable, step: int) -> NDArray[np.int64]:
        """Offsets into ``pool`` of ``group``'s step ``step``, before the padding wrap.

        An offset ``>= len(pool)`` is a declared padding slot (it reads
        ``pool[offset % len(pool)]``).
        """
        check_int("step", step, minimum=0, maximum=max(0, self.num_steps - 1))
        g = self.group_index(group)
        first = step * self.num_slots + g * self.slots_per_group
        return np.arange(first, first + self.slots_per_group, dtype=np.int64)

    def positions(self, group: Hashable, begin: int, end: int) -> NDArray[np.int64]:
        """Plan positions ``group`` reads in its steps ``[begin, end)`` of this deal.

        Returns:
            (end - begin, slots_per_group) int64 array; row ``i`` is step ``begin + i``.
        """
        check_int("begin", begin, minimum=0)
        check_int("end", end, minimum=begin, maximum=self.num_steps)
        g = self.group_index(group)
        steps = np.arange(begin, end, dtype=np.int64)[:, None]
        slots = np.arange(self.slots_per_group, dtype=np.int64)[None, :] + g * self.slots_per_group
        offsets = steps * self.num_slots + slots  # (steps, slots_per_group)
        if offsets.size and len(self.pool):
            offsets %= len(self.pool)  # only the padded last step wraps
        out: NDArray[np.int64] = self.pool[offsets]
        return out


def first_deal(
    total: int, groups: Iterable[Hashable], slots_per_group: int, tail: DealTail = "pad"
) -> Deal:
    """The deal of a whole epoch of ``total`` plan positions over ``groups``."""
    check_int("total", total, minimum=0)
    check_int("slots_per_group", slots_per_group, minimum=1)
    check_choice("tail", tail, DEAL_TAILS)
    return Deal(np.arange(total, dtype=np.int64), _sorted_groups(groups), slots_per_group, tail)


def unread(deal: Deal, committed: Mapping[Hashable, int]) -> NDArray[np.int64]:
    """The positions of ``deal.pool`` no group read in the steps it committed.

    Args:
        deal: The deal the groups ran under.
        committed: Steps each group of ``deal`` committed under it; a group
            left out committed none.

    Returns:
        (U,) sorted int64 positions, a subset of ``deal.pool``.
    """
    for group in committed:
        deal.group_index(group)
    counts = [
        check_int(f"committed[{g!r}]", committed.get(g, 0), minimum=0, maximum=deal.num_steps)
        for g in deal.groups
    ]
    if len(set(counts)) == 1:
        return deal.pool[min(len(deal.pool), counts[0] * deal.num_slots) :]
    read = np.zeros(len(deal.pool), dtype=bool)
    for group, count in zip(deal.groups, counts, strict=True):
        taken = deal.positions(group, 0, count).ravel()
        read[np.searchsorted(deal.pool, taken)] = True
    return deal.pool[~read]


def redeal(
    deal: Deal,
    committed: Mapping[Hashable, int],
    groups: Iterable[Hashable],
    slots_per_group: int | None = None,
) -> Deal:
    """Deal what ``deal``'s groups have not committed over the new quorum's ``groups``.

    Args:
        deal: The deal the previous quorum ran under.
        committed: Steps each group of the previous quorum committed under
            ``deal`` (a group left out committed none: a group that failed
            before committing its steps has them dealt again).
        groups: The group ids of the new quorum, any order.
        slots_per_group: Positions a group reads per step in the new quorum
            (default: the previous deal's).

    Returns:
        The new quorum's deal: each of its groups' next positions are
        ``positions(group, 0, ...)``.
    """
    spg = deal.slots_per_group if slots_per_group is None else slots_per_group
    check_int("slots_per_group", spg, minimum=1)
    return Deal(unread(deal, committed), _sorted_groups(groups), spg, deal.tail)
