"""``StepSampler``: any planned sampler as one endless, step-addressed stream.

The epochs of a family's plan are chained into one stream of positions
(epoch ``e`` holds ``len(plan(e))`` of them); ``SkipRanges`` removes declared
positions; ``BatchSchedule`` cuts what is left into global steps; ``deal``
gives each rank and micro-batch its part (see ``steps``). Every map is
arithmetic, so the state is one number -- the samples consumed -- and any
step is reached in O(1) (plus a binary search over the schedule), from a
saved state or from a step count alone.

NOTE (units): a "sample" is one plan item: a dataset index for an index
family, a whole batch for a batch family (then ``micro_batch_size`` counts
batches per rank and micro-step, usually 1, and ``global_batch_size``
batches per step).

NOTE (tails): epochs follow each other without a tail: a step may span the
end of one epoch and the start of the next, so nothing is padded or dropped
and the family's own ``tail`` and ``layout`` are not used.
"""

from __future__ import annotations

import itertools
import operator
import sys
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
from numpy.typing import NDArray
from torch.utils.data import Sampler

from .._errors import ConfigError, ConfigTypeError, StateDictError, check_int
from . import state as S
from .base import PlannedSampler
from .chain import EpochChain
from .migrate import Change
from .migrating import K_MIGRATED, Migration
from .registry import Registered
from .resume import (
    _HOLD,
    driven_by_lightning,
    find_driver,
    loaded_by_torchdata,
    refuse,
    unsafe_gap,
)
from .steps import BatchSchedule, SkipRanges, StepIndices, deal

__all__ = ["StepSampler"]


class _NoEpochs(ConfigError, AttributeError):
    """A step stream asked for ``set_epoch``: a ``ConfigError`` that ``hasattr`` reads as absent."""


_FIRST_CHUNK, _CHUNK = 64, 16384  # items a rank evaluates at once: first, at most


class StepSampler(Registered, Sampler[Any], register=False):
    """An endless, step-addressed stream over a planned sampler's epochs.

    Args:
        sampler: A fairshard index or batch sampler; its plans, seed, rank and
            world size are used (not its tail, layout or epoch).
        micro_batch_size: Items per rank per micro-batch (``b``).
        global_batch_size: Items per optimizer step (``G = W * b * A``); or
        schedule: a ``BatchSchedule`` (ramp-up, steps) instead.
        skip: Ranges ``[a, b)`` of stream positions no rank takes.
        start_step: Step to start from (a resume from a step count alone).
        with_epoch: Yield ``(epoch, item)`` instead of ``item``.

    Example:
        >>> import fairshard
        >>> inner = fairshard.DistributedSampler(10, num_replicas=2, rank=0, seed=1)
        >>> steps = fairshard.StepSampler(inner, micro_batch_size=2, global_batch_size=8)
        >>> steps.accumulation_steps(0), len(steps.indices_at(3).ranks[0])
        (2, 4)
    """

    kind: ClassVar[str] = "StepSampler"

    def __init__(
        self,
        sampler: PlannedSampler[Any, Any],
        *,
        micro_batch_size: int,
        global_batch_size: int | None = None,
        schedule: BatchSchedule | None = None,
        skip: Iterable[Sequence[int]] = (),
        start_step: int = 0,
        with_epoch: bool = False,
    ) -> None:
        if not isinstance(sampler, PlannedSampler):
            raise ConfigTypeError(
                f"sampler must be a fairshard sampler with a plan, got {type(sampler).__name__}; "
                "wrap a torch sampler in fairshard.ShardedSampler first (a ShardedIterable "
                "stream has no plan over positions and resumes by its own state)"
            )
        if sampler._learns_at_epoch:
            raise ConfigError(
                f"{sampler.kind} folds what it learned into its plan at set_epoch, which an "
                "endless stream never calls, so its records would be ignored; train it by "
                "epochs (set_epoch before each), or use OnlineMixtureSampler, whose weights "
                "change at any step"
            )
        if sampler._endless_refusal is not None:
            raise ConfigError(sampler._endless_refusal)
        if (global_batch_size is None) == (schedule is None):
            raise ConfigError(
                "give exactly one of global_batch_size= (a constant size) or schedule= "
                f"(a BatchSchedule), got global_batch_size={global_batch_size!r}, "
                f"schedule={schedule!r}"
            )
        self.sampler = sampler
        sampler._endless = True
        sampler.forget_plans()  # a plan built for the epoch loop may be laid out for its world
        sampler._watch_plans(self._plans_changed)
        self.micro_batch_size = check_int("micro_batch_size", micro_batch_size, minimum=1)
        self.schedule = schedule or BatchSchedule.constant(int(global_batch_size or 0))
        self.num_replicas, self.rank, self.seed = sampler.num_replicas, sampler.rank, sampler.seed
        self._unit_name = (
            f"num_replicas * micro_batch_size ({self.num_replicas} * {self.micro_batch_size})"
        )
        unit = self.num_replicas * self.micro_batch_size
        fits = self.schedule.fits_from(unit)
        if fits is None:  # not even the last size splits: no resume point helps
            self.schedule.check_divides(unit, self._unit_name)
        # Sizes before this step do not split on this world: it may only resume after them.
        self._fits_from: int = fits or 0
        self.skip = SkipRanges(skip)
        self.with_epoch = bool(with_epoch)
        self._chain = EpochChain(sampler)
        self._consumed = self.schedule.first(check_int("start_step", start_step, minimum=0))
        # (samples before the live chunk, its items, items per step, their live iterator)
        self._live: tuple[int, list[Any], int, Iterator[Any]] | None = None
        self._driver: Any = None

    # --------------------------------------------------------------- addressing
    def _items(self, numbers: NDArray[np.int64]) -> tuple[list[Any], list[int], list[int]]:
        """Items, epochs and stream positions of consumed-sample numbers (sorted runs)."""
        positions = self.skip.position(numbers)
        items, epochs = self._chain.items(positions)
        return items, epochs.tolist(), positions.tolist()

    def accumulation_steps(self, step: int) -> int:
        """Micro-batches per rank in step ``step``: ``size(step) / (W * b)``.

        Raises:
            ConfigError: the step's size does not split into micro-batches on
                this world (a ramp's first steps on a larger world).
        """
        unit = self.num_replicas * self.micro_batch_size
        self.schedule.check_step(step, unit, self._unit_name)
        return self.schedule.size(step) // unit

    def _check_world_from(self, step: int, what: str) -> None:
        """Refuse to run from ``step`` on a world that cannot split a size from there on."""
        if step < self._fits_from:
            bad = self.schedule.size(self._fits_from - 1)
            raise ConfigError(
                f"{what} is step {step}, but global batch size {bad} of step "
                f"{self._fits_from - 1} is not a multiple of {self._unit_name} = "
                f"{self.num_replicas * self.micro_batch_size}: this world can train from "
                f"step {self._fits_from} on (sample {self.schedule.first(self._fits_from)}); "
                "resume it from a state saved at or after that step, start the job on a "
                "world whose num_replicas * micro_batch_size divides every size, or use a "
                "smaller micro_batch_size"
            )

    def indices_at(self, step: int, *, num_replicas: int | None = None) -> StepIndices:
        """What every rank takes in global step ``step`` -- O(1), no replay.

        Args:
            step: The step.
            num_replicas: Another world size to deal the step to (default:
                this sampler's); the union over ranks does not depend on it.
        """
        world = self.num_replicas if num_replicas is None else num_replicas
        world = check_int("num_replicas", world, minimum=1)
        self.schedule.check_step(
            step, world * self.micro_batch_size, "num_replicas * micro_batch_size"
        )
        first, size = self.schedule.first(step), self.schedule.size(step)
        ranks, epochs, positions = [], [], []
        for r in range(world):
            items, eps, pos = self._items(deal(first, size, 0, world, r, self.micro_batch_size))
            ranks.append(items)
            epochs.append(eps)
            positions.append(pos)
        return StepIndices(step, first, size, ranks, epochs, positions)

    def epoch_position(self, step: int) -> tuple[int, int]:
        """``(epoch, plan position)`` of the first sample of step ``step``.

        Where a plan change that starts at that step goes (for example
        ``OnlineMixtureSampler.update_weights(w, epoch=..., position=...)``).
        """
        consumed = self.schedule.first(step)
        at = self.skip.position(np.array([consumed], dtype=np.int64))
        epochs, local = self._chain.locate(at)
        return int(epochs[0]), int(local[0])

    def step_of(self, consumed: int) -> int:
        """The step that consumed-sample number ``consumed`` belongs to."""
        return self.schedule.locate(consumed)[0]

    def positions_of_steps(self, begin: int, end: int) -> tuple[int, int]:
        """The stream positions ``[a, b)`` steps ``[begin, end)`` read: a ``skip`` range."""
        first, last = self.schedule.first(begin), self.schedule.first(end)
        a = int(self.skip.position(np.array([first], dtype=np.int64))[0])
        b = int(self.skip.position(np.array([last - 1], dtype=np.int64))[0]) + 1
        return a, b

    # ------------------------------------------------- what an epoch loop asks
    def __len__(self) -> int:
        """Refused: the stream is endless (a ``TypeError``, as for any unsized iterable)."""
        raise ConfigTypeError(
            "a StepSampler is endless and has no len(); count steps instead: run the loop "
            "for max_steps optimizer steps (Lightning's Trainer(max_steps=...), a Trainer's "
            "max_steps), taking accumulation_steps(step) micro-batches for step `step`; "
            "for an epoch loop with a length, use the inner sampler itself"
        )

    def __bool__(self) -> bool:
        """A stream is always truthy (a truth test must not ask for its length)."""
        return True

    if not TYPE_CHECKING:  # (a type checker still sees every other missing name)

        def __getattr__(self, name: str) -> Any:
            """Name what to use instead of an epoch loop's ``set_epoch``.

            An ``AttributeError`` still, so ``hasattr(sampler, "set_epoch")`` is
            false and a framework's epoch loop (Lightning, accelerate, a
            ``Trainer``) leaves the stream alone, as it does any sampler without
            epochs.
            """
            if name == "set_epoch":
                raise _NoEpochs(
                    "a StepSampler has no epochs to set: it chains the inner sampler's epochs "
                    "into one stream by itself; to move to a point of the stream pass "
                    "start_step= (or load_state_dict), to see the epoch of each item build it "
                    "with with_epoch=True, and for an epoch loop call set_epoch on the inner "
                    "sampler instead of wrapping it"
                )
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    # ---------------------------------------------------------------- iteration
    @property
    def consumed_samples(self) -> int:
        """Samples (all ranks) consumed, in whole micro-batches of what was handed out."""
        if self._live is None:
            return self._consumed
        before, items, _, live = self._live
        handed = len(items) - operator.length_hint(live)
        return (
            before + (handed // self.micro_batch_size) * self.num_replicas * self.micro_batch_size
        )

    def __iter__(self) -> Iterator[Any]:
        self._consumed = self.consumed_samples
        self._live = None
        self._check_world_from(self.step_of(self._consumed), "the start of this pass")
        self._driver = find_driver(sys._getframe(1))
        # NOTE (speed): the items pass through C-level iterators only (a chain of
        # list iterators, one per chunk of steps), as in ``PlannedSampler``; no
        # Python frame runs per item or per step. A plan change is seen through
        # ``_watch_plans``, which cuts the live chunk at the end of its step.
        return itertools.chain.from_iterable(self._chunks(self._consumed))

    def _plans_changed(self) -> None:
        """The inner plans changed: end the live chunk at the end of the step it is in."""
        if self._live is None:
            return
        _, items, per, live = self._live
        handed = len(items) - operator.length_hint(live)
        del items[-(-handed // per) * per :]  # its list iterator stops there

    def _chunks(self, consumed: int) -> Iterator[Iterator[Any]]:
        """Lists of the items of several whole steps (one vectorized chunk each)."""
        step, offset = self.schedule.locate(consumed)
        unit = self.num_replicas * self.micro_batch_size
        if offset % unit:
            raise StateDictError(
                f"the resume point is {offset} samples into step {step}, not a whole number "
                f"of micro-batches of num_replicas * micro_batch_size = {unit}; resume at a "
                "step boundary (state_dict(step=...))"
            )
        chunk, cap = _FIRST_CHUNK, _CHUNK
        version = self.sampler._plan_version
        while True:
            first, size = self.schedule.first(step), self.schedule.size(step)
            if self.sampler._plan_version != version:  # the plans changed (new weights)
                self._check_change(first + offset)
                version = self.sampler._plan_version
            world = self.num_replicas
            per = (size - offset) // world  # this rank's items in the (rest of the) step
            # Several steps of one size at once (one vectorized chunk).
            end = self.schedule.segment_end(step)
            # (Plans of unknown length are walked epoch by epoch: no read-ahead there.)
            count = max(1, chunk // max(1, per)) if self._chain.known is not None else 1
            # Start small (a resume reads little), then double up to the plan's own chunk
            # (larger arrays fall out of the CPU caches: slower per item, not faster).
            chunk = min(2 * chunk, cap)
            if end is not None:
                count = min(count, end - step)
            if offset:
                count = 1
            # NOTE (one stride): ``deal`` gives micro-batch m, slot j of a step the number
            # first + m*W*b + j*W + rank = first + rank + W*(m*b + j), and the next step
            # starts size = A*W*b later, so the chunk's numbers, in this rank's order,
            # are first + offset + rank + W*t for t < count * per: one arange.
            begin = first + offset + self.rank
            numbers = np.arange(begin, begin + world * count * per, world, dtype=np.int64)
            items, epochs = self._chain.items(self.skip.position(numbers))
            if epochs.size:
                cap = min(_CHUNK, self.sampler.plan(int(epochs[-1])).max_chunk)  # (cached)
            if self.with_epoch:
                items = list(zip(epochs.tolist(), items, strict=True))
            live = iter(items)
            # Micro-batch k of the chunk is consumed numbers first + offset + k*W*b
            # (the chunk's steps have one size and follow each other).
            self._live = (first + offset, items, per, live)
            yield live
            step, offset = step + len(items) // per, 0  # fewer if a plan change cut it

    def _check_change(self, consumed: int) -> None:
        """Refuse a plan change that reaches back into samples already handed out."""
        changed = self.sampler.changed_from
        if changed is None:
            return
        at = self._chain.stream_position(*changed)
        next_position = int(self.skip.position(np.array([consumed], dtype=np.int64))[0])
        if at < next_position:
            raise ConfigError(
                f"{self.sampler.kind}'s plan changed from epoch {changed[0]} position "
                f"{changed[1]} (stream position {at}), but this rank already handed out the "
                f"samples up to stream position {next_position} under the old plan (a "
                "DataLoader with workers reads ahead); make the change start at a later "
                "step (at least prefetch_factor * num_workers micro-batches ahead), or "
                "use num_workers=0"
            )

    # -------------------------------------------------------------------- state
    def full_config(self) -> dict[str, Any]:
        """What the stream depends on, as plain values (the world layout excluded)."""
        return {
            "sampler": self.sampler.kind,
            "sampler_config": self.sampler._config(),
            "schedule": self.schedule.to_config(),
        }

    def state_dict(self, step: int | None = None) -> dict[str, Any]:
        """Plain, sealed state: the samples consumed and the ranges skipped so far.

        Args:
            step: Steps the loop completed; exact under any loader. ``None``
                counts the whole micro-batches this rank handed out, which
                is what the loop took with ``num_workers=0`` and under a
                ``StatefulDataLoader``.

        Raises:
            ConfigError: ``step`` is ``None`` while a multi-worker
                ``DataLoader`` holds prefetched items.
        """
        if step is not None:
            consumed = self.schedule.first(check_int("step", step, minimum=0))
        else:
            hold = self.__dict__.get(_HOLD)
            if hold is not None and hold.live:  # a wrapper fetches ahead (Ray's prepared loader)
                raise ConfigError(
                    f"{self.kind}.state_dict() while {hold.who} fetches the next batch before "
                    "the loop asks for it: this state would skip a batch on resume. Save "
                    "sampler.state_dict(step=<steps the loop completed>), exact under any loader"
                )
            # torchdata's own snapshot (StatefulDataLoader) is exact: it is taken per batch.
            snapshot = loaded_by_torchdata(sys._getframe(1))
            gap = (
                unsafe_gap(self._driver, False, snapshot=snapshot)
                if self._live is not None
                else None
            )
            if gap is not None:
                raise refuse(self.kind, self.consumed_samples, gap, self._driver.num_workers)
            consumed = self.consumed_samples
        at = int(self.skip.position(np.array([consumed], dtype=np.int64))[0])
        epoch = int(self._chain.locate(np.array([at], dtype=np.int64))[0][0])
        return S.seal(
            {
                S.K_KIND: self.kind,
                S.K_CONFIG: self.full_config(),
                S.K_SEED: self.seed,
                S.K_EPOCH: epoch,
                S.K_START: 0,
                S.K_STEPS: consumed,
                S.K_WORLD: self.num_replicas,
                S.K_RANK: self.rank,
                S.K_EXTRA: {
                    "step": self.step_of(consumed),
                    "skip": [list(r) for r in self.skip.prefix_until(at)],
                    "sampler": self.sampler._extra_state(),  # learned state: scores, weights
                    **self._origin_extra(epoch),
                },
            }
        )

    def _origin_extra(self, epoch: int) -> dict[str, Any]:
        """After a resume on changed data: where ``epoch`` starts, and its migration."""
        if self._chain.origin is None:
            return {}
        origin = {"origin": [epoch, self._chain.stream_position(epoch, 0)]}
        return {**origin, **self.sampler._migration_extra(epoch)}

    @staticmethod
    def _past_end(skip: SkipRanges, consumed: int) -> int:
        """One past the stream position of the last of ``consumed`` samples (0: none)."""
        if consumed == 0:
            return 0
        return int(skip.position(np.array([consumed - 1], dtype=np.int64))[0]) + 1

    def load_state_dict(self, state_dict: dict[str, Any], migrate: Change | None = None) -> None:
        """Resume where ``state_dict`` was saved, on any world size and micro-batch size.

        Args:
            state_dict: A ``StepSampler`` state.
            migrate: The declared change (``DataChange``; ``MixtureChange``
                for a mixture) when the inner sampler's data changed since the
                state was saved: the steps go on from the saved one; the rest
                of the saved epoch holds what the inner family leaves of it
                (``_core.migrating``), then the new data's epochs follow.

        Raises:
            StateDictError: the state is foreign or tampered, was saved under
                another config or seed, or this sampler's ``skip`` ranges
                differ from the state's before its resume point.
            ConfigError: Lightning restores it through a ``StatefulDataLoader``;
                or ``migrate`` does not lead from the state's data to the inner
                sampler's, or the inner family cannot migrate.
        """
        if driven_by_lightning():
            # NOTE (why refused): Lightning fetches one batch ahead of the step it
            # trains from a loader without len() (this endless stream), so the loader
            # state in its checkpoint is a batch past the step: resumed, it skips one.
            raise ConfigError(
                "Lightning restores this StepSampler from a StatefulDataLoader state taken "
                "one batch ahead of the checkpoint's step (it prefetches from a loader "
                "without len()), which would skip a batch: use a plain DataLoader built in "
                "LightningModule.train_dataloader() with "
                "fairshard.StepSampler(..., start_step=self.trainer.global_step)"
            )
        state = S.unseal(state_dict, self.kind)
        inner = self.sampler
        saved_inner = {**state[S.K_CONFIG].get("sampler_config", {})}
        saved_inner.update(layout=inner.layout, tail=inner.tail)  # (unused by the stream)
        inner_state = {
            S.K_KIND: inner.kind,
            S.K_CONFIG: saved_inner,
            S.K_SEED: state[S.K_SEED],
            S.K_EPOCH: state[S.K_EPOCH],
            S.K_EXTRA: {k: v for k, v in state[S.K_EXTRA].items() if k == K_MIGRATED},
        }
        others = {k: v for k, v in self.full_config().items() if k != "sampler_config"}
        S.check_config({k: state[S.K_CONFIG].get(k) for k in others}, others)
        if migrate is None:
            inner._refuse_changed_data(inner_state)
            S.check_config(state[S.K_CONFIG], self.full_config())
        else:
            inner._migration_check(inner_state, migrate)
        if state[S.K_SEED] != self.seed:
            raise StateDictError(
                f"state_dict was saved with seed={state[S.K_SEED]} but this sampler has "
                f"seed={self.seed}; build the inner sampler with seed={state[S.K_SEED]}"
            )
        consumed = int(state[S.K_STEPS])
        saved = SkipRanges(state[S.K_EXTRA].get("skip", []))
        # The past: the stream positions of the samples consumed, up to the last one.
        past_end = self._past_end(saved, consumed)
        theirs, ours = saved.prefix_until(past_end), self.skip.prefix_until(past_end)
        if theirs != ours:
            raise StateDictError(
                f"state_dict skipped the stream ranges {[list(r) for r in theirs]} among the "
                f"positions [0, {past_end}) its {consumed} consumed samples read, but this "
                f"sampler's skip= gives {[list(r) for r in ours]} there, which would change "
                "what those samples were; keep the ranges already passed as they were, and "
                f"add new ones only from position {past_end} on (positions_of_steps(k, ...) "
                "with k at or after the resume step gives one)"
            )
        self._check_world_from(self.step_of(consumed), "the resume point of state_dict")
        origin = _saved_origin(state)
        if migrate is not None:
            at = int(saved.position(np.array([consumed], dtype=np.int64))[0])
            migration = self._migration_at(state, inner_state, migrate, at, origin)
            origin = (state[S.K_EPOCH], at)
            inner._load_extra_state(dict(state[S.K_EXTRA].get("sampler", {})))
            inner._set_migration(migration)
        else:
            inner._load_extra_state(dict(state[S.K_EXTRA].get("sampler", {})))
            if origin is None:
                inner._set_migration(None)
            else:
                inner._install_migration({**inner_state, S.K_EPOCH: origin[0]})
        self._chain = EpochChain(inner, origin)
        self._consumed = consumed
        self._live = None

    def _migration_at(
        self,
        state: dict[str, Any],
        inner_state: dict[str, Any],
        change: Any,
        at: int,
        origin: tuple[int, int] | None,
    ) -> Migration | None:
        """The inner migration of a state whose next sample is at stream position ``at``."""
        inner, epoch = self.sampler, int(state[S.K_EPOCH])
        saved = inner_state[S.K_CONFIG]
        if origin is not None:
            start = origin[1]  # the state's epoch began there (saved after a migration)
        else:  # the old data's epochs, from the stream's start
            start = sum(inner._old_plan_length(change, saved, e) for e in range(epoch))
        length = inner._old_plan_length(change, saved, epoch)
        position = at - start
        if not 0 <= position <= length:
            raise StateDictError(
                f"state_dict's next sample is at position {position} of epoch {epoch}, outside "
                f"its {length} positions on the data migrate declares; declare the change "
                "from the data the state was saved on"
            )
        if position == 0:
            return None  # nothing of the epoch was consumed: it is the new data's plain epoch
        record = inner._consumed_record(change, saved, epoch, position)
        return Migration(epoch, change, record)


def _saved_origin(state: dict[str, Any]) -> tuple[int, int] | None:
    """The ``(epoch, stream position)`` a state saved after a migration starts its epoch at."""
    origin = state[S.K_EXTRA].get("origin")
    if origin is None:
        return None
    ok = (
        isinstance(origin, list)
        and len(origin) == 2
        and all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in origin)
        and origin[0] == state[S.K_EPOCH]
    )
    if not ok:
        raise StateDictError(
            f"state_dict['extra']['origin'] must be [epoch, stream position] of the state's "
            f"epoch {state[S.K_EPOCH]}, got {origin!r}; the state was modified or corrupted"
        )
    return origin[0], origin[1]
