"""fairshard's and webdataset's side of ``bench_formats``' resume on another world size: one rank.

The venv peers run theirs in their scripts (``_streaming_peer.py``,
``_litdata_peer.py``); these two run in the main venv, each rank in a
process of its own as ``_peers.run_ranks`` launches it (``RANK`` /
``WORLD_SIZE`` in the environment), through ``_peers.rank_pass``:

    python _main_ranks.py READER TAR_DIR INDEX_DIR WORKERS CUT PHASE STATES OLD_WORLD

``fairshard``: ``open_webdataset`` over the tar shards with
``DistributedSampler(order="locality")`` for this rank of ``WORLD_SIZE``
(no process group: the rank is the sampler's argument), saved with
``loader_state_dict(loader, batches=CUT)``, loaded into the new world's
sampler; it declares the steps it has left (``sampler.remaining``).
``webdataset``: ``split_by_node`` (it reads ``RANK`` / ``WORLD_SIZE``)
before its shard shuffle and 1,000-sample buffer; it has no state, so the
new world starts the epoch again.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _peers import rank_pass, report


def fairshard_rank(
    tar: str, index: str, workers: int, cut: int, phase: str, states: str, old: int
) -> dict[str, Any]:
    import os

    from bench_formats import BATCH, key_id
    from torch.utils.data import DataLoader

    import fairshard
    from fairshard import formats

    world, rank = int(os.environ["WORLD_SIZE"]), int(os.environ["RANK"])

    def make(phase: str) -> Any:
        ds = formats.open_webdataset(tar, decode=key_id, index_dir=index)
        sampler = fairshard.DistributedSampler(
            len(ds), world, rank, seed=1, order="locality", block_size=ds.block_size
        )
        if phase == "save":
            ds.read_ahead(sampler)
        return DataLoader(ds, sampler=sampler, batch_size=BATCH, num_workers=workers)

    def load(loader: Any, state: Any) -> dict[str, Any]:
        loader.sampler.load_state_dict(state)
        loader.dataset.read_ahead(loader.sampler)
        return {"remaining": loader.sampler.remaining}

    def save(loader: Any, cut: int) -> Any:
        return fairshard.loader_state_dict(loader, batches=cut)

    def ids(batch: Any) -> list[int]:
        return [int(i) for i in batch.tolist()]

    return rank_pass(make, save, load, ids, phase, cut, states, old)


def webdataset_rank(
    tar: str, workers: int, cut: int, phase: str, states: str, old: int
) -> dict[str, Any]:
    import webdataset as wds
    from bench_formats import BATCH, key_id
    from torch.utils.data import DataLoader

    urls = [str(p) for p in sorted(Path(tar).glob("*.tar"))]

    def make(_: str) -> Any:
        data = (
            wds.WebDataset(
                urls, shardshuffle=True, nodesplitter=wds.split_by_node, empty_check=False
            )
            .shuffle(1000)
            .map(key_id)
            .batched(BATCH, collation_fn=list)
        )
        return DataLoader(data, batch_size=None, num_workers=workers)

    def load(_: Any, __: Any) -> dict[str, Any]:
        return {}  # no state: the epoch starts again

    return rank_pass(make, lambda *_: None, load, list, phase, cut, states, old)


def main(argv: list[str]) -> None:
    reader, tar, index, workers, cut, phase, states, old = argv
    if reader == "fairshard":
        report(fairshard_rank(tar, index, int(workers), int(cut), phase, states, int(old)))
    else:
        report(webdataset_rank(tar, int(workers), int(cut), phase, states, int(old)))


if __name__ == "__main__":
    main(sys.argv[1:])
