"""Build a sampler for a virtual rank from a name and keyword arguments.

Used by ``fairshard simulate`` and by :func:`fairshard.simulate` when it is
given a name instead of a factory. A name is either a fairshard sampler
(``"DistributedSampler"``, found in the registry of families, so samplers
added later work unchanged) or any class as ``"module:Class"``
(``"torch.utils.data:DistributedSampler"``).

Arguments the user did not give are filled in from the signature:
``num_replicas``/``rank`` per virtual rank, ``dataset`` (an int size for
fairshard samplers, ``range(n)`` for others, which need ``len()``), and
``labels``, ``weights`` and ``lengths`` when given (from files). A required
argument still missing is an error naming the option that provides it.
``--kwarg`` values may hold ``{rank}`` (``seed={rank}``): a per-rank value,
to simulate the classic rank-dependent mistakes. ``batch_size`` wraps an index sampler in
``torch.utils.data.BatchSampler`` per rank.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import pkgutil
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray
from torch.utils.data import BatchSampler

from .. import _batching, _samplers, _streams
from .._core.registry import families, is_fairshard, lookup
from .._errors import ConfigError, ConfigTypeError, check_int
from .kwargs import RankTemplate, kwargs_from, parse_kwarg

__all__ = ["FLAGS", "RankTemplate", "SamplerSpec", "kwargs_from", "parse_kwarg", "resolve_class"]


def resolve_class(name: str) -> Any:
    """``"Name"`` from fairshard, or ``"module:Class"`` (dotted attributes allowed).

    Raises:
        ConfigError: the module or the attribute does not exist.
    """
    if ":" not in name:
        _import_families()
        found = lookup(name)
        if found is None:
            known = sorted(families())
            raise ConfigError(
                f"fairshard has no sampler named {name!r}; known: {', '.join(known)}. "
                "Give another class as module:Class, e.g. torch.utils.data:DistributedSampler"
            )
        return found
    module_name, _, attr = name.partition(":")
    if not module_name.strip() or not attr.strip() or module_name.startswith("."):
        raise ConfigError(
            f"sampler {name!r} must be a fairshard name or module:Class with both parts, "
            "e.g. torch.utils.data:DistributedSampler"
        )
    try:
        obj: Any = importlib.import_module(module_name)
    except Exception as exc:  # the user's module: any failure while importing it
        raise ConfigError(
            f"cannot import module {module_name!r} (from {name!r}): {type(exc).__name__}: {exc}"
        ) from None
    for part in attr.split("."):
        if not part.isidentifier() or not hasattr(obj, part):
            raise ConfigError(f"module {module_name!r} has no attribute {attr!r} (from {name!r})")
        obj = getattr(obj, part)
    if not callable(obj):
        raise ConfigTypeError(f"{name!r} is not a class or callable, got {type(obj).__name__}")
    return obj


@functools.cache
def _import_families() -> None:
    """Import every family module, so that each family is registered by name.

    The registry fills as the families' modules are imported; a caller that
    imported only some of them (a private path, ``python -m fairshard
    simulate``) still finds every family.
    """
    for package in (_samplers, _batching, _streams):
        for info in pkgutil.iter_modules(package.__path__, f"{package.__name__}."):
            importlib.import_module(info.name)


def _parameters(cls: Any) -> Mapping[str, inspect.Parameter]:
    try:
        return inspect.signature(cls).parameters
    except (TypeError, ValueError):
        return {}


#: The option that fills each argument the simulator knows how to provide.
FLAGS = {
    "dataset": "--dataset-size N",
    "data_source": "--dataset-size N",
    "labels": "--labels FILE (or demo)",
    "weights": "--weights FILE",
    "lengths": "--lengths FILE",
}
_WHAT = {"dataset": "a dataset", "data_source": "a dataset"}
_SUPPLIED = ("num_replicas", "rank")


@dataclass
class SamplerSpec:
    """A sampler class plus the arguments shared by every virtual rank.

    Args:
        name: ``"DistributedSampler"`` or ``"module:Class"``.
        kwargs: Keyword arguments given by the user (values may be
            :class:`RankTemplate`, evaluated per rank).
        dataset_size: Dataset length (fills ``dataset`` when not in kwargs).
        labels: Class labels (fill ``labels`` when the class takes them).
        batch_size: Wrap each rank's index sampler in ``BatchSampler``.
        drop_last_batch: ``drop_last`` of that ``BatchSampler``.
        weights: Per-sample weights (fill ``weights``).
        lengths: Per-sample lengths (fill ``lengths``).
    """

    name: str
    kwargs: dict[str, Any] = field(default_factory=dict)
    dataset_size: int | None = None
    labels: NDArray[np.int64] | None = None
    batch_size: int | None = None
    drop_last_batch: bool = False
    weights: NDArray[np.float64] | None = None
    lengths: NDArray[np.int64] | None = None

    def __post_init__(self) -> None:
        self.cls = resolve_class(self.name)
        params = _parameters(self.cls)
        self._params = params
        fairshard = is_fairshard(self.cls)
        if self.dataset_size is None:
            self.dataset_size = self._infer_size()
        for key in ("dataset", "data_source"):  # PyTorch's own samplers say data_source
            if key in params and key not in self.kwargs:
                if self.dataset_size is not None:
                    size = self.dataset_size
                    self.kwargs[key] = size if fairshard else range(size)
            elif isinstance(self.kwargs.get(key), int) and not fairshard:
                self.kwargs[key] = range(self.kwargs[key])
        for key, value in (
            ("labels", self.labels),
            ("weights", self.weights),
            ("lengths", self.lengths),
        ):
            if key in params and key not in self.kwargs and value is not None:
                self.kwargs[key] = value
        self._check_required()
        if self.batch_size is not None:
            self.batch_size = check_int(
                "batch_size", self.batch_size, minimum=1, maximum=sys.maxsize
            )
            if self.name.endswith("BatchSampler"):
                raise ConfigError(
                    f"{self.name} already yields batches; pass its own batch size as "
                    "--kwarg instead of --batch-size"
                )

    def _check_required(self) -> None:
        """Every argument without a default is given; else name the option that gives it."""
        missing = [
            name
            for name, p in self._params.items()
            if p.default is inspect.Parameter.empty
            and p.kind not in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
            and name not in self.kwargs
            and name not in _SUPPLIED
        ]
        if missing:
            needs = "; ".join(
                f"{_WHAT.get(m, m)}: give {FLAGS.get(m, f'--kwarg {m}=VALUE')}" for m in missing
            )
            raise ConfigError(f"{self.name} needs {needs}")

    def _infer_size(self) -> int | None:
        for key in ("dataset", "data_source", "weights", "lengths"):
            value = self.kwargs.get(key)
            if isinstance(value, int) and not isinstance(value, bool):
                return value
            if value is not None and hasattr(value, "__len__"):
                return len(value)
        for array in (self.labels, self.weights, self.lengths):
            if array is not None:
                return int(array.size)
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

    def per_rank(self, world_size: int) -> dict[str, list[Any]]:
        """Arguments that differ between ranks (``{rank}`` templates): key -> value per rank."""
        return {
            key: [value.value(rank) for rank in range(world_size)]
            for key, value in self.kwargs.items()
            if isinstance(value, RankTemplate)
        }

    def make(self, rank: int, world_size: int) -> Any:
        """Build the sampler of virtual rank ``rank`` out of ``world_size``."""
        kwargs = {
            key: value.value(rank) if isinstance(value, RankTemplate) else value
            for key, value in self.kwargs.items()
        }
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
