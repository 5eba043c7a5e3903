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
  ``s_i = m * s_i + (1 - m) * loss``;
* unseen samples score ``prior``; by default the mean score of the seen
  samples, or 1.0 while none is seen (so unseen samples are neither favoured
  nor starved);
* sampling weight ``w_i = f / n + (1 - f) * softmax(s / T)_i`` with
  ``softmax(z)_i = exp(z_i - max z) / sum_j exp(z_j - max z)``. The weights
  sum to 1; every sample keeps at least ``f / n`` (no sample starves when
  ``f > 0``), and a sample with score ``s_i`` is drawn
  ``exp((s_i - s_j) / T)`` times as often as one with ``s_j`` in the softmax
  part.

Scores are learned state: ``state_dict()['extra']['scores']`` holds them
(base64 of little-endian float64, NaN = unseen), so a resumed job draws the
same plan. Records made since the last ``set_epoch`` are not in the state.
"""

from __future__ import annotations

import base64
from typing import Any

import numpy as np
from numpy.typing import NDArray
from torch.utils.data import Dataset

from .._core import state as S
from .._core.partition import Tail
from .._errors import ConfigError, StateDictError, check_int, check_real
from .._random.seeding import Stream
from .loss_records import apply_records, as_indices, as_losses
from .record_sync import sync_records
from .weighted import WeightedSampler

__all__ = ["HardExampleSampler", "IndexedDataset"]


class HardExampleSampler(WeightedSampler):
    """Weighted sampling by recent per-sample loss, identical on every rank.

    Args:
        num_samples_total: Number of samples in the dataset (``len(dataset)``).
        num_samples: Draws per epoch over all ranks (default ``num_samples_total``).
        momentum: EMA momentum ``m`` in ``[0, 1)``.
        temperature: Softmax temperature ``T > 0``; lower is sharper.
        floor: Uniform share ``f`` in ``[0, 1]``.
        prior: Score of unseen samples; ``None``: mean of seen scores (1.0 if none).
        replacement: Draw with replacement (default).
        num_replicas, rank, seed, tail: As ``WeightedSampler``.
        sync_timeout: Seconds ``set_epoch`` waits for the other ranks' records.

    Example:
        >>> s = HardExampleSampler(4, num_samples=1000, num_replicas=1, rank=0, floor=0.0)
        >>> s.record([3], [5.0]); s.record([0, 1, 2], [0.0, 0.0, 0.0])
        >>> s.set_epoch(1)
        >>> round(float(s.sampling_weights()[3]), 4)
        0.9802
    """

    kind = "HardExampleSampler"
    _stream_with = Stream.HARD_EXAMPLE
    _stream_without = Stream.HARD_EXAMPLE

    def __init__(
        self,
        num_samples_total: int,
        num_samples: int | None = None,
        *,
        momentum: float = 0.9,
        temperature: float = 1.0,
        floor: float = 0.1,
        prior: float | None = None,
        replacement: bool = True,
        num_replicas: int | None = None,
        rank: int | None = None,
        seed: int = 0,
        tail: Tail = "pad",
        sync_timeout: float = 300.0,
    ) -> None:
        n = check_int("num_samples_total", num_samples_total, minimum=1, fix="pass len(dataset)")
        self.momentum = check_real("momentum", momentum, minimum=0.0)
        if self.momentum >= 1.0:
            raise ConfigError(f"momentum must be < 1, got momentum={momentum!r}; try 0.9")
        self.temperature = check_real("temperature", temperature, minimum=0.0, strict_minimum=True)
        self.floor = check_real("floor", floor, minimum=0.0, maximum=1.0)
        self.prior = None if prior is None else check_real("prior", prior)
        self.sync_timeout = check_real(
            "sync_timeout", sync_timeout, minimum=0.0, strict_minimum=True
        )
        self._scores = np.full(n, np.nan)  # (n,) NaN = unseen
        self._records: list[tuple[NDArray[np.int64], NDArray[np.float64]]] = []
        super().__init__(
            np.full(n, 1.0 / n),
            num_samples,
            replacement,
            num_replicas=num_replicas,
            rank=rank,
            seed=seed,
            tail=tail,
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
        idx = as_indices(indices)
        loss = as_losses(losses)
        if idx.shape != loss.shape:
            raise ConfigError(
                f"record got {idx.size} indices but {loss.size} losses; pass one loss per "
                "sample (use reduction='none')"
            )
        bad = np.flatnonzero((idx < 0) | (idx >= self.n))
        if bad.size:
            raise ConfigError(
                f"indices[{bad[0]}]={idx[bad[0]]} is outside [0, {self.n}); record dataset "
                "indices (wrap the dataset in fairshard.IndexedDataset)"
            )
        bad = np.flatnonzero(~np.isfinite(loss))
        if bad.size:
            raise ConfigError(
                f"losses[{bad[0]}]={float(loss[bad[0]])!r} (sample {idx[bad[0]]}) is not "
                "finite; "
                "skip such steps or clip the loss"
            )
        self._records.append((idx.astype(np.int64), loss))

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
        if self._records:
            idx = np.concatenate([r[0] for r in self._records])
            loss = np.concatenate([r[1] for r in self._records])
        else:
            idx, loss = np.empty(0, np.int64), np.empty(0, np.float64)
        idx, loss = sync_records(self, epoch, idx, loss)
        if idx.size:
            scores = apply_records(self._scores, idx, loss, self.momentum)
            weights = self._weights_of(scores)
            positive = self._checked_positive(weights)
            # Commit: nothing below raises for checked weights.
            self._scores = scores
            self._apply(weights, positive)
        self._records = []
        super().set_epoch(epoch)

    # ---------------------------------------------------------------- weights
    def scores(self) -> NDArray[np.float64]:
        """(n,) copy of the scores; NaN marks samples never recorded."""
        return self._scores.copy()

    def sampling_weights(self) -> NDArray[np.float64]:
        """(n,) ``f / n + (1 - f) * softmax(s / T)`` with the prior for unseen samples."""
        return self._weights_of(self._scores)

    def _weights_of(self, scores: NDArray[np.float64]) -> NDArray[np.float64]:
        """Sampling weights of ``scores``, without overflow for any finite scores.

        NOTE (overflow): ``mean(s)`` and ``s / T`` overflow for scores near the
        float64 limit (a loss of 1e308, or 1e300 at ``T = 1e-10``); then the
        prior is ``sum(s / k)`` and the logits ``z - max z`` are computed as
        ``(s - max s) / T``, which lie in ``[-inf, 0]``. Otherwise the plain
        formulas run, so ordinary scores give the same weights as always.
        """
        seen = ~np.isnan(scores)
        if self.prior is not None:
            prior = self.prior
        elif seen.any():
            known = scores[seen]
            with np.errstate(over="ignore"):
                prior = float(known.mean())
            if not np.isfinite(prior):
                prior = float(np.sum(known / known.size))
        else:
            prior = 1.0
        s = np.where(seen, scores, prior)
        with np.errstate(over="ignore"):
            z = s / self.temperature
        if np.isfinite(z).all():
            z -= z.max()
        else:
            with np.errstate(over="ignore"):
                z = (s - s.max()) / self.temperature
        e = np.exp(z)
        weights: NDArray[np.float64] = self.floor / self.n + (1 - self.floor) * (e / e.sum())
        return weights

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
    def _config(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "num_samples": self.num_samples,
            "replacement": self.replacement,
            "momentum": self.momentum,
            "temperature": self.temperature,
            "floor": self.floor,
            "prior": self.prior,
        }

    def _extra_state(self) -> dict[str, Any]:
        raw = np.ascontiguousarray(self._scores, dtype="<f8").tobytes()
        return {"scores": base64.b64encode(raw).decode("ascii")}

    def _load_extra_state(self, extra: dict[str, Any]) -> None:
        unknown = sorted(set(extra) - {"scores"})
        if unknown:
            raise StateDictError(
                f"state_dict['extra'] has entries {unknown} a {self.kind} never saves; pass "
                "the dict returned by sampler.state_dict() unchanged"
            )
        encoded = S.field(extra, "scores")
        try:
            scores = np.frombuffer(base64.b64decode(encoded, validate=True), dtype="<f8")
        except (TypeError, ValueError):
            raise StateDictError(
                "state_dict['extra']['scores'] is not base64 float64 data; pass the dict "
                "returned by sampler.state_dict() unchanged"
            ) from None
        if scores.shape[0] != self.n:
            raise StateDictError(
                f"state_dict holds {scores.shape[0]} scores but the sampler has "
                f"num_samples_total={self.n}; resume with the same dataset"
            )
        scores = scores.astype(np.float64)
        weights = self._weights_of(scores)
        positive = self._checked_positive(weights)
        self._scores = scores
        self._apply(weights, positive)


class IndexedDataset(Dataset[tuple[int, Any]]):
    """Wrap a map-style dataset so each item is ``(index, sample)``.

    The index lets the training loop call ``sampler.record(indices, losses)``.

    Example:
        >>> IndexedDataset(["a", "b"])[1]
        (1, 'b')
    """

    def __init__(self, dataset: Any) -> None:
        self.dataset = dataset

    def __len__(self) -> int:
        return len(self.dataset)

    def __getitem__(self, index: int) -> tuple[int, Any]:
        return index, self.dataset[index]
