"""A long-tailed digits training split and a balanced test split.

scikit-learn's bundled digits (1797 8x8 images, ten classes of about 180,
no download) are split deterministically: ``test_per_class`` images of every
class form a balanced test set; from the rest, class ``c`` keeps
``head * imbalance ** (-c / 9)`` images, so class 0 has ``imbalance`` times
as many training images as class 9 (about 144 against 3 by default).

The split is a pure function of ``seed``: a numpy ``Generator`` seeded with
``SeedSequence([SPLIT_STREAM, seed])`` shuffles each class once.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "DigitsSplit",
    "load_long_tailed_digits",
    "long_tailed_counts",
    "make_split",
    "missing_extra_message",
]

NUM_CLASSES = 10
SPLIT_STREAM = 0x5EED_D161  # fixed stream id: the split never depends on other randomness

EXTRA_HINT = "pip install 'fairshard[demo]'"


def missing_extra_message(module: str) -> str:
    """What to tell a user whose environment lacks ``module``."""
    return (
        f"fairshard demo needs {module}, which is not installed; install the demo "
        f"extra with: {EXTRA_HINT}"
    )


@dataclass(frozen=True)
class DigitsSplit:
    """Arrays of the split: features scaled to [0, 1], labels as int64."""

    train_x: NDArray[np.float32]  # (n_train, 64)
    train_y: NDArray[np.int64]  # (n_train,)
    test_x: NDArray[np.float32]  # (n_test, 64)
    test_y: NDArray[np.int64]  # (n_test,)

    def class_counts(self) -> list[int]:
        """Training images per class."""
        counts: list[int] = np.bincount(self.train_y, minlength=NUM_CLASSES).tolist()
        return counts

    def save(self, path: Path) -> None:
        """Write the arrays to an ``.npz`` file (what the ranks read)."""
        np.savez(
            path, train_x=self.train_x, train_y=self.train_y, test_x=self.test_x, test_y=self.test_y
        )

    @classmethod
    def load(cls, path: Path) -> DigitsSplit:
        """Read a split written by ``save``."""
        with np.load(path) as f:
            return cls(f["train_x"], f["train_y"], f["test_x"], f["test_y"])


def long_tailed_counts(head: int, imbalance: float, num_classes: int = NUM_CLASSES) -> list[int]:
    """Images kept per class: ``head`` for class 0, decaying geometrically to ``head / imbalance``.

    Example:
        >>> long_tailed_counts(144, 50.0)
        [144, 93, 60, 39, 25, 16, 11, 7, 4, 3]
    """
    if head < 1 or imbalance < 1:
        raise ValueError(
            f"head must be >= 1 and imbalance >= 1, got head={head}, imbalance={imbalance}"
        )
    steps = max(num_classes - 1, 1)
    return [max(1, round(head * imbalance ** (-c / steps))) for c in range(num_classes)]


def make_split(
    x: NDArray[np.floating],
    y: NDArray[np.integer],
    *,
    seed: int = 0,
    test_per_class: int = 30,
    imbalance: float = 50.0,
) -> DigitsSplit:
    """Split ``(x, y)`` into a long-tailed training set and a balanced test set.

    Args:
        x: (n, d) features with values in [0, 16] (the digits' grey levels).
        y: (n,) class labels in ``[0, 10)``.
        seed: Chooses which images go where; the same seed gives the same split.
        test_per_class: Test images per class (the test set is balanced).
        imbalance: Ratio of the largest to the smallest training class.

    Returns:
        The split, training images in class order then shuffled by ``seed``.

    Raises:
        ValueError: a class has too few images for the requested test size.
    """
    labels = np.asarray(y, dtype=np.int64)
    per_class = np.bincount(labels, minlength=NUM_CLASSES)
    smallest = int(per_class.min())
    if smallest <= test_per_class:
        raise ValueError(
            f"test_per_class must be below the smallest class ({smallest} images), got "
            f"test_per_class={test_per_class}"
        )
    rng = np.random.default_rng(np.random.SeedSequence([SPLIT_STREAM, seed]))
    counts = long_tailed_counts(smallest - test_per_class, imbalance)
    train_idx: list[NDArray[np.int64]] = []
    test_idx: list[NDArray[np.int64]] = []
    for c in range(NUM_CLASSES):
        members = rng.permutation(np.flatnonzero(labels == c))
        test_idx.append(members[:test_per_class])
        train_idx.append(members[test_per_class : test_per_class + counts[c]])
    train = rng.permutation(np.concatenate(train_idx))
    test = np.concatenate(test_idx)
    features = np.asarray(x, dtype=np.float32) / 16.0
    return DigitsSplit(features[train], labels[train], features[test], labels[test])


def load_long_tailed_digits(
    *, seed: int = 0, test_per_class: int = 30, imbalance: float = 50.0
) -> DigitsSplit:
    """The long-tailed digits split (imports scikit-learn, bundled data only).

    Raises:
        ImportError: scikit-learn is missing; the message names the extra.
    """
    try:
        from sklearn.datasets import load_digits
    except ImportError as exc:
        raise ImportError(missing_extra_message("scikit-learn")) from exc
    digits = load_digits()
    return make_split(
        digits.data, digits.target, seed=seed, test_per_class=test_per_class, imbalance=imbalance
    )
