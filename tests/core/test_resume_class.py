"""The class test of resume: every loader x save point x set_epoch x probe, every family.

For each family of the catalog (``tests/catalog.py``) a pass over epoch 1 is
cut at a save point (nothing taken, the middle, the end), saved the way the
loader's recipe says (docs/resume.md: ``loader_state_dict`` for torch's
``DataLoader``, ``loader.state_dict()`` for ``StatefulDataLoader``), and
resumed in a fresh process-like setting: a fresh sampler and loader, then
optionally the DDP tutorial's probe ``next(iter(loader))``, then optionally
the resume loop's ``set_epoch`` (the saved epoch, or the next one when the
saved epoch was finished), then the loop. What the loop gets must be the
rest of the uninterrupted epoch (or the next epoch): nothing lost, nothing
repeated, and no warning but the one that explains an empty pass at the end
of a loaded epoch. ``torchdata.nodes`` runs torchdata's own save/load check.

Grids: ``num_workers=0`` loaders run the full grid for every family (cheap);
the worker loaders (in order and not, torch's and torchdata's) run one cell
per family, rotating over the families so every worker configuration and
every cell is covered by several families (workers are expensive).
"""

from __future__ import annotations

import itertools
import warnings
from collections import Counter
from typing import Any

import pytest
from torch.utils.data import DataLoader

import fairshard
from fairshard import ConfigError, DegenerateConfigWarning
from tests.catalog import CATALOG, Family, loader_parts
from tests.core.test_resume_defects import _run_test_save_load_state

pytestmark = pytest.mark.filterwarnings("ignore:'set_vital' is deprecated:UserWarning")

sdl = pytest.importorskip("torchdata.stateful_dataloader")

N = 48
WORLD, RANK = 2, 1
BATCH = 4
NAMES = sorted(CATALOG)
CUTS = ("start", "mid", "end")
CELLS = list(itertools.product(CUTS, (False, True), (False, True)))  # cut, set_epoch, probe
WORKER_LOADERS = ("dl2", "dl2-unordered", "sdl2")
HAS_IN_ORDER = hasattr(DataLoader(range(1)), "in_order")


def _build(family: Family, sampler: Any, how: str) -> Any:
    """The loader ``how`` over ``sampler`` (a sampler, or a ``ShardedIterable``)."""
    workers = 2 if how.startswith(("dl2", "sdl2")) else 0
    kwargs: dict[str, Any] = {"num_workers": workers}
    if workers:
        kwargs["multiprocessing_context"] = "fork"
    if how == "dl2-unordered":
        kwargs["in_order"] = False
    cls = sdl.StatefulDataLoader if how.startswith("sdl") else DataLoader
    if family.items == "stream":
        return cls(sampler, batch_size=BATCH, **kwargs)
    dataset, common, _ = loader_parts(family, N, BATCH)
    keyword = "batch_sampler" if family.batched else "sampler"
    return cls(dataset, **{keyword: sampler}, **common, **kwargs)


def _ids(family: Family) -> Any:
    if family.items == "stream":
        return lambda batch: [int(v) for v in batch.tolist()]
    return loader_parts(family, N, BATCH)[2]


def _take(loader: Any, ids: Any, k: int | None) -> list[list[int]]:
    out: list[list[int]] = []
    if k == 0:
        return out
    for batch in loader:
        out.append(ids(batch))
        if k is not None and len(out) == k:
            break
    return out


_REFERENCE: dict[str, tuple[list[list[int]], list[list[int]]]] = {}


def _reference(family: Family) -> tuple[list[list[int]], list[list[int]]]:
    """Epochs 1 and 2 of rank ``RANK``, uninterrupted, in batches."""
    if family.name not in _REFERENCE:
        sampler = family.make(N, RANK, WORLD)
        loader = _build(family, sampler, "dl0")
        epochs = []
        for epoch in (1, 2):
            sampler.set_epoch(epoch)
            epochs.append(_take(loader, _ids(family), None))
        _REFERENCE[family.name] = (epochs[0], epochs[1])
    return _REFERENCE[family.name]


def _scenario(family: Family, how: str, cut: str, follow: bool, probe: bool) -> None:
    one, two = _reference(family)
    ids = _ids(family)
    k = {"start": 0, "mid": len(one) // 2, "end": len(one)}[cut]
    complete = k == len(one)
    sampler = family.make(N, RANK, WORLD)
    sampler.set_epoch(1)
    loader = _build(family, sampler, how)
    taken = _take(loader, ids, None if complete else k)
    assert len(taken) == k
    if how.startswith("sdl"):
        state = loader.state_dict()
    elif how == "dl2-unordered" and 0 < k < len(one):
        with pytest.raises(ConfigError, match="in_order=True"):
            fairshard.loader_state_dict(loader, batches=k)
        return
    else:
        state = fairshard.loader_state_dict(loader, batches=k)
    del loader

    fresh = family.make(N, RANK, WORLD)
    loader = _build(family, fresh, how)
    if how.startswith("sdl"):
        loader.load_state_dict(state)
    else:
        fresh.load_state_dict(state)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if probe:
            probe_batches = _take(loader, ids, 1)
            assert probe_batches == (one[k : k + 1] if how != "dl2-unordered" else probe_batches)
        if follow:
            fresh.set_epoch(2 if complete else 1)
        rest = _take(loader, ids, None)
    # A finished epoch: the next one after set_epoch; else the loop's pass is empty --
    # unless a probe already ran that empty pass out, when the loop repeats the epoch
    # (loudly: the repeat warning).
    repeat = complete and probe and not follow
    expected = (two if follow else one if probe else []) if complete else one[k:]
    where = f"{family.name} {how}: cut={cut} set_epoch={follow} probe={probe}"
    if how == "dl2-unordered" or family.items == "stream":  # batches in another order
        assert Counter(map(tuple, rest)) == Counter(map(tuple, expected)), where
    else:
        assert rest == expected, where
    for w in caught:
        if issubclass(w.category, DegenerateConfigWarning):
            message = str(w.message)
            if "yields nothing" in message:  # the empty pass at the end of a loaded epoch
                assert complete and (probe or not follow), f"{where}: {message}"
            else:
                assert repeat and "another pass" in message, f"{where}: {message}"
    if repeat and family.shuffled and family.items != "stream":
        assert any("another pass" in str(w.message) for w in caught), f"{where}: silent"


@pytest.mark.timeout(240)
@pytest.mark.parametrize("how", ["dl0", "sdl0"])
@pytest.mark.parametrize("name", NAMES)
def test_every_cell_without_workers(name: str, how: str) -> None:
    for cut, follow, probe in CELLS:
        _scenario(CATALOG[name], how, cut, follow, probe)


def _worker_cells() -> list[tuple[str, str, str, bool, bool]]:
    """One (family, loader, cell) per family, rotating loaders and cells."""
    cells = [
        ("mid", False, False),
        ("mid", True, True),
        ("end", True, True),
        ("start", False, True),
    ]
    out = []
    for i, name in enumerate(NAMES):
        how = WORKER_LOADERS[i % len(WORKER_LOADERS)]
        cut, follow, probe = cells[(i // len(WORKER_LOADERS)) % len(cells)]
        out.append((name, how, cut, follow, probe))
    return out


@pytest.mark.timeout(240)
@pytest.mark.parametrize(("name", "how", "cut", "follow", "probe"), _worker_cells())
def test_one_cell_per_family_with_workers(
    name: str, how: str, cut: str, follow: bool, probe: bool
) -> None:
    if how == "dl2-unordered" and not HAS_IN_ORDER:
        pytest.skip("DataLoader(in_order=...) needs torch >= 2.6")
    if CATALOG[name].items == "stream" and how == "sdl2" and cut == "end":
        # Known, not fixed here: StatefulDataLoader replaces a finished iterator by a
        # fresh one whose workers copy the main process's stream, which never saw the
        # per-worker states -- the probe gets a batch of the main copy's epoch.
        pytest.xfail("StatefulDataLoader with workers restarts a finished stream fresh")
    _scenario(CATALOG[name], how, cut, follow, probe)


@pytest.mark.parametrize("name", NAMES)
def test_torchdata_nodes_own_check(name: str) -> None:
    nodes = pytest.importorskip("torchdata.nodes")
    family = CATALOG[name]
    sampler = family.make(N, RANK, WORLD)
    midpoint = len(sampler) // 2
    if family.items == "stream":
        # IterableWrapper never calls set_epoch: shard mode rightly warns that its
        # shard order repeats; the check is about what the passes yield.
        node = nodes.IterableWrapper(sampler)
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", "ShardedIterable: starting another pass")
            _run_test_save_load_state(node, midpoint)
    else:
        _run_test_save_load_state(nodes.SamplerWrapper(sampler), midpoint)
