"""How well an order shuffles, and how local its reads are: three numbers per rank.

* ``batch_entropy``: the mean, over consecutive batches of a rank's order,
  of the Shannon entropy (bits) of the batch's class histogram. On
  class-sorted data a full shuffle reaches about ``log2(classes)``; reading
  in order gives 0.
* ``adjacent_correlation``: Pearson correlation of consecutive indices in
  the rank's order (1 for sequential reads, about 0 for a shuffle).
* ``block_spread``: distinct blocks of ``block`` neighbouring indices that
  every ``span`` consecutive reads touch, averaged -- the working set a
  disk or page cache sees (``span / block`` for sequential reads, up to
  ``span`` for a random order).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

__all__ = ["SPREAD_SPAN", "adjacent_correlation", "batch_entropy", "block_spread"]

#: Consecutive reads over which ``block_spread`` counts distinct blocks.
SPREAD_SPAN = 4096


def batch_entropy(flat: NDArray[np.int64], labels: NDArray[np.int64], batch: int) -> float | None:
    """Mean class entropy in bits of the whole batches of ``batch`` items of ``flat``.

    Example:
        >>> labels = np.array([0, 0, 1, 1])
        >>> batch_entropy(np.array([0, 2, 1, 3]), labels, 2), batch_entropy(np.arange(4), labels, 2)
        (1.0, 0.0)
    """
    rows = flat.size // batch
    if rows == 0:
        return None
    classes = labels[flat[: rows * batch]].reshape(rows, batch)  # (rows, batch)
    width = int(labels.max(initial=0)) + 1
    counts = np.zeros((rows, width), dtype=np.int64)
    np.add.at(counts, (np.repeat(np.arange(rows), batch), classes.ravel()), 1)
    p = counts / batch
    with np.errstate(divide="ignore", invalid="ignore"):
        bits = -np.where(p > 0, p * np.log2(p), 0.0).sum(axis=1)
    return float(bits.mean())


def adjacent_correlation(flat: NDArray[np.int64]) -> float | None:
    """Correlation of each index with the next one (``None`` under 3 items or no spread)."""
    if flat.size < 3:
        return None
    a, b = flat[:-1].astype(np.float64), flat[1:].astype(np.float64)
    if a.std() == 0 or b.std() == 0:
        return None
    return float(np.corrcoef(a, b)[0, 1])


def block_spread(flat: NDArray[np.int64], block: int, span: int = SPREAD_SPAN) -> float | None:
    """Mean distinct blocks of ``block`` indices per ``span`` consecutive reads.

    Example:
        >>> block_spread(np.arange(8192), 256), block_spread(np.arange(100), 10, span=50)
        (16.0, 5.0)
    """
    runs = flat.size // span
    if runs == 0:
        return None
    blocks = (flat[: runs * span] // block).reshape(runs, span)
    distinct = [np.unique(row).size for row in blocks]
    return float(np.mean(distinct))
