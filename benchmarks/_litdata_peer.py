"""litdata's side of ``bench_formats.py``, run in a venv of its own.

litdata requires ``torchvision``, and PyPI's torchvision does not load beside
this machine's torch build (``operator torchvision::nms does not exist``), so
it stays out of the main venv; litdata itself never imports it for what is
done here. This file imports
neither fairshard nor the harness: it runs under the peer's interpreter and
prints one JSON line.

    python _litdata_peer.py version
    python _litdata_peer.py write DIR RECORD_BYTES COUNT
    python _litdata_peer.py read DIR WINDOW WORKERS LIMIT [REMOTE]
    python _litdata_peer.py resume DIR WORKERS CUT [AFTER_WORKERS [REMOTE]]
    python _litdata_peer.py rank DIR WORKERS CUT PHASE STATES OLD_WORLD

``write`` stores ``COUNT`` records of ``RECORD_BYTES`` random bytes, each with
its index, with litdata's ``optimize`` into its chunk format (its default
chunk bytes, 64 MiB; one process, in record order). ``read`` evicts every
chunk from the page cache (``posix_fadvise(DONTNEED)``), builds a
``StreamingDataset(shuffle=True, item_shuffle_window=WINDOW)`` over them
(``auto``, its default: chunks shuffled, then blocks of 256 items and the
items inside each; ``full``: a full permutation inside each chunk), then
reads the first ``LIMIT`` samples through a ``StreamingDataLoader`` with
``WORKERS`` workers (batches of 64, timed from the first batch as the other
cells are), and prints the rate, the seconds from building the dataset to
the first batch (``first``) and to the last (``elapsed``), the records read
(``read``) and the first ``LIMIT`` indices, in order. With ``REMOTE``
(an ``s3://`` URL; ``S3_ENDPOINT_URL`` names the server) ``DIR`` is the
local cache it downloads chunks into (emptied first). ``resume`` reads
``CUT`` batches, saves the loader's ``state_dict()``, and resumes from it in
a fresh dataset and loader (``AFTER_WORKERS`` workers, by default
``WORKERS``; with ``REMOTE``, into an emptied cache again, as a restart on
another node): it prints the seconds from building them to the first
resumed batch and the indices read before and after the cut, for the
caller to count what was lost or repeated; where litdata refuses the
state, what it said (``refused``). ``rank`` is one rank of a resume on
another world size (``_peers.rank_pass``; litdata reads ``WORLD_SIZE``,
``GLOBAL_RANK`` and ``NNODES`` from the environment, no process group
needed): the ``StreamingDataLoader``'s ``state_dict()`` saved after ``CUT``
batches, ``load_state_dict`` on the new world; it declares its epoch's
length per rank (``len(dataset)``: on more than one rank litdata sets
``drop_last=True``).
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _evict import evict_tree
from _peers import rank_pass, resume_pass, serve, timed_read

BATCH = 64
_CHUNK = os.urandom(1 << 20)


def _record(i: int, size: int) -> dict[str, Any]:
    start = (i * size) % ((1 << 20) - size + 1)
    return {"i": i, "x": _CHUNK[start : start + size]}


class _Records:
    """The record maker ``optimize`` calls once per index (picklable for its workers)."""

    def __init__(self, size: int) -> None:
        self.size = size

    def __call__(self, i: int) -> dict[str, Any]:
        return _record(i, self.size)


def write(folder: str, record: int, count: int) -> dict[str, Any]:
    from litdata import optimize
    from litdata.constants import _DEFAULT_CHUNK_BYTES

    optimize(
        fn=_Records(record),
        inputs=list(range(count)),
        output_dir=folder,
        chunk_bytes=_DEFAULT_CHUNK_BYTES,  # optimize asks for one; its processor's default
        num_workers=1,
        reorder_files=False,
        keep_data_ordered=True,
        verbose=False,
        start_method="fork",
    )
    return {"written": count}


def _allow_http() -> None:
    """Let litdata's chunk GETs (obstore) reach the bench's server over plain HTTP.

    litdata fetches ``index.json`` with boto3 and chunks with obstore, whose
    client options it fixes (``_OBSTORE_CLIENT_OPTIONS``) without
    ``allow_http``: against an ``http://`` endpoint every chunk GET fails
    (``reqwest`` ``BadScheme``; ``AWS_ALLOW_HTTP`` is not read). The one option
    is added; the read path stays litdata's own.
    """
    from litdata.streaming import downloader

    downloader._OBSTORE_CLIENT_OPTIONS = {**downloader._OBSTORE_CLIENT_OPTIONS, "allow_http": True}


def _dataset(folder: str, remote: str | None, window: str = "auto") -> Any:
    from litdata import StreamingDataset
    from litdata.streaming.resolver import Dir

    if remote is None:
        return StreamingDataset(folder, shuffle=True, item_shuffle_window=window)
    _allow_http()
    shutil.rmtree(folder, ignore_errors=True)  # a cold local cache
    options = {
        "endpoint_url": os.environ["S3_ENDPOINT_URL"],
        "aws_access_key_id": os.environ["AWS_ACCESS_KEY_ID"],
        "aws_secret_access_key": os.environ["AWS_SECRET_ACCESS_KEY"],
        "region_name": os.environ["AWS_DEFAULT_REGION"],
    }
    return StreamingDataset(
        Dir(path=folder, url=remote),
        shuffle=True,
        item_shuffle_window=window,
        storage_options=options,
    )


def collate(samples: list[dict[str, Any]]) -> dict[str, list[Any]]:
    """A batch as lists: the ids, and each payload as ``bytes``.

    litdata yields a ``bytes`` field as a ``memoryview``, which torch's
    default collate takes for a sequence and turns into one tensor per
    byte (about 50 records/s); streaming's ``bytes`` stay whole in it.
    """
    return {"i": [int(s["i"]) for s in samples], "x": [bytes(s["x"]) for s in samples]}


def _loader(data: Any, workers: int) -> Any:
    from litdata import StreamingDataLoader

    return StreamingDataLoader(data, batch_size=BATCH, num_workers=workers, collate_fn=collate)


def _ids(batch: dict[str, list[Any]]) -> list[int]:
    return list(batch["i"])


def read(folder: str, window: str, workers: int, limit: int, remote: str | None) -> dict[str, Any]:
    if not remote:
        evict_tree(folder)
    begin = time.perf_counter()
    return timed_read(_loader(_dataset(folder, remote, window), workers), _ids, limit, begin)


def resume(folder: str, workers: int, cut: int, after: int, remote: str | None) -> dict[str, Any]:
    return resume_pass(lambda k: _loader(_dataset(folder, remote), k), workers, after, cut, _ids)


def rank(folder: str, workers: int, cut: int, phase: str, states: str, old: int) -> dict[str, Any]:
    def load(loader: Any, state: Any) -> dict[str, Any]:
        loader.load_state_dict(state)
        return {"epoch_per_rank": len(loader.dataset)}

    def make(_: str) -> Any:
        return _loader(_dataset(folder, None), workers)

    return rank_pass(
        make, lambda loader, _: loader.state_dict(), load, _ids, phase, cut, states, old
    )


def version() -> str:
    import litdata

    return str(litdata.__version__)


def main(argv: list[str]) -> None:
    serve(argv, version, write, read, resume, rank)


if __name__ == "__main__":
    main(sys.argv[1:])
