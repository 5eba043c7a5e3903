"""``HardExampleSampler``: sample more often what the model currently gets wrong.

The training loop reports per-sample losses with ``record(indices, losses)``.
At the epoch boundary -- inside ``set_epoch(e)``, which every rank calls --
the records of all ranks are all-gathered and every rank applies the same
records in the same order, so all ranks hold bit-identical scores and
therefore build identical plans. ``set_epoch`` is a *collective* when the
sampler's world is the ``torch.distributed`` process group (``num_replicas``
equals its size, more than one rank): every rank must call it, as with any
collective. The same exchange checks that every rank built the sampler
alike (``record_sync``).

NOTE (formulas): for ``n`` samples, scores ``s_i`` and the parameters
``momentum m``, ``temperature T`` and ``floor f``:

* update, for each record ``(i, loss)`` in canonical order (sorted by index,
  stably, over the records gathered in rank order and, within a rank, in
  recording order): ``s_i = loss`` the first time ``i`` is seen, afterwards
  ``s_i = m * s_i + (1 - m) * loss``; then every sample given to
  ``set_losses`` scores the mean of the losses given for it that epoch
  (replacing its score: the tutorials' "set the losses once per epoch");
* unseen samples score ``prior``; by default the mean score of the seen
  samples, or 1.0 while none is seen (so unseen samples are neither favoured
  nor starved);
* sampling weight ``w_i = f / n + (1 - f) * q_i`` with, for
  ``weighting="softmax"`` (default), ``q = softmax(s / T)``: a sample with
  score ``s_i`` is drawn ``exp((s_i - s_j) / T)`` times as often as one with
  ``s_j`` in that part; for ``weighting="proportional"``,
  ``q_i = s_i / sum_j s_j`` (losses must be >= 0): twice the loss, twice
  the draws. The weights sum to 1 and every sample keeps at least ``f / n``
  (no sample starves when ``f > 0``).

NOTE (set_weights): the inherited ``WeightedSampler.set_weights`` is refused.
Staged weights would replace the learned ones for one epoch, and a resumed
job re-derives its weights from the scores, so the resumed run would draw
other samples than the uninterrupted one. Scores are the only input:
``record`` and ``set_losses``.

Scores are learned state: ``state_dict()['extra']['scores']`` holds them
(base64 of little-endian float64, NaN = unseen), so a resumed job draws the
same plan. Records made since the last ``set_epoch`` are not in the state.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NoReturn

import numpy as np
import torch
from numpy.typing import NDArray
from torch.utils.data import Dataset

from .._core.inputs import dataset_length
from .._core.partition import Tail
from .._distributed.digest import encode
from .._errors import (
    ConfigError,
    ConfigTypeError,
    check_choice,
    check_int,
    check_real,
    warn,
)
from .._random.seeding import StreamId, normalize_seed, sample_seed
from .hard_weights import WEIGHTINGS, Weighting, sampling_weights
from .loss_records import (
    Losses,
    apply_records,
    as_losses,
    check_losses,
    decode_scores,
    encode_scores,
    joined,
    replace_scores,
)
from .record_sync import sync_records
from .weighted import WeightedSampler

__all__ = ["HardExampleSampler", "IndexedDataset"]


class HardExampleSampler(WeightedSampler):
    """Weighted sampling by recent per-sample loss, identical on every rank.

    Args:
        dataset: The map-style dataset (or its length as an int).
        num_samples: Draws per epoch over all ranks (default ``len(dataset)``).
        weighting: ``"softmax"`` (default) or ``"proportional"`` to the score.
        momentum: EMA momentum ``m`` in ``[0, 1)`` of ``record``.
        temperature: Softmax temperature ``T > 0`` (default 1.0); lower is
            sharper. Only for ``weighting="softmax"``.
        floor: Uniform share ``f`` in ``[0, 1]``.
        prior: Score of unseen samples; ``None``: mean of seen scores (1.0 if none).
        replacement: Draw with replacement (default).
        num_replicas, rank, seed, tail, group: As ``WeightedSampler``.
        sync_timeout: Seconds ``set_epoch`` waits for the other ranks' records.
        num_samples_total: Deprecated alias of ``dataset`` (an int size).

    Example:
        >>> s = HardExampleSampler(4, num_samples=1000, num_replicas=1, rank=0, floor=0.0)
        >>> s.record([3], [5.0]); s.record([0, 1, 2], [0.0, 0.0, 0.0])
        >>> s.set_epoch(1)
        >>> round(float(s.sampling_weights()[3]), 4)
        0.9802
    """

    kind = "HardExampleSampler"
    _learns_at_epoch = True  # loss records are folded into the scores by set_epoch
    _stream_with = StreamId.HARD_EXAMPLE
    _stream_without = StreamId.HARD_EXAMPLE

    def __init__(
        self,
        dataset: Any = None,
        num_samples: int | None = None,
        *,
        weighting: Weighting = "softmax",
        momentum: float = 0.9,
        temperature: float | None = None,
        floor: float = 0.1,
        prior: float | None = None,
        replacement: bool = True,
        num_replicas: int | None = None,
        rank: int | None = None,
        seed: int = 0,
        tail: Tail = "pad",
        sync_timeout: float = 300.0,
        num_samples_total: int | None = None,
        group: Any = None,
    ) -> None:
        n = _dataset_size(dataset, num_samples_total)
        self.weighting: Weighting = check_choice("weighting", weighting, WEIGHTINGS)
        self.momentum = check_real("momentum", momentum, minimum=0.0)
        if self.momentum >= 1.0:
            raise ConfigError(f"momentum must be < 1, got momentum={momentum!r}; try 0.9")
        if temperature is not None and self.weighting == "proportional":
            raise ConfigError(
                f"temperature={temperature!r} sharpens the softmax of weighting='softmax'; "
                "weighting='proportional' draws in proportion to the loss itself. Drop "
                "temperature or use weighting='softmax'"
            )
        self.temperature = check_real(
            "temperature",
            1.0 if temperature is None else temperature,
            strict_minimum=True,
            minimum=0.0,
        )
        self.floor = check_real("floor", floor, minimum=0.0, maximum=1.0)
        self.prior = None if prior is None else check_real("prior", prior)
        if self.weighting == "proportional" and self.prior is not None and self.prior < 0:
            raise ConfigError(
                f"prior must be >= 0 with weighting='proportional' (weights are proportional "
                f"to scores), got prior={prior!r}"
            )
        self.sync_timeout = check_real(
            "sync_timeout", sync_timeout, minimum=0.0, strict_minimum=True
        )
        self._scores = _frozen(np.full(n, np.nan))  # (n,) NaN = unseen; replaced, never written
        self._extra_memo: tuple[NDArray[np.float64], str, bytes] | None = None
        self._records: list[Losses] = []  # record(): EMA updates
        self._replacements: list[Losses] = []  # set_losses(): whole-epoch scores
        super().__init__(
            np.full(n, 1.0 / n),
            num_samples,
            replacement,
            num_replicas=num_replicas,
            rank=rank,
            seed=seed,
            tail=tail,
            group=group,
        )

    # ---------------------------------------------------------------- records
    def record(self, indices: Any, losses: Any) -> None:
        """Remember per-sample losses of one step (applied at the next ``set_epoch``).

        Args:
            indices: Dataset indices of the step: integers (int tensor, int
                array or list of int; bools and floats are rejected).
            losses: One real loss per index (unreduced: ``reduction="none"``).

        Raises:
            ConfigTypeError: indices that are not integers, or losses that are
                not real numbers (the message names the dtype).
            ConfigError: lengths differ, an index is out of range, or a loss is
                NaN or infinite (the message names the first such position,
                its sample and value; nothing is recorded).
        """
        self._records.append(self._checked("record", indices, losses))

    def set_losses(self, losses: Any, indices: Any = None) -> None:
        """Set whole-epoch losses: from the next ``set_epoch`` each given sample scores them.

        The tutorials' ``set_loss_weights(per_sample_loss)``, synced: at the
        next ``set_epoch`` the losses given on every rank are gathered, and
        each sample given scores the mean of its losses (replacing its
        score, after the ``record`` updates of the epoch are applied).
        Samples not given keep their score.

        Args:
            losses: One real loss per sample: ``len(dataset)`` of them when
                ``indices`` is ``None``, else one per index.
            indices: Dataset indices of ``losses`` (e.g. this rank's share of
                an evaluation pass); ``None``: every sample, in order.

        Raises:
            ConfigTypeError, ConfigError: as ``record`` (also: a full vector of
                the wrong length).
        """
        if indices is None:
            count = as_losses(losses).size
            if count != self.n:
                raise ConfigError(
                    f"set_losses got {count} losses without indices but the dataset has "
                    f"{self.n} samples; pass one loss per sample, or indices= for a subset"
                )
            indices = np.arange(self.n, dtype=np.int64)
        self._replacements.append(self._checked("set_losses", indices, losses))

    def _checked(self, caller: str, indices: Any, losses: Any) -> Losses:
        return check_losses(
            caller, indices, losses, self.n, nonnegative=self.weighting == "proportional"
        )

    def set_weights(self, weights: Any) -> NoReturn:
        """Refused: a hard-example sampler's weights come from its scores (module NOTE).

        Raises:
            ConfigTypeError: always; use ``set_losses`` or ``record``.
        """
        raise ConfigTypeError(
            "HardExampleSampler.set_weights is not supported: its weights are derived from "
            "the loss scores, and weights set by hand would be lost on resume. Use "
            "set_losses(per_sample_loss) (weighting='proportional' draws in proportion to "
            "it), or WeightedSampler for weights you compute yourself"
        )

    def set_epoch(self, epoch: int) -> None:
        """Gather every rank's records, update the scores, then use ``epoch``.

        A collective when the sampler's world is the process group (more
        than one rank): every rank must call it. Atomic: the new scores and weights are
        computed on copies and checked first, so when it raises, the scores,
        the records and the epoch are unchanged.

        Raises:
            RankMismatchError: a rank did not arrive within ``sync_timeout``, or
                ranks disagree on the config (e.g. the dataset size), seed or
                epoch; every rank raises, naming the field and the values.
            ConfigError: the new weights leave fewer positive weights than
                ``num_samples`` without replacement (raise ``floor`` or
                ``temperature``).
        """
        epoch = check_int("epoch", epoch, minimum=0)
        records, replacements = self._sync(epoch, joined(self._records), joined(self._replacements))
        if records[0].size or replacements[0].size:
            scores = self._scores
            if records[0].size:
                scores = apply_records(scores, records[0], records[1], self.momentum)
            if replacements[0].size:
                scores = replace_scores(scores, replacements[0], replacements[1])
            weights = self._weights_of(scores)
            positive = self._checked_positive(weights)
            # Commit: nothing below raises for checked weights.
            self._scores = _frozen(scores)
            self._apply(weights, positive)
        self._records = []
        self._replacements = []
        super().set_epoch(epoch)

    def _sync(self, epoch: int, records: Losses, replacements: Losses) -> tuple[Losses, Losses]:
        """Every rank's ``record`` and ``set_losses`` losses, concatenated in rank order.

        The one place the sampler communicates, through ``record_sync``: one
        all-gather that carries each rank's identity with its losses, made
        only when the sampler's world is the process group.
        """
        has_data = bool(records[0].size or replacements[0].size)
        gathered = sync_records(self, epoch, (records, replacements), has_data)
        return joined([g[0] for g in gathered]), joined([g[1] for g in gathered])

    # ---------------------------------------------------------------- weights
    def scores(self) -> NDArray[np.float64]:
        """(n,) copy of the scores; NaN marks samples never recorded."""
        return np.array(self._scores, dtype=np.float64)

    def sampling_weights(self) -> NDArray[np.float64]:
        """(n,) ``f / n + (1 - f) * softmax(s / T)`` with the prior for unseen samples."""
        return self._weights_of(self._scores)

    def _weights_of(self, scores: NDArray[np.float64]) -> NDArray[np.float64]:
        """Sampling weights of ``scores`` (``loss_records.sampling_weights``)."""
        return sampling_weights(
            scores,
            weighting=self.weighting,
            temperature=self.temperature,
            floor=self.floor,
            prior=self.prior,
        )

    def _checked_positive(self, weights: NDArray[np.float64]) -> int:
        """The number of positive weights, after checking the weights can be applied."""
        finite = np.isfinite(weights)
        if not finite.all():  # pragma: no cover - _weights_of is overflow-free
            at = int(np.argmin(finite))
            raise ConfigError(
                f"sampling weight of sample {at} is {float(weights[at])!r} (score "
                f"{float(self._scores[at])!r}, temperature={self.temperature!r}); "
                "scale the losses down or raise the temperature"
            )
        positive = int(np.count_nonzero(weights))
        self._check_positive(positive)
        return positive

    # ------------------------------------------------------------------ state
    def _migration_refusal(self) -> str | None:
        return (
            f"{self.kind} keeps a learned score per item of the data it was saved with; "
            "carrying scores over to other items is not defined"
        )

    def _config(self) -> dict[str, Any]:
        config: dict[str, Any] = {
            "n": self.n,
            "num_samples": self.num_samples,
            "replacement": self.replacement,
            "momentum": self.momentum,
            "temperature": self.temperature,
            "floor": self.floor,
            "prior": self.prior,
        }
        # NOTE (config keys): "weighting" is stored only when it is not the
        # default, so states saved before it existed keep loading.
        if self.weighting != "softmax":
            config["weighting"] = self.weighting
        return config

    def _extra_state(self) -> dict[str, Any]:
        return {"scores": encode_scores(self._scores)}

    def _load_extra_state(self, extra: dict[str, Any]) -> None:
        scores = decode_scores(extra, self.n, self.kind)
        weights = self._weights_of(scores)
        positive = self._checked_positive(weights)
        self._scores = _frozen(scores)
        self._apply(weights, positive)

    def _encoded_extra_state(self) -> tuple[dict[str, Any], bytes | None]:
        # The scores change only at set_epoch / load_state_dict, which replace
        # the (read-only) array: encode them once per array, not per snapshot.
        scores, memo = self._scores, self._extra_memo
        if memo is None or memo[0] is not scores:
            encoded = encode_scores(scores)
            memo = self._extra_memo = (scores, encoded, encode({"scores": encoded}))
        return {"scores": memo[1]}, memo[2]


def _frozen(scores: NDArray[np.float64]) -> NDArray[np.float64]:
    """``scores``, made read-only: a new array replaces it, nothing writes into it."""
    scores.flags.writeable = False
    return scores


def _dataset_size(dataset: Any, num_samples_total: int | None) -> int:
    """``len(dataset)`` (at least 1), accepting the deprecated ``num_samples_total``."""
    if num_samples_total is not None:
        if dataset is not None:
            raise ConfigError(
                f"got both dataset and num_samples_total={num_samples_total!r}; pass only "
                "the dataset (num_samples_total is its deprecated alias)"
            )
        warn(
            "HardExampleSampler(num_samples_total=...) is deprecated; pass the dataset (or "
            "its length) as the first argument, like the other samplers",
            DeprecationWarning,
        )
        dataset = num_samples_total
    if dataset is None:
        raise ConfigTypeError(
            "HardExampleSampler needs the dataset: HardExampleSampler(dataset) (or its length)"
        )
    n = dataset_length(dataset)
    if n < 1:
        raise ConfigError(f"len(dataset) must be >= 1, got {n}; pass a non-empty dataset")
    return n


class IndexedDataset(Dataset[tuple[int, Any]]):
    """Wrap a map-style dataset so each item is ``(index, sample)``.

    The index lets the training loop call ``sampler.record(indices, losses)``.

    Args:
        dataset: The map-style dataset.
        transform: ``transform(sample, generator)``, given a
            ``torch.Generator`` of the item's own, seeded
            ``fairshard.sample_seed(seed, epoch, index)``; the item is then
            ``(index, transform(sample, generator))``. An augmentation drawn
            only from that generator is the same whichever worker, rank,
            world size or resume serves the item.
        seed: The root seed of the per-item generators (with ``transform``).

    The epoch of an item is the key's when the sampler yields
    ``(epoch, index)`` keys (``StepSampler(..., with_epoch=True)``), else the
    one set by ``set_epoch`` (0 by default).

    Example:
        >>> IndexedDataset(["a", "b"])[1]
        (1, 'b')
        >>> import torch
        >>> jitter = lambda x, g: x + float(torch.rand(1, generator=g))
        >>> noisy = IndexedDataset([0.0], transform=jitter)
        >>> noisy[(3, 0)] == noisy[(3, 0)] != noisy[(4, 0)]
        True
    """

    def __init__(
        self,
        dataset: Any,
        *,
        transform: Callable[[Any, torch.Generator], Any] | None = None,
        seed: int = 0,
    ) -> None:
        if transform is not None and not callable(transform):
            raise ConfigTypeError(
                f"transform must be callable as transform(sample, generator), got {transform!r}"
            )
        self.dataset = dataset
        self.transform = transform
        self.seed = normalize_seed(seed)
        self.epoch = 0

    def set_epoch(self, epoch: int) -> None:
        """The epoch of plain int keys (a key ``(epoch, index)`` carries its own)."""
        self.epoch = check_int("epoch", epoch, minimum=0)

    def __len__(self) -> int:
        return len(self.dataset)

    def __getitem__(self, key: int | tuple[int, int]) -> tuple[int, Any]:
        epoch, index = key if isinstance(key, tuple) else (self.epoch, key)
        sample = self.dataset[index]
        if self.transform is None:
            return index, sample
        generator = torch.Generator()
        generator.manual_seed(sample_seed(self.seed, epoch, index))
        return index, self.transform(sample, generator)
