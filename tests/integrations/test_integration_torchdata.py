"""torchdata's StatefulDataLoader checkpoints fairshard samplers at every batch boundary.

The loader's ``state_dict()`` holds the sampler's own ``state_dict()``; a
fresh loader over a fresh sampler that loads it continues the epoch exactly:
the batches before the checkpoint plus the batches after it are the
uninterrupted epoch, with and without worker processes -- at every cut
point, the first (nothing consumed) and the last (the whole epoch consumed)
included, with and without a ``set_epoch`` after the load. A checkpoint at
the end of an epoch followed by ``set_epoch(e + 1)`` starts epoch ``e + 1``
(the loader restores its sampler lazily, at the next ``iter()``, after that
``set_epoch``; the restore must not drag the sampler back to epoch ``e``).

Every sampler family of the catalog (``tests/catalog.py``) is checked.
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest

from fairshard import DegenerateConfigWarning
from tests.catalog import CATALOG, make_loader, sampler_families

torchdata = pytest.importorskip("torchdata.stateful_dataloader")
StatefulDataLoader = torchdata.StatefulDataLoader

# torchdata 0.11 touches torch's deprecated ``set_vital`` when it builds an iterator.
pytestmark = pytest.mark.filterwarnings("ignore:'set_vital' is deprecated:UserWarning")

N = 71  # small (every cut forks workers); batch-shard: 8 batches of <= 9, an even split
BATCH = 8  # loader batch size for index samplers: 5 batches per rank and epoch
NAMES = sorted(f.name for f in sampler_families())


def make(name: str) -> Any:
    return CATALOG[name].make(N, 1, 2)


def _loader(sampler: Any, workers: int, name: str = "distributed") -> Any:
    return make_loader(
        CATALOG[name],
        sampler,
        N,
        loader_class=StatefulDataLoader,
        workers=workers,
        batch_size=BATCH,
    )


def _ids(batch: Any) -> list[int]:
    if isinstance(batch, dict):  # packed rows, collated: the documents in order
        batch = batch["input_ids"]
    return [int(i) for i in batch.tolist()]


def _batches(loader: Any, limit: int | None = None) -> list[list[int]]:
    out: list[list[int]] = []
    if limit == 0:
        return out
    for batch in loader:
        out.append(_ids(batch))
        if limit is not None and len(out) == limit:
            break
    return out


def _epochs(name: str) -> tuple[list[list[int]], list[list[int]]]:
    """Epochs 1 and 2 uninterrupted (the batch order does not depend on workers)."""
    sampler = make(name)
    loader = _loader(sampler, 0, name)
    sampler.set_epoch(1)
    one = _batches(loader)
    sampler.set_epoch(2)
    return one, _batches(loader)


def _saved(name: str, workers: int, cut: int | None) -> dict[str, Any]:
    """The loader state after ``cut`` batches of epoch 1; ``None``: after the loop ran out.

    The last cut and ``None`` differ for the loader: it has or has not seen
    the end of the pass (``StopIteration``).
    """
    sampler = make(name)
    sampler.set_epoch(1)
    loader = _loader(sampler, workers, name)
    _batches(loader, cut)
    state: dict[str, Any] = loader.state_dict()
    return state


# NOTE (suite time): with 2 workers a configuration spawns worker processes at every cut
# (5-60 s each on 2 shared cores, minutes for the catalog). `make test` runs every
# configuration in process and these two with workers (an index plan, a batch plan); the
# other worker cells carry the ``matrix`` marker and run in `make faults`.
WITH_WORKERS_IN_MAKE_TEST = ("class-batch", "distributed")


def _cells() -> list[Any]:
    return [
        pytest.param(
            name,
            workers,
            id=f"{name}-{workers}",
            marks=(pytest.mark.matrix,)
            if workers and name not in WITH_WORKERS_IN_MAKE_TEST
            else (),
        )
        for name in NAMES
        for workers in (0, 2)
    ]


def test_the_worker_cells_make_test_runs_are_catalog_names() -> None:
    assert set(WITH_WORKERS_IN_MAKE_TEST) <= set(NAMES)


@pytest.mark.timeout(240)
@pytest.mark.parametrize(("name", "workers"), _cells())
def test_checkpoint_at_every_batch_boundary(name: str, workers: int) -> None:
    one, two = _epochs(name)
    cuts: list[int | None] = [*range(len(one) + 1), None]
    for cut in cuts:
        done = len(one) if cut is None else cut
        state = _saved(name, workers, cut)
        # Without a set_epoch: the rest of the epoch, then epoch 2 as usual.
        sampler = make(name)
        loader = _loader(sampler, workers, name)
        loader.load_state_dict(state)
        assert _batches(loader) == one[done:], f"{name}: cut after {cut} batches"
        sampler.set_epoch(2)
        assert _batches(loader) == two, f"{name}: epoch 2 after a cut at {cut}"
        # With the set_epoch a resume loop makes: the epoch it is in, or the next one.
        sampler = make(name)
        loader = _loader(sampler, workers, name)
        loader.load_state_dict(state)
        complete = done == len(one)
        sampler.set_epoch(2 if complete else 1)
        with warnings.catch_warnings():
            warnings.simplefilter("error", DegenerateConfigWarning)
            expected = two if complete else one[done:]
            assert _batches(loader) == expected, f"{name}: set_epoch after a cut at {cut}"


@pytest.mark.timeout(60)
def test_next_epoch_after_a_restored_one_is_the_next_epoch() -> None:
    """After finishing a restored epoch, set_epoch(e + 1) gives the normal next epoch."""
    ref = CATALOG["distributed"].make(N, 0, 2)
    ref.set_epoch(3)
    expected = list(ref)
    first = CATALOG["distributed"].make(N, 0, 2)
    first.set_epoch(2)
    loader = _loader(first, 0)
    _batches(loader, 3)
    second = CATALOG["distributed"].make(N, 0, 2)
    resumed = _loader(second, 0)
    resumed.load_state_dict(loader.state_dict())
    _batches(resumed)
    second.set_epoch(3)
    assert [i for b in _batches(resumed) for i in b] == expected
