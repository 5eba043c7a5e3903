"""Build a sampler for a virtual rank from a name and keyword arguments.

Used by ``fairshard simulate`` and by :func:`fairshard.simulate` when it is
given a name instead of a factory. A name is either a fairshard sampler
(``"DistributedSampler"``, resolved lazily with ``getattr(fairshard, name)``
so samplers added later work unchanged) or any class as ``"module:Class"``
(``"torch.utils.data:DistributedSampler"``).

Arguments the user did not give are filled in from the signature:
``num_replicas``/``rank`` per virtual rank, ``dataset`` (an int size for
fairshard samplers, ``range(n)`` for others, which need ``len()``) and
``labels`` when labels are known. ``batch_size`` wraps an index sampler in
``torch.utils.data.BatchSampler`` per rank.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray
from torch.utils.data import BatchSampler

from .._core.registry import families, is_fairshard, lookup
from .._errors import ConfigError, ConfigTypeError, check_int

__all__ = ["SamplerSpec", "parse_kwarg", "resolve_class"]

_RANGE = re.compile(r"^range\(\s*(\d+)\s*\)$")
_WORD = re.compile(r"^[A-Za-z_][A-Za-z0-9_.\-]*$")


def parse_kwarg(text: str) -> tuple[str, Any]:
    """Parse ``key=value``; the value is a Python literal, ``range(n)`` or a bare word.

    Example:
        >>> parse_kwarg("drop_last=True"), parse_kwarg("dataset=range(10)")
        (('drop_last', True), ('dataset', range(0, 10)))
        >>> parse_kwarg("order=torch")
        ('order', 'torch')

    Raises:
        ConfigError: no ``=``, an invalid key, or a value that is neither.
    """
    key, sep, raw = text.partition("=")
    key = key.strip()
    if not sep or not key.isidentifier():
        raise ConfigError(f"--kwarg must look like key=value, got {text!r}")
    raw = raw.strip()
    match = _RANGE.match(raw)
    if match:
        return key, range(int(match.group(1)))
    try:
        return key, ast.literal_eval(raw)
    except (ValueError, SyntaxError):
        if _WORD.match(raw):
            return key, raw  # a bare word is a string: order=torch
        raise ConfigError(
            f"--kwarg {key}: cannot parse {raw!r}; give a Python literal (3, 0.5, True, "
            "[1, 2], 'text') or range(n)"
        ) from None


def resolve_class(name: str) -> Any:
    """``"Name"`` from fairshard, or ``"module:Class"`` (dotted attributes allowed).

    Raises:
        ConfigError: the module or the attribute does not exist.
    """
    if ":" not in name:
        found = lookup(name)
        if found is None:
            known = sorted(families())
            raise ConfigError(
                f"fairshard has no sampler named {name!r}; known: {', '.join(known)}. "
                "Give another class as module:Class, e.g. torch.utils.data:DistributedSampler"
            )
        return found
    module_name, _, attr = name.partition(":")
    try:
        obj: Any = importlib.import_module(module_name)
    except ImportError as exc:
        raise ConfigError(f"cannot import module {module_name!r} (from {name!r}): {exc}") from None
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise ConfigError(f"module {module_name!r} has no attribute {attr!r} (from {name!r})")
        obj = getattr(obj, part)
    if not callable(obj):
        raise ConfigTypeError(f"{name!r} is not a class or callable, got {type(obj).__name__}")
    return obj


def _parameters(cls: Any) -> Mapping[str, inspect.Parameter]:
    try:
        return inspect.signature(cls).parameters
    except (TypeError, ValueError):
        return {}


@dataclass
class SamplerSpec:
    """A sampler class plus the arguments shared by every virtual rank.

    Args:
        name: ``"DistributedSampler"`` or ``"module:Class"``.
        kwargs: Keyword arguments given by the user.
        dataset_size: Dataset length (fills ``dataset`` when not in kwargs).
        labels: Class labels (fill ``labels`` when the class takes them).
        batch_size: Wrap each rank's index sampler in ``BatchSampler``.
        drop_last_batch: ``drop_last`` of that ``BatchSampler``.
    """

    name: str
    kwargs: dict[str, Any] = field(default_factory=dict)
    dataset_size: int | None = None
    labels: NDArray[np.int64] | None = None
    batch_size: int | None = None
    drop_last_batch: bool = False

    def __post_init__(self) -> None:
        self.cls = resolve_class(self.name)
        params = _parameters(self.cls)
        self._params = params
        fairshard = is_fairshard(self.cls)
        if self.dataset_size is None:
            self.dataset_size = self._infer_size()
        if "dataset" in params and "dataset" not in self.kwargs:
            if self.dataset_size is None:
                raise ConfigError(
                    f"{self.name} needs a dataset: give --dataset-size N (or "
                    "--kwarg dataset=range(N))"
                )
            self.kwargs["dataset"] = self.dataset_size if fairshard else range(self.dataset_size)
        elif isinstance(self.kwargs.get("dataset"), int) and not fairshard:
            self.kwargs["dataset"] = range(self.kwargs["dataset"])
        if "labels" in params and "labels" not in self.kwargs and self.labels is not None:
            self.kwargs["labels"] = self.labels
        if self.batch_size is not None:
            self.batch_size = check_int("batch_size", self.batch_size, minimum=1)
            if self.name.endswith("BatchSampler"):
                raise ConfigError(
                    f"{self.name} already yields batches; pass its own batch size as "
                    "--kwarg instead of --batch-size"
                )

    def _infer_size(self) -> int | None:
        for key in ("dataset", "data_source"):
            value = self.kwargs.get(key)
            if isinstance(value, int) and not isinstance(value, bool):
                return value
            if value is not None and hasattr(value, "__len__"):
                return len(value)
        if self.labels is not None:
            return int(self.labels.size)
        return None

    def describe(self) -> str:
        """``Name(key=value, ...)`` with short reprs (arrays shown by shape)."""
        parts = []
        for key, value in self.kwargs.items():
            shown = f"<array {value.shape}>" if isinstance(value, np.ndarray) else repr(value)
            parts.append(f"{key}={shown}")
        text = f"{self.name}({', '.join(parts)})"
        if self.batch_size is not None:
            text = f"BatchSampler({text}, batch_size={self.batch_size})"
        return text

    def make(self, rank: int, world_size: int) -> Any:
        """Build the sampler of virtual rank ``rank`` out of ``world_size``."""
        kwargs = dict(self.kwargs)
        for key, value in (("num_replicas", world_size), ("rank", rank)):
            if key in self._params or is_fairshard(self.cls):
                kwargs[key] = value
        try:
            sampler = self.cls(**kwargs)
        except TypeError as exc:
            raise ConfigTypeError(f"cannot build {self.describe()}: {exc}") from None
        if self.batch_size is not None:
            return BatchSampler(sampler, self.batch_size, self.drop_last_batch)
        return sampler

    def factory(self) -> Callable[[int, int], Any]:
        """``make`` as a ``(rank, world_size) -> sampler`` factory."""
        return self.make


def kwargs_from(pairs: Sequence[str]) -> dict[str, Any]:
    """Parse repeated ``--kwarg key=value`` options (later keys win)."""
    return dict(parse_kwarg(p) for p in pairs)
