"""Per-rank, append-only ledgers that survive SIGKILL.

Every line is one JSON object written with a single ``os.write`` on an
``O_APPEND`` descriptor and then ``os.fsync``-ed, so once ``append`` returns
the line is on disk: a rank killed right after it cannot lose the record,
and a rank killed before it leaves no record (the step was not consumed).

One file per (launch, restart generation, rank): a torn last line can never
be continued by a later writer. Lines carry ``launch`` (which torchrun
invocation), ``gen`` (``TORCHELASTIC_RESTART_COUNT``), ``rank``, ``t``
(the record type) and ``at`` (``time.time()`` of the write); item records
add ``epoch``, ``step`` (the job's global step) and ``indices``.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

__all__ = ["Ledger", "ledger_path", "read_ledgers"]


def ledger_path(directory: Path, launch: int, gen: int, rank: int) -> Path:
    """Where rank ``rank`` of generation ``gen`` of launch ``launch`` writes."""
    return directory / f"L{launch:02d}.g{gen:02d}.r{rank:02d}.jsonl"


class Ledger:
    """An append-only, fsync-ed JSON-lines file of one rank of one generation."""

    def __init__(self, directory: Path, launch: int, gen: int, rank: int) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        self.tags = {"launch": launch, "gen": gen, "rank": rank}
        self.path = ledger_path(directory, launch, gen, rank)
        self._fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)

    def append(self, kind: str, **fields: Any) -> None:
        """Write one record and make it durable before returning."""
        record = {"t": kind, **self.tags, "at": time.time(), **fields}
        line = json.dumps(record, separators=(",", ":")) + "\n"
        os.write(self._fd, line.encode())
        os.fsync(self._fd)

    def close(self) -> None:
        """Close the file (records are already durable)."""
        os.close(self._fd)


def read_ledgers(directory: Path) -> Iterator[dict[str, Any]]:
    """Every complete record of every ledger in ``directory``.

    A line without its newline is a write torn by SIGKILL: it is skipped, as
    the step it describes was not durably recorded (and is counted as such
    by ``replay``, which sees the record missing).
    """
    for path in sorted(directory.glob("L*.g*.r*.jsonl")):
        for line in path.read_text().splitlines(keepends=True):
            if line.endswith("\n"):
                yield json.loads(line)
