"""The family catalog (``tests/catalog.py``) is complete and says true things.

Every concrete kind the library registers has an entry, and each entry
builds the kind it names and has the properties it declares (what it
yields, its tail, whether it is elastic, whether an epoch holds every index
once): the suites that parametrize over the catalog trust them.
"""

from __future__ import annotations

import inspect
import json
from collections import Counter
from typing import Any

import numpy as np
import pytest

from fairshard._core.registry import families
from tests.catalog import CATALOG, batch_families, sampler_families
from tests.contract import flat, plan_multiset

N = 54  # nine-index batches split evenly over 3 ranks (no padding warning)


def test_every_registered_family_is_in_the_catalog() -> None:
    registered = set(families())
    assert registered, "nothing registered: the package did not import its families"
    missing = registered - {f.kind for f in CATALOG.values()}
    assert not missing, f"add a tests/catalog.py entry for {sorted(missing)}"
    unknown = {f.kind for f in CATALOG.values()} - registered
    assert not unknown, f"catalog entries name kinds nothing registers: {sorted(unknown)}"


@pytest.mark.parametrize("name", sorted(CATALOG))
def test_entry_builds_the_kind_it_names(name: str) -> None:
    family = CATALOG[name]
    small, pinned = family.make(N, 1, 3), family.pinned(3, 1)
    for sampler in (small, pinned):
        assert type(sampler).kind == family.kind
        assert (sampler.num_replicas, sampler.rank) == (3, 1)
    assert json.loads(json.dumps(small.state_dict()))["kind"] == family.kind


@pytest.mark.parametrize("name", sorted(f.name for f in sampler_families()))
def test_entry_properties_hold(name: str) -> None:
    family = CATALOG[name]
    sampler = family.make(N, 0, 3)
    assert sampler.tail == family.tail
    # one_key_per_step lays its plan out for the world size (config "step_run")
    laid_out_for_world = sampler.full_config().get("step_run", 1) != 1
    assert (sampler.layout == "strided" and not laid_out_for_world) == family.elastic
    first = next(iter(family.make(N, 0, 3)))
    if family.items == "index":
        assert isinstance(first, int | np.integer)
    elif family.items == "batch":
        assert isinstance(first, list) and all(isinstance(i, int | np.integer) for i in first)
    else:  # rows
        assert isinstance(first, list) and all(isinstance(row, list) for row in first)
    if family.every_index_once:
        assert plan_multiset(sampler) == Counter(range(N))
    whole = family.make(N, 0, 1)
    assert sorted(Counter(flat(whole)).elements()) == sorted(plan_multiset(whole).elements())
    kwargs: dict[str, Any] = {"auto_epoch": True}
    if family.auto_epoch:
        assert family.make(N, 0, 3, **kwargs).auto_epoch
    else:
        with pytest.raises(TypeError):
            family.make(N, 0, 3, **kwargs)


def test_batch_selection_is_every_batch_family() -> None:
    assert {f.name for f in batch_families()} == {
        f.name for f in sampler_families() if f.items in ("batch", "rows")
    }
    assert {f.kind for f in batch_families()} >= {
        k for k in families() if k.endswith("BatchSampler") or k == "BatchShardSampler"
    }


def test_every_sampler_family_is_in_the_fault_harness() -> None:
    from tests.fault.families import REGISTRY

    for family in sampler_families():
        assert family.name in REGISTRY, family.name
        assert REGISTRY[family.name].elastic == family.elastic


def test_every_reader_of_a_per_sample_input_declares_it() -> None:
    """A family whose first parameter is labels, lengths or weights says so (and how to feed it)."""
    for kind, cls in families().items():
        first = next(iter(inspect.signature(cls).parameters))
        if first in ("labels", "lengths", "weights"):
            entries = [f for f in CATALOG.values() if f.kind == kind and f.reads == first]
            assert entries and entries[0].from_input, f"{kind} reads {first}: declare it"
            assert type(entries[0].from_input(np.array([3, 1, 3, 1, 2, 2]))).kind == kind
