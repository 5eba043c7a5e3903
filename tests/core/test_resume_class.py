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
every cell is covered by several families (workers are expensive). A stream batched
in DataLoader workers is compared with an uninterrupted pass of as many workers (which
items its first batches hold depends on ``num_workers``), and what the loop took with
the rest must be the whole epoch.
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
#: Larger for the worker loaders: a probe must not draw the whole rest of the pass into
#: the prefetch (then, once the probe's loader is gone, the pass looks finished: the one
#: case docs/resume.md says cannot be told apart).
N_WORKERS = 320
WORLD, RANK = 2, 1
BATCH = 4
NAMES = sorted(CATALOG)
CUTS = ("start", "mid", "end")
CELLS = list(itertools.product(CUTS, (False, True), (False, True)))  # cut, set_epoch, probe
WORKER_LOADERS = ("dl2", "dl2-unordered", "sdl2")
HAS_IN_ORDER = hasattr(DataLoader(range(1)), "in_order")


def _workers(how: str) -> int:
    """The ``num_workers`` of loader ``how``: ``dl0``, ``dl2-unordered``, ``sdl2``, ``dl3``..."""
    return int(how.removeprefix("s").removeprefix("dl")[0])


def _build(family: Family, sampler: Any, how: str, n: int = N) -> Any:
    """The loader ``how`` over ``sampler`` (a sampler, or a ``ShardedIterable``)."""
    workers = _workers(how)
    kwargs: dict[str, Any] = {"num_workers": workers}
    if workers:
        kwargs["multiprocessing_context"] = "fork"
        kwargs["prefetch_factor"] = 1
    if how == "dl2-unordered":
        kwargs["in_order"] = False
    cls = sdl.StatefulDataLoader if how.startswith("sdl") else DataLoader
    if family.items == "stream":
        return cls(sampler, batch_size=BATCH, **kwargs)
    dataset, common, _ = loader_parts(family, n, BATCH)
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


_REFERENCE: dict[tuple[str, int, int], tuple[list[list[int]], list[list[int]]]] = {}


def _items(batches: list[list[int]]) -> Counter[int]:
    return Counter(i for b in batches for i in b)


def _reference(family: Family, n: int, workers: int = 0) -> tuple[list[list[int]], list[list[int]]]:
    """Epochs 1 and 2 of rank ``RANK``, uninterrupted, in batches.

    A stream is batched inside its ``workers`` DataLoader workers, and in shard mode
    each worker reads a contiguous block of the rank's stream, so which items the
    first ``k`` batches hold depends on ``num_workers``: its reference is read by an
    in-order loader with as many workers, and holds the same items as without them.
    """
    workers = workers if family.items == "stream" else 0
    if (family.name, n, workers) not in _REFERENCE:
        sampler = family.make(n, RANK, WORLD)
        loader = _build(family, sampler, f"dl{workers}", n)
        epochs = []
        for epoch in (1, 2):
            sampler.set_epoch(epoch)
            epochs.append(_take(loader, _ids(family), None))
        if workers:
            alone = _reference(family, n)
            assert [_items(e) for e in epochs] == [_items(e) for e in alone], family.name
        _REFERENCE[family.name, n, workers] = (epochs[0], epochs[1])
    return _REFERENCE[family.name, n, workers]


def _scenario(family: Family, how: str, cut: str, follow: bool, probe: bool, n: int = N) -> None:
    one, two = _reference(family, n, _workers(how))
    ids = _ids(family)
    k = {"start": 0, "early": 1, "mid": len(one) // 2, "late": len(one) - 1, "end": len(one)}[cut]
    complete = k == len(one)
    sampler = family.make(n, RANK, WORLD)
    sampler.set_epoch(1)
    loader = _build(family, sampler, how, n)
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

    fresh = family.make(n, RANK, WORLD)
    loader = _build(family, fresh, how, n)
    where = f"{family.name} {how}: cut={cut} set_epoch={follow} probe={probe}"
    workers = _workers(how) > 0
    # Batch by batch, in the uninterrupted order -- but not when the loader hands batches
    # over as they finish, nor for a stream over workers (the workers batch the items).
    exact = how != "dl2-unordered" and not (family.items == "stream" and workers)
    if how.startswith("sdl"):
        loader.load_state_dict(state)
    else:
        fresh.load_state_dict(state)
    # A state at the end of epoch 1 that the sampler itself loads is the start of epoch 2
    # (the epoch boundary); torchdata's loaders restore a finished epoch themselves, and a
    # stream keeps the end of its epoch.
    boundary = complete and not how.startswith("sdl") and family.items != "stream"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if probe:
            probe_batches = _take(loader, ids, 1)
            if exact:
                assert probe_batches == (two[:1] if boundary else one[k : k + 1]), where
        if follow:
            fresh.set_epoch(2 if complete else 1)
        rest = _take(loader, ids, None)
    # A finished epoch: the next one after set_epoch; else the loop's pass is empty --
    # unless a probe already ran that empty pass out, when the loop repeats the epoch
    # (loudly: the repeat warning).
    repeat = complete and probe and not follow and not boundary
    expected = (two if follow else one if probe else []) if complete else one[k:]
    if boundary:  # epoch 2 from its start, with or without set_epoch(2), probed or not
        expected = two
    if exact:
        assert rest == expected, where
    elif family.items == "stream":  # each worker batches its own items
        assert _items(rest) == _items(expected), where
        if not complete:  # with what the loop took: the whole epoch, each item once
            assert _items(taken) + _items(rest) == _items(one), where
    else:  # the same batches, as they finished
        assert Counter(map(tuple, rest)) == Counter(map(tuple, expected)), where
    for w in caught:
        if issubclass(w.category, DegenerateConfigWarning):
            message = str(w.message)
            if "yields nothing" in message:  # the empty pass at the end of a loaded epoch
                assert complete and not boundary and (probe or not follow), f"{where}: {message}"
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
    if CATALOG[name].items == "stream" and how == "sdl2" and (cut == "end" or probe):
        # Known, not fixed here: StatefulDataLoader restores a stream inside its workers
        # only, for the first iterator after load_state_dict; a second iterator (after a
        # probe, or the fresh one that replaces a finished iterator) copies the main
        # process's stream, which never saw the state, and reads its epoch from the start.
        pytest.xfail("StatefulDataLoader with workers restores a stream for one iterator")
    _scenario(CATALOG[name], how, cut, follow, probe, N_WORKERS)


STREAMS = [name for name in NAMES if CATALOG[name].items == "stream"]


@pytest.mark.filterwarnings("ignore:This DataLoader will create:UserWarning")  # 3 workers
@pytest.mark.timeout(240)
@pytest.mark.parametrize("cut", ["early", "mid", "late"])
@pytest.mark.parametrize(
    "how",
    [
        pytest.param("dl1", marks=pytest.mark.matrix),
        "dl2",
        pytest.param("dl3", marks=pytest.mark.matrix),
    ],
)
@pytest.mark.parametrize("name", STREAMS)
def test_stream_resumes_mid_epoch_under_dataloader_workers(name: str, how: str, cut: str) -> None:
    # Regression (dl2 in make test; dl1, dl3 in make faults): a shard-mode stream's worker
    # w reads the block [w*L//W, (w+1)*L//W) of its rank's stream, so the first k batches
    # of a pass depend on num_workers; the rest of the epoch is the rest of the pass of the
    # same loader, and with the loop's k batches it must be the whole epoch exactly.
    for follow, probe in [(False, False), (True, True)]:
        _scenario(CATALOG[name], how, cut, follow, probe, N_WORKERS)


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
