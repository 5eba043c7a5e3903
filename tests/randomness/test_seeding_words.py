"""stream_words is numpy's SeedSequence, computed without importing numpy.random."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fairshard._random.seeding import _entropy, stream_words


@given(
    stream_id=st.integers(0, 2**64 - 1),
    sub_id=st.integers(0, 2**64 - 1),
    epoch=st.integers(0, 2**64 - 1),
    seed=st.integers(0, 2**64 - 1),
    count=st.integers(0, 9),
)
def test_equals_numpy_seed_sequence(
    stream_id: int, sub_id: int, epoch: int, seed: int, count: int
) -> None:
    seq = np.random.SeedSequence(_entropy(stream_id, sub_id, epoch, seed))
    expected = seq.generate_state(count, np.uint64)
    got = stream_words(stream_id, epoch, seed, count, sub_id=sub_id)
    assert got.dtype == np.uint64 and np.array_equal(got, expected)


@pytest.mark.skipif(
    int(np.__version__.split(".")[0]) < 2,
    reason="numpy 1.x imports numpy.random at `import numpy`; the saving needs numpy 2",
)
def test_a_lazy_sampler_resumes_without_importing_numpy_random() -> None:
    # A fresh process (a real restart): import, load a state, take the first index.
    code = (
        "import sys, fairshard\n"
        "a = fairshard.DistributedSampler(1000, 4, 1, seed=3); it = iter(a); next(it)\n"
        "s = fairshard.DistributedSampler(1000, 4, 1, seed=3)\n"
        "s.load_state_dict(a.state_dict()); next(iter(s))\n"
        "print('numpy.random' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
