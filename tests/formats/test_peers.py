"""The peers' own writers and readers: fairshard reads what they write and yields what they yield.

* WebDataset: shards written by ``webdataset.TarWriter`` read as the samples
  ``webdataset.WebDataset`` yields (same keys, same bytes, same order).
* mosaicml streaming: an MDS set written by its ``MDSWriter`` (in its own
  venv, ``.venv-streaming`` or ``$BENCH_STREAMING_PYTHON``: it pins
  ``numpy<2.2``) reads back sample by sample.
"""

from __future__ import annotations

import gc
import subprocess
import sys
from pathlib import Path

import pytest

from fairshard import formats

ROOT = Path(__file__).resolve().parents[2]
PEER = ROOT / "benchmarks" / "_streaming_peer.py"
sys.path.insert(0, str(ROOT / "benchmarks"))

from _peers import STREAMING  # noqa: E402


# webdataset's reader leaves its shard files for the garbage collector to close
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_webdataset_tar_shards_read_as_webdataset_yields_them(tmp_path: Path) -> None:
    wds = pytest.importorskip("webdataset", reason="the [dev] extra installs webdataset")
    for k in range(3):
        with wds.TarWriter(str(tmp_path / f"train-{k:03d}.tar")) as sink:
            for i in range(k * 20, k * 20 + 20):
                sink.write(
                    {
                        "__key__": f"s{i:05d}",
                        "cls": str(i % 4),
                        "json": {"i": i},
                        "bin": bytes([i]) * i,
                    }
                )
    pattern = str(tmp_path / "train-{000..002}.tar")
    theirs = list(wds.WebDataset(pattern, shardshuffle=False, empty_check=False))
    gc.collect()  # here, so the files it left open are closed inside this test
    ours = formats.open_webdataset(pattern, index_dir=tmp_path / "index")
    assert len(ours) == len(theirs) == 60
    for i, sample in enumerate(theirs):
        mine = ours[i]
        assert mine["__key__"] == sample["__key__"]
        assert {k: v for k, v in mine.items() if not k.startswith("__")} == {
            k: v for k, v in sample.items() if not k.startswith("__")
        }
    assert ours.column("cls").tolist() == [i % 4 for i in range(60)]


@pytest.mark.timeout(300)
def test_an_mds_set_written_by_mosaicml_streaming(tmp_path: Path) -> None:
    python = STREAMING.python()
    if python is None:
        pytest.skip("no mosaicml streaming venv (make bench makes .venv-streaming)")
    folder = tmp_path / "mds"
    done = subprocess.run(
        [python, str(PEER), "write", str(folder), "300", "500"],
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    ds = formats.open_mds(str(folder), index_dir=tmp_path / "index")
    assert len(ds) == 500
    for i in (0, 1, 250, 499):
        sample = ds[i]
        assert sample["i"] == i and len(sample["x"]) == 300
