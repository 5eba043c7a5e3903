"""Peers that run in a venv of their own: where their interpreter is, one call into them, and
the loops their scripts share.

mosaicml streaming pins ``numpy<2.2``; litdata requires a ``torchvision``
that does not load beside this machine's torch. Each gets a venv that
``make bench`` builds (``.venv-streaming``, ``.venv-litdata``; an
environment variable names another interpreter), and a script of its own
(``_streaming_peer.py``, ``_litdata_peer.py``) that imports neither
fairshard nor the harness and prints one JSON line (``report``). Standard
library only, so those scripts import it too: ``timed_read`` and
``resume_pass`` are their read and resume loops, ``rank_pass`` one rank of
a resume on another world size, which ``run_ranks`` launches as one process
per rank.
"""

from __future__ import annotations

import json
import os
import pickle
import socket
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

    @property
    def script_path(self) -> Path:
        """The peer's script, beside this file."""
        return HERE / self.script

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


def serve(
    argv: list[str],
    version: Callable[[], str],
    write: Any,
    read: Any,
    resume: Any,
    rank: Any = None,
) -> None:
    """A peer script's command line, the same for every peer; prints the ``report``.

    ``version``; ``write DIR RECORD_BYTES COUNT``; ``read DIR SHUFFLE WORKERS
    LIMIT [REMOTE]``; ``resume DIR WORKERS CUT [AFTER_WORKERS [REMOTE]]``;
    ``rank DIR WORKERS CUT PHASE STATES OLD_WORLD`` (one rank of a resume on
    another world size, ``RANK`` / ``WORLD_SIZE`` in the environment:
    ``rank_pass``).
    """
    command, args = argv[0], argv[1:]
    remote = args[4] if len(args) > 4 else None
    if command == "version":
        result: dict[str, Any] = {"version": version()}
    elif command == "rank":
        result = rank(args[0], int(args[1]), int(args[2]), args[3], args[4], int(args[5]))
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


# ------------------------------------------- a resume on another world size, per rank
#: The environment variables a rank gets: torchrun's, and litdata's own (``GLOBAL_RANK``,
#: ``NNODES``); mosaicml streaming reads torchrun's and makes its own gloo group from
#: ``MASTER_ADDR`` / ``MASTER_PORT``; webdataset reads ``RANK`` / ``WORLD_SIZE``.
def rank_environment(rank: int, world: int, port: int) -> dict[str, str]:
    """One rank of ``world`` on this machine (one node)."""
    return {
        "RANK": str(rank),
        "WORLD_SIZE": str(world),
        "LOCAL_RANK": str(rank),
        "LOCAL_WORLD_SIZE": str(world),
        "GLOBAL_RANK": str(rank),
        "NODE_RANK": "0",
        "NNODES": "1",
        "MASTER_ADDR": "127.0.0.1",
        "MASTER_PORT": str(port),
    }


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def run_ranks(argv: list[str], world: int, timeout: float = 900.0) -> list[dict[str, Any]]:
    """Run ``argv`` as ``world`` ranks at once, one process each; their reports, by rank.

    Output goes to files (a rank's report can pass a pipe's buffer while
    another rank waits on it). A rank that fails or is still running after
    ``timeout`` seconds raises ``RuntimeError`` with its output's tail; the
    ranks still running are killed first (this function's own children), as
    soon as one rank fails.
    """
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        procs = []
        for rank in range(world):
            out = open(Path(tmp) / f"{rank}.out", "w+")  # noqa: SIM115 - closed below
            env = {**os.environ, **rank_environment(rank, world, port)}
            procs.append(
                (
                    subprocess.Popen(
                        argv, stdout=out, stderr=subprocess.STDOUT, env=env, cwd=tmp, text=True
                    ),
                    out,
                )
            )
        deadline, failed = time.monotonic() + timeout, ""
        while not failed and any(proc.poll() is None for proc, _ in procs):
            crashed = [r for r, (proc, _) in enumerate(procs) if proc.poll() not in (None, 0)]
            if crashed:  # the others may wait on it in a collective: stop them now
                failed = f"rank {crashed[0]} of {world} exited {procs[crashed[0]][0].returncode}"
            elif time.monotonic() > deadline:
                failed = f"ranks of {world} still running after {timeout:.0f} s"
            time.sleep(0.2)
        for proc, _ in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait(timeout=30)
        reports: list[dict[str, Any]] = []
        for rank, (proc, out) in enumerate(procs):
            out.seek(0)
            text = out.read()
            out.close()
            found = [line for line in text.splitlines() if line.startswith(MARK)]
            if failed or not found:
                what = failed or f"rank {rank} of {world} exited {proc.returncode}"
                raise RuntimeError(f"{what}:\n{text[-3000:]}")
            reports.append(json.loads(found[-1][len(MARK) :]))
        return reports


def rank_pass(
    make: Callable[[str], Any],
    save: Callable[[Any, int], Any],
    load: Callable[[Any, Any], dict[str, Any]],
    ids: Callable[[Any], list[int]],
    phase: str,
    cut: int,
    states: str,
    old_world: int,
) -> dict[str, Any]:
    """One rank (``RANK`` in the environment) of a resume on another world size.

    ``phase="save"``: ``make("save")`` builds this rank's dataset and loader,
    ``cut`` batches are read, ``save(loader, cut)`` is pickled to
    ``STATES/rank-R.pkl``; returns the indices read (``before``).
    ``phase="resume"``: the state of old rank ``R % old_world`` is loaded
    (every rank saved after the same ``cut`` batches; a new rank past the
    old world takes an old rank's state, as a relaunch on more ranks would)
    into ``make("resume")`` by ``load(loader, state)``, which returns what
    the reader declares about the rest (``declared``); the rest of the epoch
    is read. Only what ``load`` and the first resumed batch raise is taken
    for a refusal; a failure to build the loader raises. Returns the
    seconds from building the dataset to the first resumed batch and the
    indices after; where the reader refuses, what it said (``refused``).
    """
    rank = int(os.environ["RANK"])
    folder = Path(states)
    if phase == "save":
        loader = make("save")
        before: list[int] = []
        for k, batch in enumerate(loader):
            before.extend(ids(batch))
            if k + 1 == cut:
                break
        (folder / f"rank-{rank}.pkl").write_bytes(pickle.dumps(save(loader, cut)))
        return {"before": before}
    state = pickle.loads((folder / f"rank-{rank % old_world}.pkl").read_bytes())
    start = time.perf_counter()
    loader = make("resume")  # a failure here is not a refusal of the state: it raises
    try:
        declared = load(loader, state)
        it = iter(loader)
        first = next(it, None)
    except Exception as error:  # any refusal, reported as it was said
        return {"refused": f"{type(error).__name__}: {error}"[:300]}
    seconds = time.perf_counter() - start
    rest = [] if first is None else ids(first)
    for batch in it:
        rest.extend(ids(batch))
    return {"seconds": seconds, "after": rest, "declared": declared}
