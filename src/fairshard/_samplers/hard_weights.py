"""Sampling weights of ``HardExampleSampler`` from its loss scores.

A pure function over numpy arrays, shared by the sampler's epoch update and
its ``load_state_dict``: ``weighting="softmax"`` (sharpness set by a
temperature) or ``"proportional"`` (the tutorials' weights: twice the loss,
twice the draws), both mixed with a uniform floor so no sample starves.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from numpy.typing import NDArray

__all__ = ["WEIGHTINGS", "Weighting", "sampling_weights"]

Weighting = Literal["softmax", "proportional"]
WEIGHTINGS: tuple[Weighting, ...] = ("softmax", "proportional")


def sampling_weights(
    scores: NDArray[np.float64],
    *,
    weighting: Weighting,
    temperature: float,
    floor: float,
    prior: float | None,
) -> NDArray[np.float64]:
    """(n,) sampling weights (summing to 1) of ``scores``; NaN marks unseen samples.

    ``w_i = f / n + (1 - f) * q_i`` with ``q = softmax(s / T)`` or, for
    ``"proportional"``, ``q_i = s_i / sum_j s_j`` (uniform when every score
    is 0). Unseen samples score ``prior``, by default the mean of the seen
    scores (1.0 while none is seen).

    NOTE (overflow): ``mean(s)``, ``s / T`` and ``sum(s)`` overflow for
    scores near the float64 limit (a loss of 1e308, or 1e300 at
    ``T = 1e-10``); then the prior is ``sum(s / k)``, the logits ``z - max z``
    are computed as ``(s - max s) / T`` and proportional weights as
    ``(s / max s) / sum(s / max s)``. Otherwise the plain formulas run, so
    ordinary scores give the same weights as always.
    """
    n = scores.shape[0]
    seen = ~np.isnan(scores)
    if prior is None:
        if seen.any():
            known = scores[seen]
            with np.errstate(over="ignore"):
                prior = float(known.mean())
            if not np.isfinite(prior):
                prior = float(np.sum(known / known.size))
        else:
            prior = 1.0
    s = np.where(seen, scores, prior)
    if weighting == "proportional":
        top = float(s.max())
        if top <= 0.0:  # every score 0: nothing is harder than anything else
            share = np.full(n, 1.0 / n)
        else:
            with np.errstate(over="ignore"):
                total = float(s.sum())
            share = s / total if np.isfinite(total) else (s / top) / float((s / top).sum())
    else:
        with np.errstate(over="ignore"):
            z = s / temperature
        if np.isfinite(z).all():
            z -= z.max()
        else:
            with np.errstate(over="ignore"):
                z = (s - s.max()) / temperature
        e = np.exp(z)
        share = e / e.sum()
    weights: NDArray[np.float64] = floor / n + (1 - floor) * share
    return weights
