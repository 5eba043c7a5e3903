"""Exceptions, warnings and argument validators shared by every module.

Every error fairshard raises names the parameter, the value it got and, where
one exists, the fix. The exception types subclass ``ValueError`` or
``TypeError`` so that code which already catches those keeps working.
"""

from __future__ import annotations

import numbers
import os
import sys
import warnings
from collections.abc import Sequence
from types import FrameType
from typing import Any, NoReturn, TypeVar

__all__ = [
    "ConfigError",
    "ConfigTypeError",
    "DegenerateConfigWarning",
    "FairshardWarning",
    "RankMismatchError",
    "ShardError",
    "StateDictError",
    "check_bool",
    "check_choice",
    "check_flag",
    "check_int",
    "check_real",
    "user_stacklevel",
    "warn",
]

#: The type of one choice of ``check_choice`` (a ``Literal`` of strings, typically).
C = TypeVar("C", bound=str)


class ConfigError(ValueError):
    """A constructor or method argument has an invalid value."""


class ConfigTypeError(TypeError):
    """A constructor or method argument has the wrong type."""


class StateDictError(ValueError):
    """A ``state_dict`` cannot be loaded: foreign, tampered or from another config."""


class RankMismatchError(RuntimeError):
    """Ranks of one job disagree on something they must agree on."""


class ShardError(ValueError):
    """A shard of a sharded dataset is missing, unreadable or differs from its index."""


class FairshardWarning(UserWarning):
    """Base class of the warnings fairshard emits."""


class DegenerateConfigWarning(FairshardWarning):
    """A legal configuration that almost certainly does not do what was meant."""


#: Folders whose frames are "library", not the user's: fairshard itself and
#: torch.utils.data (a DataLoader iterating a sampler), filled in lazily.
_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


def _library_dirs() -> tuple[str, ...]:
    dirs = [_PACKAGE_DIR]
    data = sys.modules.get("torch.utils.data")
    if data is not None and getattr(data, "__file__", None):
        dirs.append(os.path.dirname(os.path.abspath(str(data.__file__))) + os.sep)
    return tuple(dirs)


def user_stacklevel() -> int:
    """The ``stacklevel`` that attributes a warning raised by the caller to the user's line.

    Counted for a ``warnings.warn`` call made by the function that calls
    this one: walks out of fairshard's frames and of ``torch.utils.data``'s
    (a ``DataLoader`` iterating a sampler) to the first frame of other code
    -- the line in the training script that built the sampler, called
    ``iter``, or started the ``for batch in loader`` loop.

    NOTE (why walk): a fixed ``stacklevel`` is right for one call path only;
    the same warning is reached from a constructor, from ``iter(sampler)``,
    from a ``DataLoader`` and from the simulator, at different depths.
    """
    library = _library_dirs()
    frame: FrameType | None = sys._getframe(2)  # the caller of the function that asked
    level = 2
    while frame is not None and frame.f_code.co_filename.startswith(library):
        frame = frame.f_back
        level += 1
    return level


def warn(message: str, category: type[Warning] = FairshardWarning) -> None:
    """Emit ``message`` as a warning attributed to the user's line (:func:`user_stacklevel`)."""
    warnings.warn(message, category, stacklevel=user_stacklevel())


def _fail(name: str, value: object, requirement: str, fix: str | None) -> NoReturn:
    message = f"{name} must be {requirement}, got {name}={value!r}"
    if fix:
        message += f"; {fix}"
    raise ConfigError(message)


def check_int(
    name: str,
    value: Any,
    *,
    minimum: int | None = None,
    maximum: int | None = None,
    fix: str | None = None,
) -> int:
    """Return ``value`` as a Python int after checking its type and range.

    Accepts Python and numpy integers (not ``bool``, not floats, even integral
    ones: ``2.0`` is usually a bug upstream).

    Raises:
        ConfigTypeError: ``value`` is not an integer.
        ConfigError: ``value`` is outside ``[minimum, maximum]``.
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ConfigTypeError(
            f"{name} must be an int, got {name}={value!r} of type {type(value).__name__}"
            + (f"; {fix}" if fix else "")
        )
    result = int(value)
    if minimum is not None and maximum is not None and not minimum <= result <= maximum:
        _fail(name, result, f"between {minimum} and {maximum}", fix)
    if minimum is not None and result < minimum:
        _fail(name, result, f">= {minimum}", fix)
    if maximum is not None and result > maximum:
        _fail(name, result, f"<= {maximum}", fix)
    return result


def check_real(
    name: str,
    value: Any,
    *,
    minimum: float | None = None,
    maximum: float | None = None,
    strict_minimum: bool = False,
    fix: str | None = None,
) -> float:
    """Return ``value`` as a finite float after checking its type and range.

    Raises:
        ConfigTypeError: ``value`` is not a real number.
        ConfigError: ``value`` is NaN, infinite or out of range.
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ConfigTypeError(
            f"{name} must be a number, got {name}={value!r} of type {type(value).__name__}"
        )
    result = float(value)
    if result != result or result in (float("inf"), float("-inf")):
        _fail(name, result, "finite", fix)
    if minimum is not None:
        if strict_minimum and result <= minimum:
            _fail(name, result, f"> {minimum}", fix)
        if not strict_minimum and result < minimum:
            _fail(name, result, f">= {minimum}", fix)
    if maximum is not None and result > maximum:
        _fail(name, result, f"<= {maximum}", fix)
    return result


def check_choice(name: str, value: Any, choices: Sequence[C]) -> C:
    """Return ``value`` if it is one of ``choices``, typed as the choices are.

    Pass the choices as a tuple of a ``Literal`` type (``TAILS: tuple[Tail,
    ...]``): the result is then that ``Literal``, with no cast at the caller.

    Raises:
        ConfigError: ``value`` is not one of ``choices``.
    """
    if not isinstance(value, str) or value not in choices:
        options = ", ".join(repr(c) for c in choices)
        raise ConfigError(f"{name} must be one of {options}, got {name}={value!r}")
    return next(choice for choice in choices if choice == value)  # typed as the choices


def _is_numpy_bool(value: Any) -> bool:
    # numpy 2 names the type "bool", numpy 1.x "bool_"
    return type(value).__name__ in ("bool", "bool_") and type(value).__module__ == "numpy"


def check_bool(name: str, value: Any) -> bool:
    """Return ``value`` if it is a ``bool`` (not merely truthy: ``1`` and ``"yes"`` are refused).

    As strict as PyTorch's ``WeightedRandomSampler(replacement=...)``; the
    lenient PyTorch switches (``shuffle``, ``drop_last`` of
    ``DistributedSampler``) use :func:`check_flag`.

    Raises:
        ConfigTypeError: ``value`` is not a bool.
    """
    if not isinstance(value, bool):
        raise ConfigTypeError(
            f"{name} must be a bool, got {name}={value!r} of type {type(value).__name__}"
        )
    return value


def check_flag(name: str, value: Any) -> bool:
    """Return a PyTorch-style switch as a ``bool``: a bool, a numpy bool, or the int 0 or 1.

    PyTorch's ``DistributedSampler`` takes ``shuffle`` and ``drop_last`` by
    truthiness, so code passes ``shuffle=1`` or ``drop_last=np.bool_(x)``;
    those mean what they say and are accepted. Other values are refused
    because they almost always come from a shifted positional argument
    (``DistributedSampler(ds, 4, 0, 42)`` means ``shuffle=42``, not
    ``seed=42``) or a wrong type: strings (``"False"`` is truthy), ``None``,
    floats, other ints.

    Raises:
        ConfigTypeError: anything else; the message names the value and the fix.
    """
    if isinstance(value, bool) or _is_numpy_bool(value):
        return bool(value)
    if isinstance(value, numbers.Integral) and int(value) in (0, 1):
        return bool(int(value))
    hint = (
        f"; did you mean seed={value!r}? PyTorch's order is (dataset, num_replicas, rank, "
        "shuffle, seed, drop_last)"
        if isinstance(value, numbers.Integral)
        else ""
    )
    raise ConfigTypeError(
        f"{name} must be a bool (or 0/1), got {name}={value!r} of type "
        f"{type(value).__name__}; pass {name}=True or {name}=False{hint}"
    )
