"""One index per format: sample ``i`` of the set is record ``i``, cached and checked by digest."""

from __future__ import annotations

import json
import os
import pickle
from pathlib import Path

import numpy as np
import pytest

import fairshard
from fairshard import formats
from tests.formats.writers import FORMATS, open_set, record, write, write_arrow, write_hf

N = 103


@pytest.fixture(scope="module")
def sets(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("sets")
    return {fmt: write(fmt, root / fmt, N) for fmt in FORMATS}


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_sample_is_its_record_in_order(
    fmt: str, sets: dict[str, Path], tmp_path: Path
) -> None:
    ds = open_set(fmt, sets[fmt], tmp_path, decode=None)
    assert len(ds) == N and ds.format == fmt
    for i in (0, 1, 16, 17, 50, N - 1):
        sample, want = ds[i], record(i)
        got = sample["bin" if fmt == "webdataset" else "payload"]
        assert got == want["payload"], (fmt, i)
    batch = ds.__getitems__([N - 1, 0, 40, 41, 0])
    assert [int(s["id"]) for s in batch] == [N - 1, 0, 40, 41, 0]
    with pytest.raises(IndexError):
        ds[N]
    assert sum(ds.shard_sizes) == N
    shard, at = ds.locate(50)
    assert shard in ds.shards and 0 <= at < max(ds.shard_sizes)


@pytest.mark.parametrize("fmt", FORMATS)
def test_columns_are_read_in_index_order(fmt: str, sets: dict[str, Path], tmp_path: Path) -> None:
    ds = open_set(fmt, sets[fmt], tmp_path)
    label = "cls" if fmt == "webdataset" else "label"
    assert ds.column(label).tolist() == [record(i)["label"] for i in range(N)]
    assert ds.column("length").tolist() == [record(i)["length"] for i in range(N)]
    assert ds.column("length").tolist() == ds.column("length").tolist()  # the saved copy


@pytest.mark.parametrize("fmt", FORMATS)
def test_the_index_is_reused_and_rebuilt_when_a_shard_changes(fmt: str, tmp_path: Path) -> None:
    folder = write(fmt, tmp_path / "set", 40)
    first = open_set(fmt, folder, tmp_path / "index")
    again = open_set(fmt, folder, tmp_path / "index")
    assert again.digest == first.digest and again.index.folder == first.index.folder
    built = os.stat(first.index.folder / "index.json").st_mtime_ns
    assert os.stat(again.index.folder / "index.json").st_mtime_ns == built  # not scanned again
    write(fmt, tmp_path / "set", 45)  # the set rewritten with more records
    grown = open_set(fmt, folder, tmp_path / "index")
    assert grown.digest != first.digest and len(grown) == 45
    assert [grown[i] for i in range(45)] == list(range(45))


def test_a_damaged_index_is_built_again(tmp_path: Path) -> None:
    folder = write("parquet", tmp_path / "set", 40)
    ds = open_set("parquet", folder, tmp_path / "index")
    (ds.index.folder / "unit_first.npy").write_bytes(b"garbage")
    again = open_set("parquet", folder, tmp_path / "index")
    assert [again[i] for i in range(40)] == list(range(40))


@pytest.mark.parametrize("fmt", FORMATS)
def test_block_size_is_the_read_unit(fmt: str, sets: dict[str, Path], tmp_path: Path) -> None:
    ds = open_set(fmt, sets[fmt], tmp_path)
    if fmt in ("parquet", "arrow"):
        assert ds.block_size == 8  # the writers' row group / batch
    else:  # the records of about 1 MiB (a tar sample: 4 members of 1 KiB with headers)
        mean = np.mean(np.asarray(ds.index.unit_stop) - np.asarray(ds.index.unit_start))
        assert ds.block_size == round(2**20 / mean)
        assert fmt != "webdataset" or ds.block_size == 256


def test_arrow_file_format_and_datasets_folders(tmp_path: Path) -> None:
    files = write_arrow(tmp_path / "file", 50, file_format=True)
    ds = open_set("arrow", files, tmp_path / "index")
    assert [ds[i] for i in range(50)] == list(range(50))
    pytest.importorskip("datasets", reason="the integrations extra installs datasets")
    hf = write_hf(tmp_path / "hf", 31, num_shards=3)
    ds = formats.open_arrow(str(hf), index_dir=tmp_path / "index", columns=["id", "length"])
    assert len(ds) == 31 and ds[30] == {"id": 30, "length": record(30)["length"]}
    order = json.loads((hf / "state.json").read_text())["_data_files"]
    assert ds.shards == tuple(str(hf / f["filename"]) for f in order)


def test_parquet_columns_limit_what_is_read(sets: dict[str, Path], tmp_path: Path) -> None:
    ds = formats.open_parquet(str(sets["parquet"]), columns=["id"], index_dir=tmp_path)
    assert ds[7] == {"id": 7}


def test_shards_by_glob_brace_and_list(sets: dict[str, Path], tmp_path: Path) -> None:
    folder = sets["webdataset"]
    names = sorted(p.name for p in folder.glob("*.tar"))
    by_glob = formats.open_webdataset(str(folder / "shard-*.tar"), index_dir=tmp_path)
    by_brace = formats.open_webdataset(
        str(folder / f"shard-{{00000..{len(names) - 1:05d}}}.tar"), index_dir=tmp_path
    )
    by_list = formats.open_webdataset([str(folder / n) for n in names], index_dir=tmp_path)
    assert by_glob.shards == by_brace.shards == by_list.shards and len(by_list) == N


def test_a_dataset_pickles_without_its_arrays(sets: dict[str, Path], tmp_path: Path) -> None:
    ds = open_set("mds", sets["mds"], tmp_path)
    blob = pickle.dumps(ds)
    assert len(blob) < 4096  # the index folder's path travels, not the index
    twin = pickle.loads(blob)
    assert [twin[i] for i in range(N)] == list(range(N))


def test_the_index_arrays_are_memory_mapped(sets: dict[str, Path], tmp_path: Path) -> None:
    ds = open_set("webdataset", sets["webdataset"], tmp_path)
    assert isinstance(ds.index.unit_first, np.memmap)
    assert not ds.index.unit_first.flags.writeable


def test_every_family_name_is_public() -> None:
    for name in ("ShardDataset", "ChunkCache", "ShardError", "open_parquet"):
        assert getattr(fairshard, name) is getattr(formats, name)
