"""Per-sample values for the simulator -- labels, weights, lengths -- from files.

One reader for all three (``load_labels``, ``load_weights``,
``load_lengths``); labels also come from a built-in long-tailed demo set.
``load_labels(spec)`` accepts (the others the same files, without ``demo``):

* ``"demo"`` (or ``"demo:N"``): :func:`demo_labels`, a deterministic
  long-tailed label vector (10 classes, the largest 100x the smallest);
* a ``.npy`` file holding a 1-D integer array;
* a ``.txt`` file with one integer per line (blank lines and ``#`` comments
  skipped);
* a ``.csv`` file and a column: ``labels.csv:label`` (by header name) or
  ``labels.csv:2`` (0-based position); a file with one column needs none.

Labels are non-negative integers (``labels[i]`` is the class of dataset
index ``i``); weights are finite and non-negative; lengths are positive
integers. Anything else -- a file that is not what its suffix says, text
that is not numbers, values beyond int64 -- is a ``ConfigError`` naming the
file and the fix, never another exception.
"""

from __future__ import annotations

import csv
import os
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._errors import ConfigError, check_int, check_real

__all__ = ["DEMO_SEED", "demo_labels", "load_labels", "load_lengths", "load_weights"]

#: Largest demo label set (``demo:N``).
MAX_DEMO = 100_000_000

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


def _as_numbers(values: NDArray[np.generic], source: str) -> NDArray[np.float64]:
    if values.ndim != 1:
        raise ConfigError(
            f"values from {source} must be a 1-D array, got shape {values.shape}; "
            "save one value per sample"
        )
    if values.size and not (
        np.issubdtype(values.dtype, np.integer) or np.issubdtype(values.dtype, np.floating)
    ):
        raise ConfigError(
            f"values from {source} must be numbers, got dtype {values.dtype}; "
            "save a numeric array (map class names to 0..C-1 first)"
        )
    return values.astype(np.float64)


def _check_integers(values: NDArray[np.generic], source: str, what: str) -> NDArray[np.int64]:
    as_float = _as_numbers(values, source)
    fractional = not np.all(np.isfinite(as_float)) or np.any(as_float != np.round(as_float))
    if values.size and not np.issubdtype(values.dtype, np.integer) and fractional:
        raise ConfigError(
            f"{what} from {source} must be integers, got dtype {values.dtype}; give whole numbers"
        )
    limit = float(np.iinfo(np.int64).max)
    if values.size and (np.abs(as_float).max() >= limit or _beyond_int64(values)):
        raise ConfigError(f"{what} from {source} do not fit in int64; use values below 2**63")
    return values.astype(np.int64)


def _beyond_int64(values: NDArray[np.generic]) -> bool:
    if values.dtype == np.uint64:
        return bool(values.size and values.max() > np.iinfo(np.int64).max)
    return values.dtype == object


def _check_vector(values: NDArray[np.generic], source: str) -> NDArray[np.int64]:
    labels = _check_integers(values, source, "labels")
    if labels.size and labels.min() < 0:
        raise ConfigError(
            f"labels from {source} must be >= 0, got {int(labels.min())}; use class ids 0..C-1"
        )
    return labels


def _read_txt(path: Path) -> NDArray[np.generic]:
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(
            f"{path} is not UTF-8 text ({exc.reason} at byte {exc.start}); save it as UTF-8 "
            "with one number per line"
        ) from None
    values: list[str] = []
    for line in text.splitlines():
        value = line.split("#", 1)[0].strip()
        if value:
            values.append(value)
    try:
        numbers = [float(v) if any(c in v for c in ".eE") else int(v) for v in values]
    except ValueError as exc:
        raise ConfigError(f"{path} must hold one number per line: {exc}") from None
    if any(isinstance(v, int) and abs(v) >= 2**63 for v in numbers):
        raise ConfigError(f"{path} holds values that do not fit in int64; use values below 2**63")
    return np.asarray(numbers)


def _read_csv(path: Path, column: str | None) -> NDArray[np.generic]:
    try:
        with path.open(newline="", encoding="utf-8") as handle:
            rows = [row for row in csv.reader(handle) if row]
    except (UnicodeDecodeError, csv.Error) as exc:
        raise ConfigError(f"{path} is not a UTF-8 CSV file: {exc}") from None
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
        cells = [row[index].strip() for row in body]
        numbers = [float(c) if any(ch in c for ch in ".eE") else int(c) for c in cells]
    except (ValueError, IndexError) as exc:
        raise ConfigError(f"column {column!r} of {path} must hold numbers: {exc}") from None
    if any(isinstance(v, int) and abs(v) >= 2**63 for v in numbers):
        raise ConfigError(f"{path} holds values that do not fit in int64; use values below 2**63")
    return np.asarray(numbers) if numbers else np.empty(0, dtype=np.int64)


def _read_file(spec: str, what: str, flag: str) -> tuple[NDArray[np.generic], Path]:
    """The raw 1-D values of ``spec`` (a path or ``path.csv:column``)."""
    column: str | None = None
    path = Path(spec)
    if not path.exists() and ":" in spec:
        head, _, column = spec.rpartition(":")
        path = Path(head)
    if not path.is_file():
        where = "does not exist" if not path.exists() else "is not a regular file"
        raise ConfigError(
            f"{flag} {spec!r}: the {what} file {where}; give a .npy, .txt or .csv file"
            + (", or 'demo'" if what == "labels" else "")
        )
    suffix = path.suffix.lower()
    if suffix == ".npy":
        try:
            values: NDArray[np.generic] = np.load(path, allow_pickle=False)
        except (ValueError, OSError, EOFError) as exc:
            raise ConfigError(
                f"{flag} {spec!r} is not a readable .npy array ({exc}); save it with numpy.save"
            ) from None
        if not isinstance(values, np.ndarray):
            raise ConfigError(f"{flag} {spec!r} holds an archive, not one array; use numpy.save")
    elif suffix == ".txt":
        values = _read_txt(path)
    elif suffix == ".csv":
        values = _read_csv(path, column)
    else:
        raise ConfigError(f"{flag} file {path} must end in .npy, .txt or .csv, got {suffix!r}")
    return values, path


def _check_size(values: NDArray[Any], path: Path, what: str, dataset_size: int | None) -> None:
    if dataset_size is not None and values.size < dataset_size:
        raise ConfigError(
            f"{what} file {path} has {values.size} {what} but the dataset has "
            f"{dataset_size} samples; give one value per sample"
        )


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
        size = dataset_size or 10_000
        if text.startswith("demo:"):
            raw = text[5:]
            if not raw.isdigit() or not 0 <= int(raw) <= MAX_DEMO:
                raise ConfigError(
                    f"--labels {text!r}: demo:N needs a whole number N from 0 to {MAX_DEMO}, "
                    "e.g. demo:10000"
                )
            size = int(raw)
        return demo_labels(size)
    values, path = _read_file(text, "labels", "--labels")
    labels = _check_vector(values, str(path))
    _check_size(labels, path, "labels", dataset_size)
    return labels


def load_weights(
    spec: str | os.PathLike[str], dataset_size: int | None = None
) -> NDArray[np.float64]:
    """Per-sample weights from a .npy, .txt or .csv(:column) file: finite and >= 0.

    Raises:
        ConfigError: unreadable file, wrong shape, negative or non-finite values.
    """
    values, path = _read_file(os.fspath(spec), "weights", "--weights")
    weights = _as_numbers(values, str(path))
    if weights.size and (not np.all(np.isfinite(weights)) or weights.min() < 0):
        raise ConfigError(
            f"weights from {path} must be finite and >= 0; fix the file (found "
            f"min {weights.min()}, max {weights.max()})"
        )
    _check_size(weights, path, "weights", dataset_size)
    return weights


def load_lengths(
    spec: str | os.PathLike[str], dataset_size: int | None = None
) -> NDArray[np.int64]:
    """Per-sample lengths (tokens, frames...) from a .npy, .txt or .csv(:column) file: >= 1.

    Raises:
        ConfigError: unreadable file, wrong shape, non-integer or non-positive values.
    """
    values, path = _read_file(os.fspath(spec), "lengths", "--lengths")
    lengths = _check_integers(values, str(path), "lengths")
    if lengths.size and lengths.min() < 1:
        raise ConfigError(f"lengths from {path} must be >= 1, got {int(lengths.min())}")
    _check_size(lengths, path, "lengths", dataset_size)
    return lengths
