"""Bad shards fail loudly, naming the shard: truncated, missing, rewritten, not the format."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from torch.utils.data import DataLoader

import fairshard
from fairshard import ConfigError, DegenerateConfigWarning, ShardError, formats
from tests.formats.writers import _table, open_set, write, write_mds, write_tar


def _truncate(path: Path, keep: int) -> None:
    data = path.read_bytes()
    path.write_bytes(data[:keep])


def test_a_truncated_tar_fails_at_open_naming_the_shard(tmp_path: Path) -> None:
    folder = write_tar(tmp_path / "tar", 40)
    bad = folder / "shard-00001.tar"
    _truncate(bad, 5000)  # inside a member's data
    with pytest.raises(ShardError, match=r"shard-00001\.tar"):
        open_set("webdataset", folder, tmp_path / "index")


def test_a_tar_truncated_after_indexing_fails_on_read_naming_it(tmp_path: Path) -> None:
    folder = write_tar(tmp_path / "tar", 40)
    ds = open_set("webdataset", folder, tmp_path / "index")
    _truncate(folder / "shard-00002.tar", 4096)
    assert ds[0] == 0  # the other shards still read
    with pytest.raises(ShardError, match=r"shard-00002\.tar changed since it was indexed"):
        ds[36]


def test_a_truncated_tar_fails_inside_dataloader_workers(tmp_path: Path) -> None:
    folder = write_tar(tmp_path / "tar", 40)
    ds = open_set("webdataset", folder, tmp_path / "index")
    _truncate(folder / "shard-00000.tar", 4096)
    loader = DataLoader(ds, batch_size=4, num_workers=2, multiprocessing_context="fork")
    with pytest.raises(ShardError, match=r"shard-00000\.tar"):
        list(loader)


def test_not_a_tar_file(tmp_path: Path) -> None:
    folder = write_tar(tmp_path / "tar", 20)
    (folder / "shard-00000.tar").write_bytes(b"\x01" * 3000)
    with pytest.raises(ShardError, match=r"shard-00000\.tar"):
        open_set("webdataset", folder, tmp_path / "index")


def test_a_missing_mds_index_names_the_folder(tmp_path: Path) -> None:
    folder = write_mds(tmp_path / "mds", 30)
    (folder / "index.json").unlink()
    with pytest.raises(ShardError, match=r"has no index\.json"):
        open_set("mds", folder, tmp_path / "index")


def test_an_mds_shard_that_disagrees_with_index_json(tmp_path: Path) -> None:
    folder = write_mds(tmp_path / "mds", 30)
    index = json.loads((folder / "index.json").read_text())
    index["shards"][1]["samples"] += 1
    (folder / "index.json").write_text(json.dumps(index))
    with pytest.raises(
        ShardError, match=r"shard\.00001\.mds holds 13 samples, its index\.json says 14"
    ):
        open_set("mds", folder, tmp_path / "index")


def test_a_truncated_mds_shard(tmp_path: Path) -> None:
    folder = write_mds(tmp_path / "mds", 30)
    shard = folder / "shard.00000.mds"
    _truncate(shard, shard.stat().st_size - 3)
    with pytest.raises(ShardError, match=r"shard\.00000\.mds is truncated"):
        open_set("mds", folder, tmp_path / "index")


def test_a_missing_shard_is_named(tmp_path: Path) -> None:
    folder = write_mds(tmp_path / "mds", 30)
    (folder / "shard.00001.mds").unlink()
    with pytest.raises(ShardError, match=r"shard\.00001\.mds does not exist"):
        open_set("mds", folder, tmp_path / "index")


def test_an_unknown_mds_encoding_is_refused_unless_raw(tmp_path: Path) -> None:
    folder = write_mds(tmp_path / "mds", 30)
    index = json.loads((folder / "index.json").read_text())
    for shard in index["shards"]:
        shard["column_encodings"][3] = "jpeg"
    (folder / "index.json").write_text(json.dumps(index))
    with pytest.raises(ConfigError, match=r"'payload' has the encoding 'jpeg'.*raw=True"):
        formats.open_mds(str(folder), index_dir=tmp_path / "index")
    ds = formats.open_mds(str(folder), raw=True, index_dir=tmp_path / "index")
    assert isinstance(ds[3]["payload"], bytes)


def test_a_parquet_file_whose_row_count_changed(tmp_path: Path) -> None:
    folder = write("parquet", tmp_path / "pq", 80)
    ds = open_set("parquet", folder, tmp_path / "index")
    target = folder / "part-00001.parquet"
    stat = target.stat()
    pq.write_table(_table(range(40, 75), 24), target, row_group_size=8)
    os.utime(target, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    with pytest.raises(ShardError, match=r"part-00001\.parquet changed since it was indexed"):
        ds[45]


def test_a_parquet_file_rewritten_with_the_same_size_but_other_rows(tmp_path: Path) -> None:
    folder = write("parquet", tmp_path / "pq", 80)
    ds = open_set("parquet", folder, tmp_path / "index")
    target = folder / "part-00000.parquet"
    pq.write_table(_table(range(0, 40), 24), target, row_group_size=5)  # 8 groups of 5, not 5 of 8
    with pytest.raises(ShardError, match=r"part-00000\.parquet"):
        ds[3]


def test_a_file_that_is_not_parquet_or_arrow(tmp_path: Path) -> None:
    for fmt, name in (("parquet", "part-00000.parquet"), ("arrow", "part-00000.arrow")):
        folder = write(fmt, tmp_path / fmt, 50)
        (folder / name).write_bytes(b"not this format at all" * 10)
        with pytest.raises(ShardError, match=name.replace(".", r"\.")):
            open_set(fmt, folder, tmp_path / "index")


def test_no_shards_and_empty_shards(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(ShardError, match="no shards found"):
        formats.open_webdataset(str(tmp_path / "empty"), index_dir=tmp_path / "index")
    folder = write_tar(tmp_path / "tar", 20)
    import tarfile

    with tarfile.open(folder / "shard-00009.tar", "w"):
        pass
    with pytest.warns(
        DegenerateConfigWarning, match=r"1 of 3 shards hold no samples: .*shard-00009"
    ):
        ds = open_set("webdataset", folder, tmp_path / "index")
    assert len(ds) == 20


def test_read_ahead_needs_the_locality_order(tmp_path: Path) -> None:
    ds = open_set("parquet", write("parquet", tmp_path / "pq", 40), tmp_path / "index")
    with pytest.raises(fairshard.ConfigTypeError, match="order='locality'"):
        ds.read_ahead(fairshard.DistributedSampler(40, 1, 0))
    with pytest.raises(ConfigError, match="covers 41 samples"):
        ds.read_ahead(fairshard.DistributedSampler(41, 1, 0, order="locality"))
