"""``OnlineMixtureSampler``: mixture weights that change at a step, during an epoch.

Online data mixing (DoReMi, ODM) moves the mixture weights every few steps
from per-domain losses. ``update_weights(w, epoch=e, position=p)`` makes the
plan of epoch ``e`` use ``w`` from position ``p`` on (and later epochs until
the next update): the epoch becomes segments ``[p_k, p_k+1)``, each with its
own interleave, and each source's draw count carries on across segments, so
a source's pass over its permutation continues where it was -- no item
repeats within a pass because the weights moved.

NOTE (identical on every rank): the update travels through one
identity-checked all-gather (``record_sync.sync_records``, as hard-example
records do): every rank must call it with the same epoch and position for
a sampler of the same config and seed, or every rank raises
``RankMismatchError`` naming the field; the weights every rank applies are
rank 0's, so float differences between ranks' loss statistics cannot split
the plan.

NOTE (prefix bound): within each segment, every prefix counted from the
segment start is within the interleave's bound (one sample) of the segment's
target. Across switches the errors add: after ``k`` switches, every source
is within ``k + 1`` samples of the piecewise target ``sum_k len_k * w_k`` (each
finished segment leaves at most one sample of error behind).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._errors import ConfigError, StateDictError, check_int, check_real
from .interleave import Interleave, quotas_from_weights
from .mixture import MixtureSampler
from .mixture_plan import MixturePlan
from .record_sync import sync_records
from .weights import as_weights, check_weights

__all__ = ["OnlineMixtureSampler", "SegmentedMixturePlan"]

Switch = tuple[int, int, tuple[float, ...]]  # (epoch, position, weights)


class SegmentedMixturePlan(MixturePlan):
    """A mixture epoch cut into segments, each with its own interleave.

    Args:
        segments: ``(start position, interleave)`` pairs, the first at 0.
        sizes, offsets, length, seed, epoch, shuffle: As for ``MixturePlan``.
    """

    def __init__(
        self,
        segments: Sequence[tuple[int, Interleave]],
        sizes: NDArray[np.int64],
        offsets: NDArray[np.int64],
        length: int,
        seed: int,
        epoch: int,
        shuffle: bool,
    ) -> None:
        super().__init__(segments[0][1], sizes, offsets, length, seed, epoch, shuffle)
        self.starts = np.array([p for p, _ in segments], dtype=np.int64)
        self.interleaves = [i for _, i in segments]
        ends = [*self.starts[1:].tolist(), length]
        # before[k, s]: draws of source s in the segments before segment k.
        self.before = np.zeros((len(segments), sizes.size), dtype=np.int64)
        running = np.zeros(sizes.size, dtype=np.int64)
        for k, (inter, end) in enumerate(zip(self.interleaves, ends, strict=True)):
            self.before[k] = running
            running = running + inter.draws_before(int(end - self.starts[k]))

    def segment_of(self, positions: NDArray[np.int64]) -> NDArray[np.int64]:
        """(m,) segment number of each position."""
        out: NDArray[np.int64] = np.searchsorted(self.starts, positions, side="right") - 1
        return out

    def _source_draw(
        self, positions: NDArray[np.int64]
    ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        seg = self.segment_of(positions)
        source = np.empty_like(positions)
        draw = np.empty_like(positions)
        for k in np.unique(seg).tolist():
            sel = np.flatnonzero(seg == k)
            s, d = self.interleaves[k].take(positions[sel] - self.starts[k])
            source[sel], draw[sel] = s, d + self.before[k, s]
        return source, draw

    def sources(self, positions: NDArray[np.int64]) -> NDArray[np.int64]:
        """(m,) source number of each position."""
        return self._source_draw(positions)[0]

    def take(self, positions: NDArray[np.int64]) -> NDArray[np.int64]:
        return self.items_of(*self._source_draw(positions))


class OnlineMixtureSampler(MixtureSampler):
    """A ``MixtureSampler`` whose weights may change at any plan position.

    Takes the arguments of ``MixtureSampler`` (``stopping="upsample"`` only:
    the other strategies end the epoch where the weights say, which a later
    update would move), plus ``sync_timeout``: seconds to wait for the other
    ranks in ``update_weights``.

    Example:
        >>> import numpy as np
        >>> s = OnlineMixtureSampler([100, 100], weights=[1, 1], num_samples=8,
        ...                          num_replicas=1, rank=0)
        >>> _ = s.update_weights([0, 1], epoch=0, position=4)
        >>> s.plan().sources(np.arange(8)).tolist()
        [0, 1, 0, 1, 1, 1, 1, 1]
    """

    kind = "OnlineMixtureSampler"

    def __init__(self, sources: Sequence[Any], weights: Any = None, **kwargs: Any) -> None:
        self.sync_timeout = check_real(
            "sync_timeout", kwargs.pop("sync_timeout", 300.0), minimum=0.0
        )
        stopping = kwargs.get("stopping", "upsample")
        if stopping != "upsample":  # before the base builds a plan of that length
            raise ConfigError(
                f"{self.kind} needs stopping='upsample', got stopping={stopping!r}: the "
                "other strategies end the epoch where the weights say, which an update would move"
            )
        # Set before the base constructor, whose checks may build a plan already.
        self._switches: list[Switch] = []
        super().__init__(sources, weights, **kwargs)

    def _migration_refusal(self) -> str | None:
        return (
            f"{self.kind}'s weights move within an epoch (update_weights), so the rest of a "
            "saved epoch on other sources has no one interleave to continue; use "
            "MixtureSampler with migrate=MixtureChange(...)"
        )

    def _known_plan_length(self) -> int:
        return int(self.num_samples)

    # ---------------------------------------------------------------- updates
    def update_weights(self, weights: Any, *, epoch: int, position: int) -> NDArray[np.float64]:
        """Use ``weights`` from plan position ``position`` of ``epoch`` on, on every rank.

        Call it on every rank with the same ``epoch`` and ``position`` (a
        collective when a process group exists); ``StepSampler.epoch_position``
        turns a step into them.

        Returns:
            The weights applied: rank 0's, on every rank.

        Raises:
            ConfigError: bad weights, a position past the epoch's end, or a
                switch before the latest one.
            RankMismatchError: ranks disagree on the epoch, position, config
                or seed (nothing is changed).
        """
        epoch = check_int("epoch", epoch, minimum=0)
        position = check_int(
            "position",
            position,
            minimum=0,
            maximum=int(self.num_samples) - 1,
            fix=f"the epoch has {self.num_samples} positions; use the next epoch's position 0",
        )
        array = self._checked(weights)
        if self._switches and (epoch, position) <= self._switches[-1][:2]:
            last = self._switches[-1]
            raise ConfigError(
                f"update_weights(epoch={epoch}, position={position}) is not after the latest "
                f"switch (epoch={last[0]}, position={last[1]}); weights change forward only"
            )
        gathered = sync_records(
            self,
            epoch,
            [float(w) for w in array.tolist()],
            True,
            action="update_weights",
            identity={"position": position, "switches": len(self._switches)},
        )
        chosen = tuple(float(w) for w in gathered[0])
        self._switches.append((epoch, position, chosen))
        self.changed_from = (epoch, position)
        self.forget_plans()
        return np.asarray(chosen, dtype=np.float64)

    def _checked(self, weights: Any) -> NDArray[np.float64]:
        array = as_weights(weights, "weights")
        if array.shape[0] != self.sizes.size:
            raise ConfigError(
                f"weights has {array.shape[0]} entries for {self.sizes.size} sources; pass one "
                "weight per source"
            )
        check_weights(array, "weights")
        empty = np.flatnonzero((array > 0) & (self.sizes == 0))
        if empty.size:
            raise ConfigError(f"source {int(empty[0])} is empty but has a positive weight")
        return array

    def switches(self) -> list[Switch]:
        """Every update so far: ``(epoch, position, weights)``."""
        return list(self._switches)

    # ------------------------------------------------------------------ plans
    def _segments(self, epoch: int) -> list[tuple[int, NDArray[np.int64]]]:
        """``(start, quotas)`` of each segment of ``epoch``."""
        start = self.quotas(epoch)
        for e, _, w in self._switches:
            if e < epoch:
                start = quotas_from_weights(np.asarray(w), self.max_period)
        segments = [(0, start)]
        for e, p, w in self._switches:
            if e == epoch:
                quotas = quotas_from_weights(np.asarray(w), self.max_period)
                segments = [*segments[:-1], (0, quotas)] if p == 0 else [*segments, (p, quotas)]
        return segments

    def _build_plan(self, epoch: int) -> SegmentedMixturePlan:
        segments = [(p, self._interleave(q)) for p, q in self._segments(epoch)]
        return SegmentedMixturePlan(
            segments,
            self.sizes,
            self.offsets,
            int(self.num_samples),
            self.seed,
            epoch,
            self.shuffle,
        )

    def proportions_at(self, epoch: int, position: int) -> NDArray[np.float64]:
        """(S,) target proportions in force at ``position`` of ``epoch``."""
        quotas = [q for p, q in self._segments(epoch) if p <= position][-1]
        result: NDArray[np.float64] = quotas / quotas.sum()
        return result

    # ------------------------------------------------------------------ state
    def _extra_state(self) -> dict[str, Any]:
        return {"switches": [[e, p, list(w)] for e, p, w in self._switches]}

    def _load_extra_state(self, extra: dict[str, Any]) -> None:
        unknown = set(extra) - {"switches"}
        if unknown:
            raise StateDictError(
                f"state_dict['extra'] has entries {sorted(unknown)} not saved here"
            )
        switches = [
            (int(e), int(p), tuple(float(v) for v in w)) for e, p, w in extra.get("switches", [])
        ]
        for _, _, w in switches:
            self._checked(list(w))
        self._switches = switches
        self.changed_from = switches[-1][:2] if switches else None
        self.forget_plans()
