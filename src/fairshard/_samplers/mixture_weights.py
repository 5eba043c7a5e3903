"""A mixture's weights at each epoch: equal, fixed, by size (``alpha``), or a curriculum.

Each kind is a small module-level object, so a ``MixtureSampler`` pickles
whole (mid-pass too) and goes to spawn-started processes like every other
family. Each gives ``(S,)`` checked weights for an epoch and ``describe()``:
the plain value stored in states, which a resumed sampler must match.

NOTE (fingerprint of a curriculum): a callable ``epoch -> weights`` cannot be
compared by name (every lambda is ``"<lambda>"``, and a function may be edited
between runs), so it is fingerprinted by what it computes, with the mechanism
``TokenBudgetBatchSampler`` uses for cost callables
(``_distributed.digest.values_digest``): its normalized weights on the probe
epochs of ``schedules.PROBE_EPOCHS``. A state saved under a 1:1 curriculum is
refused by a 9:1 one; ``[1, 1]`` and ``[2, 2]`` (the same mixture) agree. An
epoch at which the callable raises or returns bad weights enters the
fingerprint as such (the sampler raises if training reaches it). Two
curricula that agree on every probe epoch and differ elsewhere cannot be told
apart.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._distributed.digest import values_digest
from .._errors import ConfigError, ConfigTypeError
from .schedules import PROBE_EPOCHS, AlphaSchedule, LinearWeightAnneal, alpha_at, resolve_alpha
from .weights import as_weights, check_weights

__all__ = [
    "CurriculumWeights",
    "EqualWeights",
    "FixedWeights",
    "MixtureWeights",
    "SizePowerWeights",
    "checked_weights",
    "resolve_weights",
]


def checked_weights(weights: Any, sizes: NDArray[np.int64], name: str) -> NDArray[np.float64]:
    """``weights`` as (S,) float64, one non-negative weight per source, none on an empty one."""
    array = as_weights(weights, name)
    if array.shape[0] != sizes.size:
        raise ConfigError(
            f"{name} has {array.shape[0]} entries for {sizes.size} sources; pass one "
            "weight per source"
        )
    check_weights(array, name)
    empty = np.flatnonzero((array > 0) & (sizes == 0))
    if empty.size:
        s = int(empty[0])
        raise ConfigError(
            f"source {s} is empty but {name}[{s}]={array[s]!r} > 0; give it weight 0 or "
            "leave it out"
        )
    return array


class MixtureWeights(ABC):
    """Base: ``(S,)`` checked weights per epoch, and a plain description for states."""

    @abstractmethod
    def __call__(self, epoch: int) -> NDArray[np.float64]:
        """The checked weights of ``epoch``."""

    @abstractmethod
    def describe(self) -> dict[str, Any]:
        """Plain values that name these weights in a state."""


class EqualWeights(MixtureWeights):
    """Weight 1 for every non-empty source."""

    def __init__(self, sizes: NDArray[np.int64]) -> None:
        self.weights = (sizes > 0).astype(np.float64)

    def __call__(self, epoch: int) -> NDArray[np.float64]:
        return self.weights

    def describe(self) -> dict[str, Any]:
        return {"weights": "equal"}


class FixedWeights(MixtureWeights):
    """The same weights every epoch."""

    def __init__(self, weights: Any, sizes: NDArray[np.int64]) -> None:
        self.weights = checked_weights(weights, sizes, "weights")

    def __call__(self, epoch: int) -> NDArray[np.float64]:
        return self.weights

    def describe(self) -> dict[str, Any]:
        return {"weights": [float(w) for w in self.weights.tolist()]}


class SizePowerWeights(MixtureWeights):
    """``size ** alpha(epoch)`` for non-empty sources (``alpha``: a number or a schedule)."""

    def __init__(self, alpha: Any, sizes: NDArray[np.int64]) -> None:
        schedule, self.description = resolve_alpha(alpha)
        if isinstance(schedule, LinearWeightAnneal):
            raise ConfigTypeError(
                "alpha=LinearWeightAnneal(...) anneals class weights (1/count to 1) and has "
                "no meaning for source sizes; pass a float or an alpha schedule such as "
                "LinearAnneal(1.0, 0.0, epochs) (weights = size ** alpha)"
            )
        self.schedule: AlphaSchedule = schedule
        self.sizes = sizes.astype(np.float64)

    def __call__(self, epoch: int) -> NDArray[np.float64]:
        a = alpha_at(self.schedule, epoch)
        weights: NDArray[np.float64] = np.where(self.sizes > 0, self.sizes**a, 0.0)
        return weights

    def describe(self) -> dict[str, Any]:
        return {"alpha": self.description}


class CurriculumWeights(MixtureWeights):
    """A callable ``epoch -> weights``, checked at each epoch, fingerprinted by its values."""

    def __init__(self, schedule: Callable[[int], Any], sizes: NDArray[np.int64]) -> None:
        self.schedule = schedule
        self.sizes = sizes
        self.fingerprint = values_digest(self._normalized, PROBE_EPOCHS)

    def __call__(self, epoch: int) -> NDArray[np.float64]:
        return checked_weights(self.schedule(epoch), self.sizes, f"weights(epoch={epoch})")

    def _normalized(self, epoch: int) -> NDArray[np.float64]:
        """(S,) the shares the curriculum asks for at ``epoch``; NaN where it cannot say."""
        try:
            weights = self(epoch)
        except Exception:  # an epoch the curriculum does not cover is a value too
            return np.full(self.sizes.size, np.nan)
        scaled = weights / weights.max()  # no overflow in the sum
        shares: NDArray[np.float64] = scaled / scaled.sum()
        return shares

    def describe(self) -> dict[str, Any]:
        return {"weights": {"schedule": "callable", "values": self.fingerprint}}


def resolve_weights(weights: Any, alpha: Any, sizes: NDArray[np.int64]) -> MixtureWeights:
    """The weights object for ``MixtureSampler(weights=..., alpha=...)``.

    Raises:
        ConfigError: both given, or bad fixed weights.
        ConfigTypeError: ``alpha=LinearWeightAnneal(...)``.
    """
    if weights is not None and alpha is not None:
        raise ConfigError("pass weights or alpha, not both (alpha sets weights = size ** alpha)")
    if alpha is not None:
        return SizePowerWeights(alpha, sizes)
    if weights is None:
        return EqualWeights(sizes)
    if callable(weights) and not hasattr(weights, "__len__"):
        return CurriculumWeights(weights, sizes)
    return FixedWeights(weights, sizes)
