"""The one fork of the global RNGs, for running a foreign sampler reproducibly.

Wrapped samplers (``ShardedSampler``, ``BatchShardSampler``) draw from
Python's ``random``, numpy's legacy global state and torch's default CPU
generator. Running them inside :func:`forked_global_rng` makes their output a
function of the seeds given, and leaves the caller's RNGs exactly as they
were.

NOTE: only the CPU torch generator is seeded. ``torch.manual_seed`` would
also reseed every CUDA device's generator, which
``torch.random.fork_rng(devices=[])`` does not restore, so the caller's GPU
randomness would change.
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Iterator

import numpy as np
import torch

__all__ = ["forked_global_rng"]


@contextlib.contextmanager
def forked_global_rng(python_seed: int, numpy_seed: int, torch_seed: int) -> Iterator[None]:
    """Seed Python's, numpy's and torch's (CPU) global RNGs; restore all three on exit.

    Args:
        python_seed: Seed for ``random`` (any int).
        numpy_seed: Seed for ``numpy.random``'s global state, in ``[0, 2**32)``.
        torch_seed: Seed for torch's default CPU generator, in ``[0, 2**63)``.
    """
    py_state = random.getstate()
    np_state = np.random.get_state()
    try:
        with torch.random.fork_rng(devices=[]):
            random.seed(python_seed)
            np.random.seed(numpy_seed)
            torch.default_generator.manual_seed(torch_seed)
            yield
    finally:
        random.setstate(py_state)
        np.random.set_state(np_state)
