"""Checking and fingerprinting sampling weights without copying them.

Weights may be a list, a numpy array or a torch tensor. They are read as a
1-D float64 array (a float64 array or CPU tensor is used in place, other
inputs are converted once) and checked in chunks, so a 10**8-item array
costs no second copy. Every error names the first offending index and value.
"""

from __future__ import annotations

import hashlib
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from .._core.inputs import to_numpy
from .._core.migrating import Migrating
from .._errors import ConfigError, ConfigTypeError
from .._random.alias import MAX_ITEMS

__all__ = [
    "MIGRATE_DRAWS",
    "as_weights",
    "check_weights",
    "weights_digest",
    "DrawsMigrate",
]

#: ``sub_id`` of the ``StreamId.MIGRATE`` draws of a weighted family's migrated epoch.
MIGRATE_DRAWS = 1

_CHUNK = 1 << 22


def as_weights(weights: Any, name: str = "weights") -> NDArray[np.float64]:
    """Return ``weights`` as a 1-D float64 numpy array (no copy when possible).

    Raises:
        ConfigTypeError: not numeric (strings, objects, complex numbers).
        ConfigError: not 1-D, or empty.
    """
    weights = to_numpy(weights, name)
    if isinstance(weights, str | bytes | dict | set):
        raise ConfigTypeError(
            f"{name} must be a 1-D sequence of numbers, got {type(weights).__name__}"
        )
    try:
        array = np.asarray(weights)
    except (TypeError, ValueError) as exc:
        raise ConfigTypeError(f"{name} must be a 1-D sequence of numbers: {exc}") from None
    if array.dtype == bool or array.dtype.kind not in "iuf":
        raise ConfigTypeError(
            f"{name} must hold real numbers, got dtype {array.dtype}; pass floats such as "
            "per-sample weights or inverse class frequencies"
        )
    if array.ndim != 1:
        raise ConfigError(
            f"{name} must be 1-D (one weight per sample), got shape {tuple(array.shape)}; "
            "flatten it or pass one row"
        )
    if array.size == 0:
        raise ConfigError(f"{name} is empty; pass one non-negative weight per sample")
    if array.size > MAX_ITEMS:
        raise ConfigError(f"{name} has {array.size} entries, more than the {MAX_ITEMS} supported")
    return np.asarray(array, dtype=np.float64)


def check_weights(weights: NDArray[np.float64], name: str = "weights") -> int:
    """Check every weight is finite and non-negative and one is positive.

    Returns:
        The number of positive weights.

    Raises:
        ConfigError: naming the first negative, NaN or infinite entry (index
            and value), or saying that all weights are zero.
    """
    positive = 0
    for lo in range(0, weights.shape[0], _CHUNK):
        chunk = weights[lo : lo + _CHUNK]
        bad = ~(np.isfinite(chunk) & (chunk >= 0))
        if bad.any():
            at = int(np.argmax(bad))
            value = float(chunk[at])
            what = "NaN" if value != value else ("infinite" if abs(value) == np.inf else "negative")
            raise ConfigError(
                f"{name}[{lo + at}] is {what} ({value!r}); weights must be finite and >= 0 "
                "(use 0 to never draw a sample)"
            )
        positive += int(np.count_nonzero(chunk))
    if positive == 0:
        raise ConfigError(
            f"all {weights.shape[0]} {name} are zero (first: {name}[0]=0.0), so no sample can "
            "be drawn; give at least one sample a positive weight"
        )
    return positive


def weights_digest(weights: NDArray[np.float64]) -> str:
    """A 16-hex-digit fingerprint of the weights' values, hashed in chunks.

    Example:
        >>> import numpy as np
        >>> weights_digest(np.ones(3)) == weights_digest(np.ones(3))
        True
    """
    h = hashlib.sha256(f"weights:{weights.shape[0]}:".encode())
    data = np.ascontiguousarray(weights, dtype="<f8")
    for lo in range(0, data.shape[0], _CHUNK):
        h.update(data[lo : lo + _CHUNK].data)
    return h.hexdigest()[:16]


class DrawsMigrate(Migrating):
    """``migrate=`` hooks of the families that draw ``num_samples`` items by weight.

    With replacement an epoch consumed draws, not items: its rest is fresh
    draws from the new data (the family's ``_rest_plan``), and the saved
    epoch's plan length is its ``num_samples``. Without replacement every
    item of the epoch is ranked by a key of its weight, so what the saved
    epoch consumed depends on the removed items' weights too, which a state
    does not hold: refused.
    """

    replacement: bool
    #: What each item's key is built from, as the refusal names it.
    _keyed_by: ClassVar[str] = "weight"

    def _migration_refusal(self) -> str | None:
        if not self.replacement:
            per_item = self._keyed_by
            return (
                f"{self.kind}(replacement=False) ranks every item of an epoch by a key of its "
                f"{per_item}, so which items the saved epoch consumed depends on every old "
                f"{per_item}, the removed items' too, which the state does not hold; use "
                "replacement=True (its rest is fresh draws from the new data)"
            )
        return super()._migration_refusal()

    def _old_plan_length(self, change: Any, saved_config: dict[str, Any], epoch: int) -> int:
        return int(saved_config["num_samples"])
