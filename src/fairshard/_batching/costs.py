"""What a batch costs: the cost models of ``TokenBudgetBatchSampler`` and their fingerprints.

* ``"padded"`` -- ``bs * L`` (``L`` the longest item): the padded tensor.
* ``"sum"`` -- ``sum(l)``: packed sequences.
* ``AttentionCost(coef)`` -- ``bs * L + coef * bs * L**2``: a padded
  transformer step, whose attention grows with the square of the length;
  ``AttentionCost(coef, packed=True)`` is ``sum(l + coef * l**2)`` for packed
  sequences (attention within each sequence). ``AttentionCost.fit``
  calibrates ``coef`` from measured step times.
* any callable ``cost(lengths_array) -> float``, non-decreasing as items are
  added.

NOTE (fingerprint): a resumed sampler must plan the same batches, so its
cost must give the same values. A named model is fingerprinted by its name
and coefficient. A callable cannot be compared by name (every lambda is
``"<lambda>"``, and a function may be edited between runs), so it is
fingerprinted by what it *computes*: a digest of its values on a fixed set
of probe batches built from the sampler's lengths (several lengths from the
shortest to the longest, several batch sizes, mixed batches). Resuming with
a callable that gives other costs on any probe is refused; one that agrees
on every probe but differs elsewhere cannot be told apart -- prefer a named
model, which is compared exactly.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._distributed.digest import values_digest
from .._errors import ConfigError, ConfigTypeError

__all__ = ["COSTS", "AttentionCost", "CostFn", "batch_cost", "cost_fingerprint", "item_costs"]

#: Cost models by name.
COSTS = ("padded", "sum")
CostFn = Callable[[NDArray[Any]], float]

_PROBE_SIZES = (1, 2, 3, 7, 16, 64, 255)
_PROBE_LENGTHS = 9


@dataclass(frozen=True)
class AttentionCost:
    """A transformer step's cost: linear in the tokens plus attention, quadratic in length.

    Padded (default): ``bs * L + coef * bs * L**2`` with ``L`` the batch's
    longest item. Packed: ``sum(l + coef * l**2)``. ``coef`` is the cost of
    one squared token relative to one token -- about ``1 / (c * d_model)``
    for a model of width ``d_model`` (``c`` a small constant); calibrate it
    with :meth:`fit`.

    Example:
        >>> import numpy as np
        >>> AttentionCost(0.01)(np.array([100, 50]))  # 2 * 100 + 0.01 * 2 * 100**2
        400.0
    """

    coef: float
    packed: bool = False

    def __post_init__(self) -> None:
        if isinstance(self.coef, bool) or not isinstance(self.coef, int | float):
            raise ConfigTypeError(f"coef must be a number, got coef={self.coef!r}")
        if not (math.isfinite(self.coef) and self.coef >= 0):
            raise ConfigError(
                f"coef must be finite and >= 0, got coef={self.coef!r}; 0 is the plain "
                "token count, and AttentionCost.fit estimates it from step times"
            )
        if not isinstance(self.packed, bool):
            raise ConfigTypeError(f"packed must be a bool, got packed={self.packed!r}")

    def per_item(self, lengths: NDArray[Any]) -> NDArray[np.float64]:
        """(m,) ``l + coef * l**2`` of each length."""
        x = lengths.astype(np.float64)
        out: NDArray[np.float64] = x + self.coef * x * x
        return out

    def __call__(self, lengths: NDArray[Any]) -> float:
        """Cost of one batch whose items have ``lengths``."""
        if lengths.size == 0:
            return 0.0
        if self.packed:
            return float(self.per_item(lengths).sum())
        return float(self.per_item(lengths.max(keepdims=True))[0] * lengths.size)

    @classmethod
    def fit(
        cls, batches: Sequence[Any], seconds: Sequence[float], *, packed: bool = False
    ) -> AttentionCost:
        """Estimate ``coef`` from measured step times (least squares, no intercept).

        Time a few steps of your model on batches of different lengths (after
        warm-up, synchronizing the device), then fit ``seconds ~ a * tokens +
        b * squares`` and take ``coef = b / a``.

        Args:
            batches: The lengths of each timed batch's items (one sequence each).
            seconds: The measured time of each batch's step.
            packed: Fit the packed model instead of the padded one.

        Raises:
            ConfigError: fewer than two batches, mismatched counts, batches of
                a single length (the two terms are collinear), or times that
                do not grow with the token count (nothing to calibrate).
        """
        if len(batches) != len(seconds) or len(batches) < 2:
            raise ConfigError(
                f"fit needs one time per batch and at least two batches, got "
                f"{len(batches)} batches and {len(seconds)} times"
            )
        linear, square = cls(0.0, packed), cls(1.0, packed)
        tokens = np.array([linear(np.asarray(b)) for b in batches])
        squares = np.array([square(np.asarray(b)) for b in batches]) - tokens
        y = np.asarray(seconds, dtype=np.float64)
        # squares / tokens is the (token-weighted) length of a batch: when every batch
        # has the same, the two terms are proportional and no coefficient is determined.
        spread = squares / np.maximum(tokens, 1.0)
        if tokens.min() > 0 and np.ptp(spread) <= 1e-9 * float(spread.max(initial=0.0)):
            raise ConfigError(
                f"fit: every batch has the same {'lengths' if packed else 'longest length'} "
                f"(about {float(spread.max()):g} tokens), so the linear and the squared "
                "term are proportional and coef cannot be told from the linear cost; time "
                "batches of several clearly different lengths (e.g. 128, 512 and 2048 "
                "tokens)"
            )
        (a, b), *_ = np.linalg.lstsq(np.stack([tokens, squares], axis=1), y, rcond=None)
        if b < 0:  # no quadratic term visible: the best fit with b = 0
            a, b = float(y @ tokens / (tokens @ tokens)), 0.0
        if not a > 0:
            raise ConfigError(
                "fit: the linear term came out <= 0 (the step times do not grow with the "
                "token count as this model says); time more steps, after warm-up, on "
                "batches of clearly different lengths and sizes"
            )
        return cls(max(0.0, float(b)) / float(a), packed)


def batch_cost(lengths: NDArray[Any], cost: str | CostFn) -> float:
    """Cost of one batch whose items have ``lengths``.

    ``"padded"``: ``max(lengths) * len(lengths)``; ``"sum"``: ``sum(lengths)``;
    a callable (``AttentionCost`` or yours) is called with the lengths array.
    """
    if cost == "padded":
        return float(lengths.max() * lengths.size) if lengths.size else 0.0
    if cost == "sum":
        return float(lengths.sum())
    assert callable(cost)
    return float(cost(lengths))


def item_costs(lengths: NDArray[Any], cost: str | CostFn) -> NDArray[np.float64]:
    """(n,) cost of each item alone (``nan`` where a callable returns a bad value)."""
    if isinstance(cost, str):
        return lengths.astype(np.float64)
    if isinstance(cost, AttentionCost):
        return cost.per_item(lengths)
    unique, inverse = np.unique(lengths, return_inverse=True)
    alone = np.array([batch_cost(unique[i : i + 1], cost) for i in range(unique.size)])
    return alone[inverse.reshape(-1)]


def cost_fingerprint(cost: str | CostFn, lengths: NDArray[Any]) -> str:
    """A plain value that changes when the cost would plan other batches (see the NOTE)."""
    if isinstance(cost, str):
        return cost
    if isinstance(cost, AttentionCost):
        return f"attention(coef={cost.coef!r}, packed={cost.packed})"
    unique = np.unique(lengths)[::-1]  # descending, as the sampler passes them
    picks = unique[np.linspace(0, unique.size - 1, min(_PROBE_LENGTHS, unique.size)).astype(int)]
    probes = [np.full(k, v, dtype=lengths.dtype) for v in picks for k in _PROBE_SIZES]
    probes += [unique[: k + 1] for k in _PROBE_SIZES] + [picks]
    return "callable:" + values_digest(lambda p: batch_cost(p, cost), probes)
