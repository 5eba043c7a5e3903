"""Every sampler family over shard sets: a DataLoader with workers resumes exactly.

The dataset is a pure map from index to record, so a family's contract
carries over unchanged; these tests show it through the real path -- shards
on disk, ``DataLoader`` workers that prefetch, ``loader_state_dict``, a
resume on the same and on another world size -- for every family of the
catalog (``tests/catalog.py``). The normal suite gives each family one
format (rotating, so each format meets a quarter of the families);
``-m matrix`` runs every family on every format with 0, 1 and 3 workers.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from torch.utils.data import DataLoader

import fairshard
from fairshard import StateDictError
from tests.catalog import CATALOG, Family, sampler_families
from tests.contract import flat, plan_multiset
from tests.core.test_resume_loader import _declared_drops, _padding_bound
from tests.formats.writers import FORMATS, open_set, sample_id, write

N = 103
BATCH = 4
NAMES = sorted(f.name for f in sampler_families())
ROTATION = [(name, FORMATS[k % len(FORMATS)]) for k, name in enumerate(NAMES)]
MATRIX = [(name, fmt, w) for name in NAMES for fmt in FORMATS for w in (0, 1, 3)]


def as_document(sample: dict[str, Any]) -> list[int]:
    return [sample_id(sample)]


@pytest.fixture(scope="module")
def sets(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("contract")
    return {fmt: write(fmt, root / fmt, N) for fmt in FORMATS}


class Opened:
    """A format's set over ``N`` records, as samples (ids) and as one-token documents."""

    def __init__(self, fmt: str, sets: dict[str, Path], index: Path) -> None:
        self.ids = open_set(fmt, sets[fmt], index)
        self.docs = open_set(fmt, sets[fmt], index, decode=as_document)

    def loader(self, family: Family, sampler: Any, workers: int) -> DataLoader[Any]:
        extra: dict[str, Any] = {"num_workers": workers}
        if workers:
            extra.update(multiprocessing_context="fork", prefetch_factor=2)
        if family.items == "rows":
            return DataLoader(
                fairshard.PackedRows(self.docs),
                batch_sampler=sampler,
                collate_fn=fairshard.collate_packed,
                **extra,
            )
        if family.batched:
            return DataLoader(self.ids, batch_sampler=sampler, **extra)
        return DataLoader(self.ids, sampler=sampler, batch_size=BATCH, **extra)


def _ids(batch: Any) -> list[int]:
    if isinstance(batch, dict):
        batch = batch["input_ids"]
    return [int(i) for i in batch.tolist()]


def _take(dl: DataLoader[Any], k: int) -> list[list[int]]:
    out: list[list[int]] = []
    for batch in dl:
        out.append(_ids(batch))
        if len(out) == k:
            break
    return out


def _all(dl: DataLoader[Any]) -> list[list[int]]:
    return [_ids(b) for b in dl]


def _same_world(name: str, opened: Opened, workers: int) -> None:
    family = CATALOG[name]
    full = _all(opened.loader(family, family.make(N, 1, 2), 0))
    expected = [flat([b]) for b in family.make(N, 1, 2)]  # the sampler's own order
    if family.items == "rows":
        expected = [flat(rows) for rows in family.make(N, 1, 2)]
    elif not family.batched:
        flat_order = flat(family.make(N, 1, 2))
        expected = [flat_order[i : i + BATCH] for i in range(0, len(flat_order), BATCH)]
    assert full == expected, f"{name}: the shard set's samples are not the sampler's indices"
    k = max(1, len(full) // 2)
    sampler = family.make(N, 1, 2)
    dl = opened.loader(family, sampler, workers)
    before = _take(dl, k)
    state = fairshard.loader_state_dict(dl, batches=k)
    del dl
    fresh = family.make(N, 1, 2)
    fresh.load_state_dict(state)
    after = _all(opened.loader(family, fresh, workers))
    assert before + after == full, f"{name}: cut after {k} of {len(full)} batches"


def _other_world(name: str, opened: Opened, workers: int) -> None:
    family = CATALOG[name]
    old = [family.make(N, r, 2) for r in range(2)]
    k = max(1, len(_all(opened.loader(family, family.make(N, 0, 2), 0))) // 3)
    seen: Counter[int] = Counter()
    states = []
    for sampler in old:
        dl = opened.loader(family, sampler, workers)
        seen.update(flat(_take(dl, k)))
        states.append(fairshard.loader_state_dict(dl, batches=k))
        del dl
    new = [family.make(N, r, 3) for r in range(3)]
    if not family.elastic:
        refused = "layout='strided' for elastic resume|on num_replicas=2 ranks.*num_replicas=3"
        with pytest.raises(StateDictError, match=refused):
            new[0].load_state_dict(states[0])
        return
    for sampler in new:
        sampler.load_state_dict(states[0])
    dropped = _declared_drops(new[0])
    for sampler in new:
        seen.update(flat(_all(opened.loader(family, sampler, workers))))
    expected = plan_multiset(old[0])
    assert sum((expected - seen).values()) <= dropped, f"{name}: a sample was lost"
    assert sum((seen - expected).values()) <= _padding_bound(old[0], new[0]), (
        f"{name}: samples repeated beyond padding"
    )


@pytest.mark.timeout(180)
@pytest.mark.parametrize(("name", "fmt"), ROTATION, ids=[f"{n}-{f}" for n, f in ROTATION])
def test_every_family_resumes_exactly_on_shards(
    name: str, fmt: str, sets: dict[str, Path], tmp_path: Path
) -> None:
    opened = Opened(fmt, sets, tmp_path)
    _same_world(name, opened, workers=2)
    _other_world(name, opened, workers=2)


@pytest.mark.matrix
@pytest.mark.timeout(600)
@pytest.mark.filterwarnings("ignore:This DataLoader will create:UserWarning")  # 3 workers, 2 CPUs
@pytest.mark.parametrize(("name", "fmt", "workers"), MATRIX)
def test_every_family_on_every_format_and_worker_count(
    name: str, fmt: str, workers: int, sets: dict[str, Path], tmp_path: Path
) -> None:
    opened = Opened(fmt, sets, tmp_path)
    _same_world(name, opened, workers)
    _other_world(name, opened, workers)


@pytest.mark.timeout(120)
@pytest.mark.parametrize(("first", "second"), [("webdataset", "parquet"), ("mds", "arrow")])
def test_a_mixture_across_shard_sets_of_two_formats(
    first: str, second: str, sets: dict[str, Path], tmp_path: Path
) -> None:
    from torch.utils.data import ConcatDataset

    web, table = (
        open_set(first, sets[first], tmp_path),
        open_set(second, sets[second], tmp_path),
    )

    def mixture() -> Any:
        return fairshard.MixtureSampler(
            [web, table], [0.25, 0.75], num_samples=120, num_replicas=1, rank=0, seed=3
        )

    data = ConcatDataset([web, table])
    dl = DataLoader(
        data, sampler=mixture(), batch_size=8, num_workers=2, multiprocessing_context="fork"
    )
    got = [int(i) for b in dl for i in b]
    order = list(mixture())
    assert got == [i if i < N else i - N for i in order]
    from_table = sum(1 for i in order if i >= N)
    assert from_table == 90  # exact proportions over the epoch


@pytest.mark.timeout(120)
@pytest.mark.parametrize("fmt", FORMATS)
def test_packing_by_a_length_column(fmt: str, sets: dict[str, Path], tmp_path: Path) -> None:
    def tokens(sample: dict[str, Any]) -> list[int]:
        return [sample_id(sample)] * int(sample["length"])  # a tar member's text: int(b"7")

    docs = open_set(fmt, sets[fmt], tmp_path, decode=tokens)
    lengths = docs.column("length")
    sampler = fairshard.PackingBatchSampler(lengths, 32, 2, num_replicas=1, rank=0, seed=1)
    dl = DataLoader(
        fairshard.PackedRows(docs),
        batch_sampler=sampler,
        collate_fn=fairshard.collate_packed,
        num_workers=2,
        multiprocessing_context="fork",
    )
    seen = Counter(int(t) for b in dl for t in b["input_ids"].tolist())
    assert set(seen) <= set(range(N))
    for doc, count in seen.items():
        assert count % int(lengths[doc]) == 0  # whole documents, each of its length


@pytest.mark.timeout(120)
@pytest.mark.parametrize("fmt", FORMATS)
def test_steps_over_shards_resume_at_a_step(
    fmt: str, sets: dict[str, Path], tmp_path: Path
) -> None:
    data = open_set(fmt, sets[fmt], tmp_path)
    labels = data.column("cls" if fmt == "webdataset" else "label")  # tar: a member extension
    assert labels.tolist() == [i % 3 for i in range(N)]

    def steps() -> Any:
        inner = fairshard.ClassBalancedSampler(labels, num_replicas=1, rank=0, seed=2)
        return fairshard.StepSampler(inner, micro_batch_size=5, global_batch_size=5)

    def loader(sampler: Any) -> DataLoader[Any]:
        return DataLoader(
            data, sampler=sampler, batch_size=5, num_workers=2, multiprocessing_context="fork"
        )

    whole = _take(DataLoader(data, sampler=steps(), batch_size=5), 60)  # 3 epochs of 103
    first = _take(loader(steps()), 25)
    resumed = steps()
    resumed.load_state_dict(steps().state_dict(step=25))
    rest = _take(loader(resumed), 35)
    assert first + rest == whole


@pytest.mark.timeout(120)
@pytest.mark.parametrize("fmt", FORMATS)
def test_locality_with_read_ahead_on_local_shards(
    fmt: str, sets: dict[str, Path], tmp_path: Path
) -> None:
    """The locality order at the format's read unit, read ahead, through prefetching workers."""
    data = open_set(fmt, sets[fmt], tmp_path)
    assert data.block_size > 1  # a read unit of several samples (a row group, a tar run)

    def sampler(rank: int) -> Any:
        return fairshard.DistributedSampler(
            N, 2, rank, seed=1, order="locality", block_size=data.block_size, window=2
        )

    seen: Counter[int] = Counter()
    for rank in range(2):
        ours = sampler(rank)
        data.read_ahead(ours)
        dl = DataLoader(
            data, sampler=ours, batch_size=BATCH, num_workers=2, multiprocessing_context="fork"
        )
        got = flat(_all(dl))
        assert got == list(sampler(rank))  # the read-ahead changes nothing in the order
        seen.update(got)
    assert set(seen) == set(range(N)) and sum(seen.values()) - N <= 1  # 103 on 2: 1 padded
