"""Schedules for class balancing over epochs: in the exponent, or in the weights.

``ClassBalancedSampler`` weights every sample by ``count(class) ** -alpha``:
``alpha = 1`` balances the classes, ``alpha = 0`` keeps the natural
distribution, values between interpolate (``0.5`` is "square-root"
sampling). An *alpha schedule* maps an epoch to ``alpha``; any callable
``epoch -> alpha`` works, and the two here (``Constant``, ``LinearAnneal``)
also describe themselves, so a state saved with one is checked on resume.

``LinearWeightAnneal`` is the other curve: the one many tutorials write by
hand, moving each sample's raw weight linearly from ``1 / count(class)`` to
1. It is not an alpha schedule: it gives the class weights directly.

NOTE (two curves): with ``f = min(e, E) / E`` the class shares are

    LinearAnneal:        P_c  ~  count_c ** f                  (alpha = 1 - f)
    LinearWeightAnneal:  P_c  ~  (1 - f) + f * count_c         (w_c = (1 - f) / count_c + f)

Both start balanced and end natural. In the exponent the shares move
geometrically, so a class 100x rarer than the largest keeps a visible share
for most of the schedule. In the weights the ``f * count_c`` term dominates
as soon as ``f * count_c`` exceeds 1, i.e. after the first step for any
class with more than ``E`` samples: long-tailed data is almost natural from
the second epoch on (``docs/recipes.md`` has the numbers and a plot). Use
``LinearAnneal`` unless a tutorial's run must be reproduced.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._distributed.digest import values_digest
from .._errors import ConfigError, ConfigTypeError, check_int, check_real

__all__ = [
    "PROBE_EPOCHS",
    "AlphaSchedule",
    "Constant",
    "LinearAnneal",
    "LinearWeightAnneal",
    "class_weights_at",
    "resolve_alpha",
    "schedule_of",
]

AlphaSchedule = Callable[[int], float]

#: Epochs at which a plain callable schedule is evaluated to fingerprint it
#: (``_distributed.digest.values_digest``): every epoch up to 64, then the
#: round numbers and powers of two where curricula usually change.
PROBE_EPOCHS: tuple[int, ...] = (
    *range(65),
    *(80, 100, 128, 150, 200, 256, 300, 500, 512, 1000, 1024, 2048, 5000, 10_000),
)


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


class LinearWeightAnneal:
    """Raw per-sample weights move linearly from ``1 / count(class)`` to 1 over ``epochs``.

    The tutorials' schedule, for reproducing their runs: with
    ``f = min(e, epochs) / epochs`` every sample of class ``c`` has weight

        w_c(e) = (1 - f) * C * t_c / count_c + f

    (``C`` classes, targets ``t_c``; with the default ``t_c = 1 / C`` this is
    ``(1 - f) / count_c + f``). Epoch 0 gives the targets, epoch ``epochs``
    and later the natural distribution. The shares leave the targets much
    faster than under ``LinearAnneal`` (module NOTE); a class with target 0
    is drawn again as soon as ``f > 0``.

    Pass it where ``ClassBalancedSampler`` takes ``alpha``.

    Example:
        >>> import numpy as np
        >>> s = LinearWeightAnneal(epochs=2)
        >>> s.class_weights(1, np.array([4.0, 1.0]), np.array([0.5, 0.5])).tolist()
        [0.625, 1.0]
    """

    def __init__(self, epochs: int = 10) -> None:
        self.epochs = check_int("epochs", epochs, minimum=1, fix="anneal over at least 1 epoch")

    def class_weights(
        self, epoch: int, counts: NDArray[np.float64], targets: NDArray[np.float64]
    ) -> NDArray[np.float64]:
        """(C,) per-sample weight of each class at ``epoch`` (formula above)."""
        fraction = min(epoch, self.epochs) / self.epochs
        start = targets.size * targets / counts  # (C,) 1 / count_c for default targets
        weights: NDArray[np.float64] = (1.0 - fraction) * start + fraction
        return weights

    def describe(self) -> dict[str, Any]:
        """Plain values identifying the schedule (stored in states)."""
        return {"schedule": "LinearWeightAnneal", "epochs": self.epochs}

    def __repr__(self) -> str:
        return f"LinearWeightAnneal(epochs={self.epochs})"


Schedule = AlphaSchedule | LinearWeightAnneal


def schedule_of(description: Any) -> Schedule | None:
    """The schedule a state's ``describe()`` names, or ``None`` for a callable (values only)."""
    if not isinstance(description, dict):
        return None
    name = description.get("schedule")
    if name == "Constant":
        return Constant(description["alpha"])
    if name == "LinearAnneal":
        return LinearAnneal(description["start"], description["end"], description["epochs"])
    if name == "LinearWeightAnneal":
        return LinearWeightAnneal(description["epochs"])
    return None


def resolve_alpha(alpha: object) -> tuple[Schedule, Any]:
    """Return ``(schedule, description)`` for a number, a schedule or a callable.

    A plain callable is described by its values on ``PROBE_EPOCHS`` (a
    resumed sampler given a schedule with other values there is refused;
    its name does not matter).

    Raises:
        ConfigTypeError: ``alpha`` is neither a number nor callable.
        ConfigError: a negative or non-finite number.
    """
    if isinstance(alpha, bool | np.bool_):
        raise ConfigTypeError(f"alpha must be a number or a schedule, got alpha={alpha!r}")
    if isinstance(alpha, numbers.Real):  # numpy scalars too (np.float32, np.int64)
        constant = Constant(float(alpha))
        return constant, constant.describe()
    if isinstance(alpha, Constant | LinearAnneal | LinearWeightAnneal):
        return alpha, alpha.describe()
    if callable(alpha):
        values = values_digest(lambda epoch: _probe_alpha(alpha, epoch), PROBE_EPOCHS)
        return alpha, {"schedule": "callable", "values": values}
    raise ConfigTypeError(
        "alpha must be a number, a schedule (Constant, LinearAnneal, LinearWeightAnneal) "
        f"or a callable epoch -> alpha, got {type(alpha).__name__}"
    )


def _probe_alpha(schedule: AlphaSchedule, epoch: int) -> float:
    """``schedule(epoch)`` for the fingerprint; NaN where it raises or is not a valid alpha."""
    try:
        return alpha_at(schedule, epoch)
    except Exception:  # an epoch the schedule does not cover is a value too
        return float("nan")


def alpha_at(schedule: AlphaSchedule, epoch: int) -> float:
    """``schedule(epoch)``, checked to be a finite number >= 0."""
    value = schedule(epoch)
    try:
        return check_real(f"alpha(epoch={epoch})", value, minimum=0.0)
    except (ConfigError, ConfigTypeError) as exc:
        raise type(exc)(f"{exc}; the alpha schedule must return numbers >= 0") from None


def class_weights_at(
    schedule: Schedule,
    epoch: int,
    counts: NDArray[np.float64],
    targets: NDArray[np.float64],
) -> NDArray[np.float64]:
    """(C,) per-sample weight of each class at ``epoch`` under ``schedule``.

    An alpha schedule gives ``(t_c / count_c) ** alpha(epoch)``;
    ``LinearWeightAnneal`` gives its own weights.
    """
    if isinstance(schedule, LinearWeightAnneal):
        return schedule.class_weights(epoch, counts, targets)
    alpha = alpha_at(schedule, epoch)
    with np.errstate(divide="ignore"):
        weights: NDArray[np.float64] = (targets / counts) ** alpha
    return weights
