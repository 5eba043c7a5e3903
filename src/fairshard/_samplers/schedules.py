"""Schedules for the class-balancing exponent ``alpha`` over epochs.

``ClassBalancedSampler`` weights every sample by ``count(class) ** -alpha``:
``alpha = 1`` balances the classes, ``alpha = 0`` keeps the natural
distribution, values between interpolate (``0.5`` is "square-root"
sampling). A schedule maps an epoch to ``alpha``; any callable
``epoch -> alpha`` works, and the two here also describe themselves, so a
state saved with one is checked on resume.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from typing import Any

import numpy as np

from .._errors import ConfigError, ConfigTypeError, check_int, check_real

__all__ = ["AlphaSchedule", "Constant", "LinearAnneal", "resolve_alpha"]

AlphaSchedule = Callable[[int], float]


class Constant:
    """The same ``alpha`` every epoch.

    Example:
        >>> Constant(0.5)(7)
        0.5
    """

    def __init__(self, alpha: float) -> None:
        self.alpha = check_real("alpha", alpha, minimum=0.0)

    def __call__(self, epoch: int) -> float:
        return self.alpha

    def describe(self) -> dict[str, Any]:
        """Plain values identifying the schedule (stored in states)."""
        return {"schedule": "Constant", "alpha": self.alpha}

    def __repr__(self) -> str:
        return f"Constant({self.alpha!r})"


class LinearAnneal:
    """``alpha`` moves linearly from ``start`` to ``end`` over ``epochs`` epochs, then stays.

    ``alpha(e) = start + (end - start) * min(e, epochs) / epochs``. The
    default anneals from balanced (1) at epoch 0 to natural (0) at epoch
    ``epochs`` and after.

    Example:
        >>> s = LinearAnneal(epochs=4)
        >>> [s(e) for e in range(6)]
        [1.0, 0.75, 0.5, 0.25, 0.0, 0.0]
    """

    def __init__(self, start: float = 1.0, end: float = 0.0, epochs: int = 10) -> None:
        self.start = check_real("start", start, minimum=0.0)
        self.end = check_real("end", end, minimum=0.0)
        self.epochs = check_int("epochs", epochs, minimum=1, fix="anneal over at least 1 epoch")

    def __call__(self, epoch: int) -> float:
        fraction = min(epoch, self.epochs) / self.epochs
        return self.start + (self.end - self.start) * fraction

    def describe(self) -> dict[str, Any]:
        """Plain values identifying the schedule (stored in states)."""
        return {
            "schedule": "LinearAnneal",
            "start": self.start,
            "end": self.end,
            "epochs": self.epochs,
        }

    def __repr__(self) -> str:
        return f"LinearAnneal(start={self.start!r}, end={self.end!r}, epochs={self.epochs})"


def resolve_alpha(alpha: object) -> tuple[AlphaSchedule, Any]:
    """Return ``(schedule, description)`` for a number, a schedule or a callable.

    A plain callable is described by its qualified name only: a resumed
    sampler must be given the same function (its values are not checked).

    Raises:
        ConfigTypeError: ``alpha`` is neither a number nor callable.
        ConfigError: a negative or non-finite number.
    """
    if isinstance(alpha, bool | np.bool_):
        raise ConfigTypeError(f"alpha must be a number or a schedule, got alpha={alpha!r}")
    if isinstance(alpha, numbers.Real):  # numpy scalars too (np.float32, np.int64)
        constant = Constant(float(alpha))
        return constant, constant.describe()
    if isinstance(alpha, Constant | LinearAnneal):
        return alpha, alpha.describe()
    if callable(alpha):
        name = getattr(alpha, "__qualname__", type(alpha).__qualname__)
        return alpha, {"schedule": "callable", "name": name}
    raise ConfigTypeError(
        f"alpha must be a number, a schedule (Constant, LinearAnneal) or a callable "
        f"epoch -> alpha, got {type(alpha).__name__}"
    )


def alpha_at(schedule: AlphaSchedule, epoch: int) -> float:
    """``schedule(epoch)``, checked to be a finite number >= 0."""
    value = schedule(epoch)
    try:
        return check_real(f"alpha(epoch={epoch})", value, minimum=0.0)
    except (ConfigError, ConfigTypeError) as exc:
        raise type(exc)(f"{exc}; the alpha schedule must return numbers >= 0") from None
