"""Peers that run in a venv of their own: where their interpreter is, one call into them, and
the loops their scripts share.

mosaicml streaming pins ``numpy<2.2``; litdata requires a ``torchvision``
that does not load beside this machine's torch. Each gets a venv that
``make bench`` builds (``.venv-streaming``, ``.venv-litdata``; an
environment variable names another interpreter), and a script of its own
(``_streaming_peer.py``, ``_litdata_peer.py``) that imports neither
fairshard nor the harness and prints one JSON line (``report``). Standard
library only, so those scripts import it too: ``timed_read`` and
``resume_pass`` are their read and resume loops.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
MARK = "@@PEER@@"


@dataclass(frozen=True)
class Peer:
    """One peer: its name, its script beside this file, its venv and the variable overriding it."""

    name: str
    script: str
    venv: str
    variable: str

    def python(self) -> str | None:
        """The peer venv's interpreter, or None where there is none."""
        given = os.environ.get(self.variable)
        candidate = Path(given) if given else HERE.parent / self.venv / "bin" / "python"
        return str(candidate) if candidate.exists() else None

    def run(self, python: str, *args: object, timeout: float = 1800.0) -> dict[str, Any]:
        """Run the peer's script under ``python`` with ``args``; its JSON result."""
        done = subprocess.run(
            [python, str(HERE / self.script), *map(str, args)],
            capture_output=True,
            text=True,
            timeout=timeout,
            cwd=tempfile.gettempdir(),
            check=False,
        )
        for line in done.stdout.splitlines():
            if line.startswith(MARK):
                result: dict[str, Any] = json.loads(line[len(MARK) :])
                return result
        raise RuntimeError(
            f"{self.name} peer failed:\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}"
        )


STREAMING = Peer(
    "mosaicml streaming", "_streaming_peer.py", ".venv-streaming", "BENCH_STREAMING_PYTHON"
)
LITDATA = Peer("litdata", "_litdata_peer.py", ".venv-litdata", "BENCH_LITDATA_PYTHON")


# ------------------------------------------------- the peers' side (their interpreter)
def report(result: dict[str, Any]) -> None:
    """Print ``result`` as the one line ``Peer.run`` reads."""
    print(MARK + json.dumps(result))


def serve(argv: list[str], version: Callable[[], str], write: Any, read: Any, resume: Any) -> None:
    """A peer script's command line, the same for every peer; prints the ``report``.

    ``version``; ``write DIR RECORD_BYTES COUNT``; ``read DIR SHUFFLE WORKERS
    LIMIT [REMOTE]``; ``resume DIR WORKERS CUT [AFTER_WORKERS [REMOTE]]``.
    """
    command, args = argv[0], argv[1:]
    remote = args[4] if len(args) > 4 else None
    if command == "version":
        result: dict[str, Any] = {"version": version()}
    elif command == "write":
        result = write(args[0], int(args[1]), int(args[2]))
    elif command == "resume":
        after = int(args[3]) if len(args) > 3 else int(args[1])
        result = resume(args[0], int(args[1]), int(args[2]), after, remote)
    else:
        result = read(args[0], args[1], int(args[2]), int(args[3]), remote)
    report(result)


def timed_read(
    batches: Iterable[Any], ids: Callable[[Any], list[int]], limit: int, begin: float
) -> dict[str, Any]:
    """Read ``batches`` until ``limit`` indices, timed from ``begin`` (the dataset's opening).

    Returns the rate after the first batch (``rate``), the seconds to the
    first batch (``first``) and to the last (``elapsed``), the records read
    (``read``) and the first ``limit`` indices in order (``indices``).
    """
    it = iter(batches)
    seen = ids(next(it))
    start, head = time.perf_counter(), len(seen)
    for batch in it:
        seen.extend(ids(batch))
        if len(seen) >= limit:
            break
    end = time.perf_counter()
    return {
        "rate": (len(seen) - head) / (end - start),
        "first": start - begin,
        "elapsed": end - begin,
        "read": len(seen),
        "indices": seen[:limit],
    }


def resume_pass(
    loader: Callable[[int], Any],
    workers: int,
    after: int,
    cut: int,
    ids: Callable[[Any], list[int]],
) -> dict[str, Any]:
    """Read ``cut`` batches of ``loader(workers)``, save its state, resume in ``loader(after)``.

    ``loader(k)`` builds a fresh dataset and loader with ``k`` workers.
    Returns the seconds from building the second one to its first batch
    (``seconds``) and the indices read before and after the cut; where the
    state is refused, what was said (``refused``): a refusal is a result.
    """
    first = loader(workers)
    before: list[int] = []
    for k, batch in enumerate(first):
        before.extend(ids(batch))
        if k + 1 == cut:
            break
    state = first.state_dict()
    del first
    start = time.perf_counter()
    again = loader(after)
    try:
        again.load_state_dict(state)
        it = iter(again)
        rest = ids(next(it))
    except Exception as error:  # any refusal, reported as it was said
        return {"refused": f"{type(error).__name__}: {error}"[:300], "before": before}
    seconds = time.perf_counter() - start
    for batch in it:
        rest.extend(ids(batch))
    return {"seconds": seconds, "before": before, "after": rest}
