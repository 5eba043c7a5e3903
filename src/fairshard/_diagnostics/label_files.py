"""Class labels for the simulator: from a file, or a built-in long-tailed demo set.

``load_labels(spec)`` accepts:

* ``"demo"`` (or ``"demo:N"``): :func:`demo_labels`, a deterministic
  long-tailed label vector (10 classes, the largest 100x the smallest);
* a ``.npy`` file holding a 1-D integer array;
* a ``.txt`` file with one integer per line (blank lines and ``#`` comments
  skipped);
* a ``.csv`` file and a column: ``labels.csv:label`` (by header name) or
  ``labels.csv:2`` (0-based position); a file with one column needs none.

Labels are non-negative integers; ``labels[i]`` is the class of dataset
index ``i``.
"""

from __future__ import annotations

import csv
import os
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from .._errors import ConfigError, check_int, check_real

__all__ = ["DEMO_SEED", "demo_labels", "load_labels"]

#: Root seed of the demo dataset (fixed, so every run sees the same labels).
DEMO_SEED = 20240611


def demo_labels(
    n: int = 10_000, num_classes: int = 10, imbalance: float = 100.0
) -> NDArray[np.int64]:
    """A long-tailed label vector, identical on every call with the same arguments.

    Class ``c`` gets a share proportional to ``imbalance ** (-c / (C - 1))``,
    so class 0 is ``imbalance`` times as frequent as class ``C - 1``. Counts
    are rounded by largest remainder (they sum to ``n`` exactly, and every
    class has at least one sample when ``n >= num_classes``); the labels are
    then shuffled with a fixed seed, so rank shares of an unshuffled sampler
    still see a mix.

    Example:
        >>> labels = demo_labels(1000)
        >>> np.bincount(labels).tolist()
        [403, 241, 145, 87, 52, 31, 19, 11, 7, 4]
    """
    n = check_int("n", n, minimum=0)
    num_classes = check_int("num_classes", num_classes, minimum=1)
    imbalance = check_real("imbalance", imbalance, minimum=1.0)
    exponents = np.arange(num_classes, dtype=np.float64) / max(num_classes - 1, 1)
    shares = imbalance ** (-exponents)
    ideal = shares / shares.sum() * n  # (C,) real-valued counts
    counts = np.floor(ideal).astype(np.int64)
    if n >= num_classes:
        counts = np.maximum(counts, 1)
    short = n - int(counts.sum())
    order = np.argsort(-(ideal - counts), kind="stable")
    if short > 0:
        counts[order[:short]] += 1
    for _ in range(-short):  # the minimum of one per class overshot: take from the largest
        counts[int(np.argmax(counts))] -= 1
    counts = np.sort(counts)[::-1]  # class 0 stays the most frequent
    labels = np.repeat(np.arange(num_classes, dtype=np.int64), counts)
    rng = np.random.Generator(np.random.PCG64(DEMO_SEED))
    result: NDArray[np.int64] = labels[rng.permutation(labels.size)]
    return result


def _check_vector(values: NDArray[np.generic], source: str) -> NDArray[np.int64]:
    if values.ndim != 1:
        raise ConfigError(
            f"labels from {source} must be a 1-D array, got shape {values.shape}; "
            "save one label per sample"
        )
    if values.size and not np.issubdtype(values.dtype, np.integer):
        as_float = values.astype(np.float64)
        if not np.all(np.isfinite(as_float)) or np.any(as_float != np.round(as_float)):
            raise ConfigError(
                f"labels from {source} must be integers, got dtype {values.dtype}; "
                "map class names to 0..C-1 first"
            )
    labels = values.astype(np.int64)
    if labels.size and labels.min() < 0:
        raise ConfigError(
            f"labels from {source} must be >= 0, got {int(labels.min())}; use class ids 0..C-1"
        )
    return labels


def _read_txt(path: Path) -> NDArray[np.generic]:
    values: list[str] = []
    for line in path.read_text().splitlines():
        text = line.split("#", 1)[0].strip()
        if text:
            values.append(text)
    try:
        return np.asarray([float(v) if "." in v else int(v) for v in values])
    except ValueError as exc:
        raise ConfigError(f"labels file {path} must hold one integer per line: {exc}") from None


def _read_csv(path: Path, column: str | None) -> NDArray[np.generic]:
    with path.open(newline="") as handle:
        rows = [row for row in csv.reader(handle) if row]
    if not rows:
        return np.empty(0, dtype=np.int64)
    header = rows[0]
    has_header = not all(cell.strip().lstrip("-").isdigit() for cell in header)
    body = rows[1:] if has_header else rows
    if column is None:
        if len(header) != 1:
            raise ConfigError(
                f"{path} has {len(header)} columns; name one, e.g. {path}:{header[-1]}"
                if has_header
                else f"{path} has {len(header)} columns; pick one, e.g. {path}:0"
            )
        index = 0
    elif column.isdigit():
        index = int(column)
    elif has_header and column in header:
        index = header.index(column)
    else:
        raise ConfigError(
            f"column {column!r} not found in {path}; columns are "
            f"{header if has_header else list(range(len(header)))}"
        )
    try:
        return np.asarray([int(row[index]) for row in body], dtype=np.int64)
    except (ValueError, IndexError) as exc:
        raise ConfigError(f"column {column!r} of {path} must hold integers: {exc}") from None


def load_labels(spec: str | os.PathLike[str], dataset_size: int | None = None) -> NDArray[np.int64]:
    """Load labels as described in the module docstring.

    Args:
        spec: ``"demo"``, ``"demo:N"``, a path, or ``path.csv:column``.
        dataset_size: Size of the demo set (default 10000); for files, the
            labels must cover at least this many indices.

    Returns:
        (n,) int64 labels.

    Raises:
        ConfigError: unreadable file, wrong shape or type, or too few labels.
    """
    text = os.fspath(spec)
    if text == "demo" or text.startswith("demo:"):
        size = int(text[5:]) if text.startswith("demo:") else (dataset_size or 10_000)
        return demo_labels(size)
    column: str | None = None
    path = Path(text)
    if not path.exists() and ":" in text:
        head, _, column = text.rpartition(":")
        path = Path(head)
    if not path.is_file():
        raise ConfigError(
            f"labels file {text!r} does not exist; give a .npy, .txt or .csv file, or 'demo'"
        )
    suffix = path.suffix.lower()
    if suffix == ".npy":
        values: NDArray[np.generic] = np.load(path, allow_pickle=False)
    elif suffix == ".txt":
        values = _read_txt(path)
    elif suffix == ".csv":
        values = _read_csv(path, column)
    else:
        raise ConfigError(f"labels file {path} must end in .npy, .txt or .csv, got {suffix!r}")
    labels = _check_vector(values, str(path))
    if dataset_size is not None and labels.size < dataset_size:
        raise ConfigError(
            f"labels file {path} has {labels.size} labels but the dataset has "
            f"{dataset_size} samples; give one label per sample"
        )
    return labels
