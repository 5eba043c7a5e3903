"""Resume after the data changed: a declared change and the rest of the epoch it leaves.

A state is refused when the dataset it was saved on has another size: the
positions it counts belong to another plan. ``DataChange`` declares what
happened in between -- items removed (by their old index; the kept ones keep
their order and close up) and items appended at the end -- and
``rest_of_epoch`` turns the saved epoch into what is left of it on the new
data.

NOTE (what the rest holds): the saved epoch's plan on the old data is
rebuilt (a pure function of the old size, seed and epoch), its first
``consumed`` positions -- every item any rank took -- stay consumed; the
unconsumed ones are mapped to their new indices, the removed ones dropped,
and the appended ones join them. With ``shuffle`` the rest is put in a
random order of the ``StreamId.MIGRATE`` stream (seed, epoch), so the new
items are spread over the rest of the epoch rather than bunched at its end;
without it the kept items keep their order and the new ones follow. The
rest is then a plan of its own, partitioned over the ranks of the resumed
job like any plan (equal steps; a ``"pad"`` tail recycles items of the rest,
never a removed or consumed one). The rest is materialized: one int64 per
item left, for that epoch only; the next epoch is the plain plan of the new
data.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from .._errors import ConfigError, ConfigTypeError, StateDictError, check_int
from .._random.seeding import StreamId, stream_generator
from .partition import Layout, Partition, Tail
from .plans import IndexPlan

__all__ = ["Change", "DataChange", "consumed_positions", "rest_of_epoch"]


class Change(Protocol):
    """A declared change of a sampler's data: ``DataChange``, or a mixture's ``MixtureChange``."""

    def to_plain(self, consumed: Any) -> dict[str, Any]:
        """The change and what the saved epoch consumed, as plain state values."""
        ...


@dataclass(frozen=True)
class DataChange:
    """What changed in a map-style dataset between a saved state and now.

    Args:
        old_size: The dataset's length when the state was saved.
        removed: Old indices of the items removed; the kept items keep their
            order and are renumbered ``0..`` without gaps.
        appended: Items added at the end (after the kept ones).

    Raises:
        ConfigError: a removed index outside ``[0, old_size)`` or repeated,
            a negative count, or nothing left.
        ConfigTypeError: a removed index that is not an int.

    Example:
        >>> change = DataChange(10, removed=[3, 7], appended=4)
        >>> change.new_size, change.new_index([0, 3, 4, 9]).tolist()
        (12, [0, -1, 3, 7])
    """

    old_size: int
    removed: tuple[int, ...] = ()
    appended: int = 0
    _removed: NDArray[np.int64] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        old = check_int("old_size", self.old_size, minimum=1)
        appended = check_int("appended", self.appended, minimum=0)
        values = [] if self.removed is None else list(self.removed)
        for i, v in enumerate(values):
            if isinstance(v, bool) or not isinstance(v, numbers.Integral):
                raise ConfigTypeError(
                    f"removed[{i}] must be an int (an old index), got {v!r} of type "
                    f"{type(v).__name__}"
                )
        removed = np.asarray(sorted(int(v) for v in values), dtype=np.int64)
        if removed.size and (removed[0] < 0 or removed[-1] >= old):
            bad = int(removed[0] if removed[0] < 0 else removed[-1])
            raise ConfigError(
                f"removed holds index {bad}, outside the old dataset's [0, {old}); give the "
                "old indices of the items removed"
            )
        if removed.size > 1 and np.any(np.diff(removed) == 0):
            dup = int(removed[1:][np.diff(removed) == 0][0])
            raise ConfigError(f"removed holds index {dup} twice; give each removed index once")
        if old - removed.size + appended < 1:
            raise ConfigError(
                f"DataChange leaves no item (old_size={old}, {removed.size} removed, "
                f"appended={appended}); a sampler needs data"
            )
        object.__setattr__(self, "old_size", old)
        object.__setattr__(self, "appended", appended)
        object.__setattr__(self, "removed", tuple(removed.tolist()))
        object.__setattr__(self, "_removed", removed)

    @property
    def new_size(self) -> int:
        """The dataset's length after the change."""
        return self.old_size - len(self.removed) + self.appended

    def new_index(self, old: Any) -> NDArray[np.int64]:
        """New index of each old index (``-1`` for a removed one)."""
        old = np.asarray(old, dtype=np.int64)
        shift = np.searchsorted(self._removed, old, side="left")  # removed below each
        gone = np.zeros(old.shape, dtype=bool)
        if self._removed.size:
            at = np.minimum(shift, self._removed.size - 1)
            gone = self._removed[at] == old
        return np.where(gone, -1, old - shift).astype(np.int64)

    @staticmethod
    def _hint(saved_config: dict[str, Any]) -> str:
        """How to declare a change from a state saved with ``saved_config`` (for a refusal)."""
        return f"DataChange({saved_config.get('n')!r}, removed=[...], appended=...)"

    def _check_sizes(self, saved_n: Any, n: Any, kind: str) -> None:
        """Raise unless the change leads from ``saved_n`` items (``None``: unchecked) to ``n``.

        Raises:
            ConfigError: naming the declared and the actual sizes.
        """
        if saved_n is not None and saved_n != self.old_size:
            raise ConfigError(
                f"migrate declares old_size={self.old_size} but the state was saved on "
                f"n={saved_n} items; declare the change from the state's dataset"
            )
        if n != self.new_size:
            raise ConfigError(
                f"migrate leads to {self.new_size} items (old_size={self.old_size}, "
                f"{len(self.removed)} removed, appended={self.appended}) but this "
                f"{kind} has n={n}; declare every item removed and appended"
            )

    def to_plain(self, consumed: int) -> dict[str, Any]:
        """The change and the consumed count as plain state values."""
        return {
            "old_size": self.old_size,
            "removed": list(self.removed),
            "appended": self.appended,
            "consumed": consumed,
        }

    @classmethod
    def from_plain(cls, value: Any) -> tuple[DataChange, int]:
        """``(change, consumed)`` from ``to_plain``'s values; a bad one is a ``StateDictError``."""
        keys = ["appended", "consumed", "old_size", "removed"]
        if not isinstance(value, dict) or sorted(value) != keys:
            raise StateDictError(
                f"state_dict['extra']['migrated'] must have the keys {keys}, got {value!r}"
            )
        try:
            change = cls(value["old_size"], tuple(value["removed"]), value["appended"])
            consumed = check_int("consumed", value["consumed"], minimum=0)
        except (ConfigError, ConfigTypeError, TypeError) as exc:
            raise StateDictError(f"state_dict['extra']['migrated'] is invalid: {exc}") from None
        if consumed > change.old_size:
            raise StateDictError(
                f"state_dict['extra']['migrated']['consumed']={consumed} exceeds its "
                f"old_size={change.old_size}"
            )
        return change, consumed


def consumed_positions(
    start: int, steps: int, world_size: int, total: int, layout: Layout, tail: Tail
) -> int:
    """Plan positions of a saved epoch every rank together took: a prefix ``[0, c)``.

    Args:
        start: The saved partition's first position.
        steps: Steps each rank took of it.
        world_size: Ranks it was saved on.
        total: The saved epoch's plan length (on the data it was saved with).
        layout: ``"strided"`` (the only layout whose consumed positions are a prefix).
        tail: The tail mode; a finished epoch consumed every position, dropped ones too.

    Raises:
        StateDictError: positions beyond the saved epoch.
    """
    if start > total:
        raise StateDictError(
            f"state_dict['start']={start} is beyond the saved epoch's {total} positions"
        )
    saved = Partition(total, world_size, layout, tail, start)
    if steps > saved.max_items:
        raise StateDictError(
            f"state_dict['steps']={steps} exceeds the {saved.max_items} items a rank takes in "
            f"that epoch on {world_size} ranks; the state does not match the data it declares"
        )
    return total if steps >= saved.max_items else saved.consumed_after(steps)


def rest_of_epoch(
    old_plan: IndexPlan, consumed: int, change: DataChange, *, seed: int, epoch: int, shuffle: bool
) -> NDArray[np.int64]:
    """``(m,)`` new indices left of the epoch after ``consumed`` positions of ``old_plan``.

    Args:
        old_plan: The saved epoch's plan on the old data (``len == change.old_size``).
        consumed: Plan positions every rank together took (a prefix).
        change: The declared change.
        seed: Root seed.
        epoch: The saved epoch.
        shuffle: Put the rest in a random order (module NOTE).
    """
    left = old_plan.take(np.arange(consumed, len(old_plan), dtype=np.int64))
    mapped = change.new_index(left)
    kept = mapped[mapped >= 0]
    first_new = change.old_size - len(change.removed)
    rest = np.concatenate([kept, np.arange(first_new, change.new_size, dtype=np.int64)])
    if shuffle and rest.size > 1:
        rng = stream_generator(StreamId.MIGRATE, epoch, seed)
        rest = rest[rng.permutation(rest.size)]
    return rest.astype(np.int64, copy=False)
