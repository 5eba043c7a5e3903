"""The three ways of sampling the demo compares, built by name.

``plain`` is sharded shuffling (``fairshard.DistributedSampler``), what every
DDP job does: the long tail stays long. ``balanced`` draws each sample with
weight ``count(class) ** -alpha``, ``alpha`` annealed linearly from 1
(balanced classes) to 0 (the natural distribution) over the run.
``hard`` draws samples with probability rising with their recent loss.

The weighted samplers are looked up on the ``fairshard`` package when a
method is built, so the demo runs whichever of them this fairshard provides.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

import fairshard

__all__ = ["DESCRIPTIONS", "METHODS", "REQUIRES", "make_sampler", "parse_methods", "unavailable"]

METHODS: tuple[str, ...] = ("plain", "balanced", "hard")

DESCRIPTIONS = {
    "plain": "DistributedSampler (sharded shuffling)",
    "balanced": "ClassBalancedSampler, annealed balanced -> natural",
    "hard": "HardExampleSampler (loss-driven)",
}

#: The public fairshard names each method needs.
REQUIRES: dict[str, tuple[str, ...]] = {
    "plain": ("DistributedSampler",),
    "balanced": ("ClassBalancedSampler", "LinearAnneal"),
    "hard": ("HardExampleSampler",),
}


def _public(name: str) -> Any:
    return getattr(fairshard, name)


def unavailable(method: str) -> str | None:
    """Why ``method`` cannot run with this fairshard, or ``None`` when it can."""
    missing = [name for name in REQUIRES[method] if not hasattr(fairshard, name)]
    if missing:
        return f"this fairshard {fairshard.__version__} has no {', '.join(missing)}"
    return None


def parse_methods(text: str) -> list[str]:
    """``"plain,balanced"`` -> ``["plain", "balanced"]``, checked.

    Raises:
        ValueError: an unknown or unavailable method, or none at all.
    """
    names = [part.strip() for part in text.split(",") if part.strip()]
    if not names:
        raise ValueError(f"--methods needs at least one of {', '.join(METHODS)}, got {text!r}")
    for name in names:
        if name not in METHODS:
            raise ValueError(
                f"--methods: unknown method {name!r}; choose from {', '.join(METHODS)}"
            )
        reason = unavailable(name)
        if reason:
            raise ValueError(f"--methods: {name!r} cannot run: {reason}")
    if len(set(names)) != len(names):
        raise ValueError(f"--methods lists a method twice: {text!r}")
    return names


def make_sampler(method: str, labels: NDArray[np.int64], *, seed: int, epochs: int) -> Any:
    """The sampler ``method`` uses; rank and world size come from the process group."""
    if method == "plain":
        return fairshard.DistributedSampler(len(labels), seed=seed)
    if method == "balanced":
        anneal = _public("LinearAnneal")(start=1.0, end=0.0, epochs=epochs)
        return _public("ClassBalancedSampler")(labels, alpha=anneal, seed=seed)
    if method == "hard":
        return _public("HardExampleSampler")(len(labels), seed=seed)
    raise ValueError(f"unknown method {method!r}; choose from {', '.join(METHODS)}")
