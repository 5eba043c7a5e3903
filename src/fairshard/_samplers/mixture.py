"""``MixtureSampler``: many datasets, exact proportions over every prefix of the plan.

The sources are laid out as ``torch.utils.data.ConcatDataset`` lays them out:
source ``s`` owns the global indices ``[offset_s, offset_s + size_s)``. One
global plan per epoch says, for every position, which source it draws from
(``interleave``: within one sample of the target share over *every* prefix)
and which item of that source (the source's own lazy permutation, a fresh one
for each pass over it).

NOTE (cost): position ``p`` costs one ``divmod`` and two table look-ups to find
its source and draw number, then a keyed permutation (six Feistel rounds) to
find the item: O(1) per draw, vectorized over the base sampler's chunks.
Memory is the period table (12 bytes per slot, at most
``max_period`` slots: 768 KiB by default) plus a few cached permutation keys,
whatever the number of draws, so 10**9 draws over 10 sources run in the
memory of a few thousand.

NOTE (stopping): ``"upsample"`` draws ``num_samples`` per epoch and re-shuffles
a source each time it is exhausted; ``"first_exhausted"`` ends the epoch just
before any source would need an item a second time (every draw unique,
smaller sources set the pace); ``"all_exhausted"`` runs until every source has
been seen once in full, re-shuffling the ones that run out earlier.
``passes()`` says how many passes each source made.

NOTE (a migrated epoch): ``load_state_dict(state, migrate=MixtureChange(...))``
resumes a state of other sources or weights. What the saved epoch consumed
is, per source, the draws its first ``c`` positions made (the old interleave,
rebuilt from the state's sizes and weights); the rest is a mixture plan of
the new sources and weights whose kept sources continue their walks from
those draws (no item of a pass repeats, none is skipped), removed sources are
never drawn, appended ones start their first pass. Its length: ``num_samples
- c`` under ``"upsample"``; under the other strategies the same stopping rule
over what each source has left of its pass. The next epoch is the new
mixture's plain plan.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray
from torch.utils.data import ConcatDataset

from .._core import state as S
from .._core.partition import Tail
from .._errors import ConfigError, ConfigTypeError, check_bool, check_choice, check_int
from .interleave import DEFAULT_MAX_PERIOD, Interleave, quotas_from_weights
from .mixture_change import MixtureChange
from .mixture_plan import MixturePlan, mixture_length
from .mixture_weights import (
    EqualWeights,
    FixedWeights,
    MixtureWeights,
    SizePowerWeights,
    resolve_weights,
)
from .schedules import schedule_of
from .torch_compat import IndexSampler

__all__ = ["STOPPING", "MixtureSampler"]

Stopping = Literal["upsample", "first_exhausted", "all_exhausted"]
STOPPING: tuple[Stopping, ...] = ("upsample", "first_exhausted", "all_exhausted")


class MixtureSampler(IndexSampler[MixturePlan]):
    """Draw from several datasets in exact proportions, sharded across ranks.

    Indices are global, as in ``ConcatDataset(datasets)``: pass that dataset
    to the ``DataLoader``.

    Args:
        sources: The datasets (anything with ``len()``) or their sizes.
        weights: Target proportions (any non-negative numbers, normalized), or
            a callable ``epoch -> weights`` (a curriculum, fingerprinted in
            states by its values at probe epochs). Default: equal.
        alpha: Instead of ``weights``: proportions ``size ** alpha`` (``1``:
            by size, ``0``: equal, ``0.3``: the "temperature" mixing of
            multilingual models), a number or a schedule (``Constant``,
            ``LinearAnneal``) over epochs.
        stopping: ``"upsample"`` (default), ``"first_exhausted"`` or
            ``"all_exhausted"`` (see the module notes).
        num_samples: Draws per epoch over all ranks with ``"upsample"``
            (default: the total size of the sources); not allowed with the
            other strategies. The attribute of that name is the epoch's draws
            over all ranks under every strategy (as in the weighted families,
            not PyTorch's per-rank count, which is ``len(sampler)``).
        shuffle: Walk each source in a fresh random order per pass (default)
            or in index order.
        max_period: Largest period of the interleave (see ``interleave``):
            weights that need a longer one are rounded to ``1 / max_period``,
            every positive weight keeping one slot (error bound there).
        num_replicas: World size; detected when ``None``.
        rank: This rank; detected when ``None``.
        seed: Root seed, identical on every rank.
        tail: ``"pad"``, ``"drop"`` or ``"uneven"``.
        auto_epoch: Advance the epoch by itself after each complete pass.
        group: The data-parallel group (``ProcessGroup`` or ``DeviceMesh``),
            e.g. ``mesh["dp"]``: the world and its collectives (docs/parallelism.md).

    Raises:
        ConfigError: no sources, an empty source with a positive weight, bad
            weights (negative, NaN, all zero, wrong count), more positive
            weights than ``max_period``, ``num_samples`` with a strategy that
            sets the length itself, or ``tail="drop"`` with fewer draws than
            ranks (checked for epoch 0 when the weights change by epoch).

    Example:
        >>> import numpy as np
        >>> s = MixtureSampler([100, 50, 10], weights=[0.5, 0.3, 0.2], num_samples=10,
        ...                    num_replicas=1, rank=0)
        >>> [int(v) for v in np.bincount(s.plan().sources(np.arange(10)), minlength=3)]
        [5, 3, 2]
    """

    kind = "MixtureSampler"

    def __init__(
        self,
        sources: Sequence[Any],
        weights: Any = None,
        *,
        alpha: Any = None,
        stopping: Stopping = "upsample",
        num_samples: int | None = None,
        shuffle: bool = True,
        max_period: int = DEFAULT_MAX_PERIOD,
        num_replicas: int | None = None,
        rank: int | None = None,
        seed: int | None = 0,
        tail: Tail = "pad",
        auto_epoch: bool = False,
        group: Any = None,
    ) -> None:
        super().__init__(
            num_replicas=num_replicas,
            rank=rank,
            seed=seed,
            tail=tail,
            auto_epoch=auto_epoch,
            group=group,
        )
        self.sizes = _sizes(sources)
        # Datasets (not plain sizes) are kept to notice a source changing length.
        self._sources = [
            (i, src) for i, src in enumerate(sources) if not isinstance(src, numbers.Integral)
        ]
        self.offsets = np.concatenate(([0], np.cumsum(self.sizes)[:-1])).astype(np.int64)
        self.stopping: Stopping = check_choice("stopping", stopping, STOPPING)
        self.shuffle = check_bool("shuffle", shuffle)
        self.max_period = check_int(
            "max_period", max_period, minimum=2, maximum=1 << 24, fix="e.g. 65536 (the default)"
        )
        if num_samples is not None and stopping != "upsample":
            raise ConfigError(
                f"num_samples={num_samples!r} with stopping={stopping!r}: that strategy sets the "
                "epoch length itself; drop num_samples or use stopping='upsample'"
            )
        total = int(self.sizes.sum())
        # PyTorch's ``dataset`` attribute: what the global indices index.
        self.dataset = (
            range(total)
            if any(isinstance(s, numbers.Integral) for s in sources)
            else ConcatDataset(sources)
        )
        if total == 0:
            raise ConfigError(
                f"every source is empty (sizes {self.sizes.tolist()}); nothing to draw"
            )
        self._num_samples = check_int(
            "num_samples",
            total if num_samples is None else num_samples,
            minimum=1,
            fix="draw at least one sample per epoch",
        )
        self._weights = resolve_weights(weights, alpha, self.sizes)
        self._interleaves: dict[tuple[int, ...], Interleave] = {}
        self.quotas(0)  # check the epoch-0 weights now, not at the first iter()
        if self._known_plan_length() is None:  # weights that change: check epoch 0 at least
            self._check_drop(len(self.plan(0)), 0)

    @property
    def num_samples(self) -> int:  # type: ignore[override]  # draws over all ranks
        """Draws per epoch over all ranks (the current epoch's, before padding or dropping).

        The argument under ``stopping="upsample"``; under the other strategies
        the length the sources set (``first_exhausted`` ends when the first
        source runs out). Not PyTorch's per-rank count: ``len(sampler)`` is that.
        """
        if self.stopping == "upsample":
            return self._num_samples
        return len(self.plan())

    def _known_plan_length(self) -> int | None:
        if self.stopping == "upsample":
            return self._num_samples
        if isinstance(self._weights, FixedWeights | EqualWeights):
            return len(self.plan(0))
        return None

    # ---------------------------------------------------------------- weights
    def quotas(self, epoch: int | None = None) -> NDArray[np.int64]:
        """(S,) integer quotas per period: the realized proportions are ``quotas / sum``."""
        epoch = self.epoch if epoch is None else check_int("epoch", epoch, minimum=0)
        return quotas_from_weights(self._weights(epoch), self.max_period)

    def proportions(self, epoch: int | None = None) -> NDArray[np.float64]:
        """(S,) realized target proportions of ``epoch`` (default: the current one)."""
        quotas = self.quotas(epoch)
        result: NDArray[np.float64] = quotas / quotas.sum()
        return result

    def _interleave(self, quotas: NDArray[np.int64]) -> Interleave:
        key = tuple(quotas.tolist())
        found = self._interleaves.get(key)
        if found is None:
            if len(self._interleaves) >= 4:
                self._interleaves.clear()
            found = self._interleaves[key] = Interleave(quotas)
        return found

    def _check_source(self) -> None:
        for i, source in self._sources:
            if len(source) != self.sizes[i]:
                raise ConfigError(
                    f"source {i} had {int(self.sizes[i])} samples when the {self.kind} was "
                    f"built and has {len(source)} now; build a new sampler after changing a "
                    "source"
                )

    # ------------------------------------------------------------------ plans
    def _config(self) -> dict[str, Any]:
        return {
            "sizes": S.digest(self.sizes) if self.sizes.size > 64 else self.sizes.tolist(),
            **self._weights.describe(),
            "stopping": self.stopping,
            "num_samples": self._num_samples if self.stopping == "upsample" else None,
            "shuffle": self.shuffle,
            "max_period": self.max_period,
        }

    def _length(self, interleave: Interleave) -> int:
        return mixture_length(interleave, self.sizes, self.stopping, self._num_samples)

    def _build_plan(self, epoch: int) -> MixturePlan:
        interleave = self._interleave(self.quotas(epoch))
        return MixturePlan(
            interleave,
            self.sizes,
            self.offsets,
            self._length(interleave),
            self.seed,
            epoch,
            self.shuffle,
        )

    # ---------------------------------------------- resume on changed data
    _change_type = MixtureChange
    _data_keys = ("sizes", "weights", "alpha", "num_samples")

    def _check_migration(self, change: Any, saved_config: dict[str, Any] | None) -> None:
        saved = None if saved_config is None else saved_config.get("sizes")
        change._check_sizes(saved, self.sizes, self.kind)
        if saved_config is not None:
            self._saved_weights(change, saved_config)  # the saved epoch's proportions

    def _saved_weights(self, change: Any, saved_config: dict[str, Any]) -> MixtureWeights:
        """The weights of the state's mixture, rebuilt from its config and ``old_sizes``."""
        old_sizes = np.asarray(change.old_sizes, dtype=np.int64)
        if "alpha" in saved_config:
            schedule = schedule_of(saved_config["alpha"])
            if schedule is not None:
                return SizePowerWeights(schedule, old_sizes)
        elif saved_config.get("weights") == "equal":
            return EqualWeights(old_sizes)
        elif isinstance(saved_config.get("weights"), list):
            return FixedWeights(saved_config["weights"], old_sizes)
        raise ConfigError(
            "migrate: the state's mixture weights are a callable epoch -> weights (or alpha), "
            "known by a fingerprint of its values only, so the saved epoch's proportions "
            "cannot be rebuilt; resume with the same sources and weights, or finish that "
            "epoch before the sources change"
        )

    def _old_walk(
        self, change: Any, saved_config: dict[str, Any], epoch: int
    ) -> tuple[Interleave, int]:
        """The saved epoch's interleave and length on the old sources."""
        old_sizes = np.asarray(change.old_sizes, dtype=np.int64)
        weights = self._saved_weights(change, saved_config)(epoch)
        interleave = Interleave(quotas_from_weights(weights, self.max_period))
        saved_num = int(saved_config.get("num_samples") or 0)  # (None: set by the sources)
        return interleave, mixture_length(interleave, old_sizes, self.stopping, saved_num)

    def _old_plan_length(self, change: Any, saved_config: dict[str, Any], epoch: int) -> int:
        return self._old_walk(change, saved_config, epoch)[1]

    def _consumed_record(
        self, change: Any, saved_config: dict[str, Any], epoch: int, positions: int
    ) -> Any:
        """The draws each old source made in the first ``positions`` positions."""
        old, _ = self._old_walk(change, saved_config, epoch)
        return [int(k) for k in old.draws_before(positions).tolist()]

    def _rest_plan(self, change: Any, consumed: Any, epoch: int) -> MixturePlan:
        taken = np.asarray(consumed, dtype=np.int64)  # (S_old,) draws of each old source
        first = np.zeros(self.sizes.size, dtype=np.int64)
        new = change.new_source(np.arange(taken.size))
        first[new[new >= 0]] = taken[new >= 0]
        interleave = self._interleave(self.quotas(epoch))
        left = max(0, self._num_samples - int(taken.sum()))  # (each position draws once)
        length = mixture_length(interleave, self.sizes, self.stopping, left, first)
        return MixturePlan(
            interleave,
            self.sizes,
            self.offsets,
            length,
            self.seed,
            epoch,
            self.shuffle,
            first_draws=first,
            source_keys=change.source_keys(),
        )

    def draws(self, epoch: int | None = None) -> NDArray[np.int64]:
        """(S,) draws from each source over the whole epoch (all ranks, before padding)."""
        plan = self.plan(epoch)
        return plan.interleave.draws_before(len(plan))

    def passes(self, epoch: int | None = None) -> NDArray[np.int64]:
        """(S,) passes each source makes in the epoch (``1.5`` passes count as 2)."""
        draws = self.draws(epoch)
        return -(-draws // np.maximum(self.sizes, 1))

    def source_of(self, index: int) -> int:
        """The source a global index belongs to."""
        index = check_int("index", index, minimum=0, maximum=int(self.sizes.sum()) - 1)
        return int(np.searchsorted(self.offsets, index, side="right") - 1)


def _sizes(sources: Any) -> NDArray[np.int64]:
    if isinstance(sources, str | bytes) or not hasattr(sources, "__len__"):
        raise ConfigTypeError(
            f"sources must be a sequence of datasets or sizes, got {type(sources).__name__}"
        )
    if len(sources) == 0:
        raise ConfigError("sources is empty; pass at least one dataset or size")
    sizes: list[int] = []
    for i, source in enumerate(sources):
        if isinstance(source, numbers.Integral) and not isinstance(source, bool):
            size = int(source)
        elif hasattr(source, "__len__") and not isinstance(source, str | bytes):
            size = len(source)
        else:
            raise ConfigTypeError(
                f"sources[{i}] is {type(source).__name__}; pass a dataset with len() or an int size"
            )
        sizes.append(check_int(f"sources[{i}] size", size, minimum=0))
    return np.asarray(sizes, dtype=np.int64)
