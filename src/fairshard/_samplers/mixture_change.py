"""``MixtureChange``: what changed in a mixture's sources between a saved state and now.

A mixture's data are its sources. Between two runs sources may be removed
(by their old number; the kept ones keep their order and close up) and new
ones appended after them; the weights (or ``alpha``) may change freely --
the resumed sampler's are the new ones. A kept source keeps its size: its
items are the same items, so the walk over it that the saved epoch began
goes on (``MixtureSampler``'s NOTE on a migrated epoch).

NOTE (why whole sources): a source's walk is a keyed permutation of its
size; a source that grew or shrank walks another permutation, and the items
its current pass consumed could not be told apart from the rest without
rebuilding that pass on the old size. Declaring new items as a source of
their own (``appended=1``) keeps every walk exact.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._core import state as S
from .._core.migrate import DataChange
from .._errors import ConfigError, ConfigTypeError, StateDictError, check_int

__all__ = ["MixtureChange"]


@dataclass(frozen=True)
class MixtureChange:
    """Sources removed or appended (and weights changed) since a mixture's state was saved.

    Args:
        old_sizes: The sources' sizes when the state was saved, in order.
        removed: Old numbers of the sources removed.
        appended: Sources added after the kept ones.

    Raises:
        ConfigError / ConfigTypeError: a bad size, a removed number outside
            the old sources or repeated, or no source left.

    Example:
        >>> change = MixtureChange([30, 20, 10], removed=[1], appended=1)
        >>> change.new_count, change.source_keys().tolist()
        (3, [0, 2, 3])
    """

    old_sizes: tuple[int, ...]
    removed: tuple[int, ...] = ()
    appended: int = 0
    _sources: DataChange = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if isinstance(self.old_sizes, str | bytes) or not isinstance(self.old_sizes, Sequence):
            raise ConfigTypeError(
                f"old_sizes must be a sequence of the sources' sizes, got {self.old_sizes!r}"
            )
        sizes = tuple(
            check_int(f"old_sizes[{i}]", s, minimum=0) for i, s in enumerate(self.old_sizes)
        )
        if not sizes:
            raise ConfigError("old_sizes is empty; give the size of every source the state saw")
        sources = DataChange(len(sizes), tuple(self.removed), self.appended)
        object.__setattr__(self, "old_sizes", sizes)
        object.__setattr__(self, "removed", sources.removed)
        object.__setattr__(self, "appended", sources.appended)
        object.__setattr__(self, "_sources", sources)

    @property
    def new_count(self) -> int:
        """Sources after the change."""
        return self._sources.new_size

    def new_source(self, old: Any) -> NDArray[np.int64]:
        """New number of each old source number (``-1`` for a removed one)."""
        return self._sources.new_index(old)

    def source_keys(self) -> NDArray[np.int64]:
        """(new_count,) the key of each new source's walk: its old number, or one past them.

        A kept source walks on with the permutations keyed by its old number;
        the ``j``-th appended one takes ``len(old_sizes) + j``.
        """
        old = np.arange(len(self.old_sizes), dtype=np.int64)
        kept = old[self.new_source(old) >= 0]
        extra = np.arange(len(self.old_sizes), len(self.old_sizes) + self.appended)
        return np.concatenate([kept, extra]).astype(np.int64)

    @staticmethod
    def _hint(saved_config: dict[str, Any]) -> str:
        """How to declare a change from a state saved with ``saved_config`` (for a refusal)."""
        sizes = saved_config.get("sizes")
        shown = repr(sizes) if isinstance(sizes, list) else "old_sizes"
        return f"MixtureChange({shown}, removed=[...], appended=...)"

    def _check_sizes(self, saved_sizes: Any, sizes: NDArray[np.int64], kind: str) -> None:
        """Raise unless the change leads from ``saved_sizes`` (``None``: unchecked) to ``sizes``.

        Raises:
            ConfigError: the state's sizes are not ``old_sizes``, another number
                of sources, or a kept source of another size.
        """
        old = np.asarray(self.old_sizes, dtype=np.int64)
        if saved_sizes is not None and saved_sizes != (
            old.tolist() if old.size <= 64 else S.digest(old)
        ):
            raise ConfigError(
                f"migrate declares old_sizes={list(self.old_sizes)} but the state was saved "
                f"with sizes={saved_sizes!r}; declare the sizes the state's sources had"
            )
        if len(sizes) != self.new_count:
            raise ConfigError(
                f"migrate leads to {self.new_count} sources ({len(old)} old, "
                f"{len(self.removed)} removed, appended={self.appended}) but this {kind} has "
                f"{len(sizes)}; declare every source removed and appended"
            )
        kept = np.flatnonzero(self.new_source(np.arange(len(old))) >= 0)
        for new, was in enumerate(kept.tolist()):
            if int(sizes[new]) != int(old[was]):
                raise ConfigError(
                    f"source {new} (old source {was}) had {int(old[was])} items when the state "
                    f"was saved and has {int(sizes[new])} now; a mixture migrates whole "
                    "sources: declare the new items as a source of their own (appended=1) "
                    "and the old one as kept, or change a source's items at an epoch boundary"
                )

    def to_plain(self, consumed: list[int]) -> dict[str, Any]:
        """The change and the draws each old source made as plain state values."""
        return {
            "old_sizes": list(self.old_sizes),
            "removed": list(self.removed),
            "appended": self.appended,
            "consumed": consumed,
        }

    @classmethod
    def from_plain(cls, value: Any) -> tuple[MixtureChange, list[int]]:
        """``(change, consumed)`` from ``to_plain``'s values; a bad one is a ``StateDictError``."""
        keys = ["appended", "consumed", "old_sizes", "removed"]
        if not isinstance(value, dict) or sorted(value) != keys:
            raise StateDictError(
                f"state_dict['extra']['migrated'] must have the keys {keys}, got {value!r}"
            )
        try:
            change = cls(tuple(value["old_sizes"]), tuple(value["removed"]), value["appended"])
            draws = value["consumed"]
            if not isinstance(draws, list) or len(draws) != len(change.old_sizes):
                raise ConfigError(
                    f"consumed must list the draws of each of the {len(change.old_sizes)} "
                    f"old sources, got {draws!r}"
                )
            consumed = [check_int(f"consumed[{i}]", k, minimum=0) for i, k in enumerate(draws)]
        except (ConfigError, ConfigTypeError, TypeError) as exc:
            raise StateDictError(f"state_dict['extra']['migrated'] is invalid: {exc}") from None
        return change, consumed
