"""Shared hypothesis strategies for sampler configurations."""

from __future__ import annotations

from hypothesis import strategies as st

from fairshard._core.partition import LAYOUTS, TAILS

sizes = st.integers(min_value=0, max_value=100_000)
small_sizes = st.integers(min_value=0, max_value=3_000)
world_sizes = st.integers(min_value=1, max_value=64)
seeds = st.integers(min_value=0, max_value=2**64 - 1)
epochs = st.integers(min_value=0, max_value=10_000)
layouts = st.sampled_from(LAYOUTS)
tails = st.sampled_from(TAILS)
