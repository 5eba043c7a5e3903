"""Several torchrun node agents on 127.0.0.1: the topology of a cluster, on one machine.

``Cluster`` hosts the c10d rendezvous store itself (as a cluster's etcd or
head node would, so that any node agent can be lost) and starts node agents
that meet there::

    python -m torch.distributed.run --nnodes 2 --node-rank N --nproc-per-node 2
        --rdzv-backend c10d --rdzv-endpoint 127.0.0.1:PORT ... script.py ARGS

Every process of the job carries a token in its environment. ``kill_node``
SIGKILLs an agent and every process it started, each in its own process
group (torchrun starts its workers in new sessions, so killing the agent's
group alone leaves them running); ``close`` SIGKILLs whatever carries the
token, so a test leaves no process behind even when it fails or times out.
Agents are launched with ``TORCH_DISABLE_SHARE_RDZV_TCP_STORE=1`` unless told
otherwise: each rendezvous round then gets a fresh worker store, the recipe
that lets a job shrink and grow (see ``fairshard.init_elastic_process_group``).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from types import TracebackType

import torch.distributed as dist

__all__ = ["Agent", "Cluster", "job_processes"]

ROOT = Path(__file__).resolve().parents[1]
TOKEN = "FAIRSHARD_MULTINODE_JOB"


@dataclass
class Agent:
    """One node agent (a ``torchrun`` process) and its log."""

    node: int
    proc: subprocess.Popen[bytes]
    log: Path

    def alive(self) -> bool:
        """The agent has not exited."""
        return self.proc.poll() is None


def _children() -> dict[int, list[int]]:
    kids: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        kids.setdefault(ppid, []).append(int(entry))
    return kids


def _tree(pid: int) -> list[int]:
    kids, out, todo = _children(), [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(kids.get(p, []))
    return out


def job_processes(token: str) -> list[int]:
    """Pids of live processes whose environment carries ``token``."""
    needle = f"{TOKEN}={token}".encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            environ = Path(f"/proc/{entry}/environ").read_bytes()
            state = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z" and needle in environ.split(b"\0"):
            found.append(int(entry))
    return found


def _kill_groups(pids: list[int]) -> None:
    groups = set()
    for pid in pids:
        try:
            groups.add(os.getpgid(pid))
        except ProcessLookupError:
            continue
    groups.discard(os.getpgrp())  # never the caller's own group
    for group in groups:
        try:
            os.killpg(group, signal.SIGKILL)
        except ProcessLookupError:
            continue


class Cluster:
    """Node agents of one torchrun job meeting at a rendezvous store hosted here.

    Args:
        script: The training script every worker runs.
        args: Its arguments.
        run_dir: Where the agents' logs go.
        nnodes: torchrun's ``--nnodes`` (``"2"``, or ``"1:2"`` for elastic).
        nproc_per_node: Workers per agent.
        max_restarts: torchrun's ``--max-restarts``.
        shared_store: Keep torchrun's default shared worker store (``False``
            launches with ``TORCH_DISABLE_SHARE_RDZV_TCP_STORE=1``).
        env: Extra environment for the workers.
    """

    def __init__(
        self,
        script: Path,
        args: list[str],
        run_dir: Path,
        *,
        nnodes: str = "2",
        nproc_per_node: int = 2,
        max_restarts: int = 0,
        shared_store: bool = False,
        env: dict[str, str] | None = None,
    ) -> None:
        self.script, self.args, self.run_dir = script, args, run_dir
        self.nnodes, self.nproc_per_node, self.max_restarts = nnodes, nproc_per_node, max_restarts
        self.token = uuid.uuid4().hex
        self.agents: list[Agent] = []
        run_dir.mkdir(parents=True, exist_ok=True)
        self.store = dist.TCPStore(
            "127.0.0.1", 0, is_master=True, multi_tenant=True, timeout=timedelta(seconds=60)
        )
        self.env = {
            k: v
            for k, v in os.environ.items()
            if k not in {"RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT"}
        }
        self.env.update(
            {
                "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "src")]),
                "OMP_NUM_THREADS": "1",
                TOKEN: self.token,
                **(env or {}),
            }
        )
        if not shared_store:
            self.env["TORCH_DISABLE_SHARE_RDZV_TCP_STORE"] = "1"

    def start(self, node: int) -> Agent:
        """Start the agent of node ``node`` (its log: ``run_dir/agentN.log``)."""
        conf = ",".join(
            [
                "is_host=false",  # the store is hosted here, not by a node that may die
                "join_timeout=120",
                "last_call_timeout=2",
                "keep_alive_interval=1",
                "keep_alive_max_attempt=5",
            ]
        )
        cmd = [
            sys.executable,
            "-m",
            "torch.distributed.run",
            f"--nnodes={self.nnodes}",
            f"--node-rank={node}",
            f"--nproc-per-node={self.nproc_per_node}",
            f"--max-restarts={self.max_restarts}",
            "--rdzv-backend=c10d",
            f"--rdzv-endpoint=127.0.0.1:{self.store.port}",
            f"--rdzv-id={self.token}",
            f"--rdzv-conf={conf}",
            "--local-addr=127.0.0.1",
            "--monitor-interval=0.5",
            str(self.script),
            *self.args,
        ]
        log = self.run_dir / f"agent{len(self.agents)}.node{node}.log"
        with open(log, "wb") as out:
            proc = subprocess.Popen(
                cmd, env=self.env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
            )
        agent = Agent(node, proc, log)
        self.agents.append(agent)
        return agent

    def kill_node(self, agent: Agent) -> None:
        """Lose a whole node: SIGKILL the agent and every process it started."""
        tree = _tree(agent.proc.pid)
        _kill_groups(tree[:1])  # the agent first: it must not restart what dies next
        _kill_groups(tree[1:])
        agent.proc.wait()

    def wait(self, agents: list[Agent], timeout: float) -> list[int]:
        """Exit codes of ``agents``; after ``timeout`` seconds, kill the job and raise."""
        deadline = time.monotonic() + timeout
        codes = []
        for agent in agents:
            try:
                codes.append(agent.proc.wait(timeout=max(0.1, deadline - time.monotonic())))
            except subprocess.TimeoutExpired:
                self.close()
                raise TimeoutError(
                    f"node {agent.node} did not finish within {timeout:.0f}s; logs in "
                    f"{self.run_dir}:\n{self.tail()}"
                ) from None
        return codes

    def tail(self, chars: int = 3000) -> str:
        """The end of every agent's log, for failure messages."""
        return "\n".join(
            f"--- {a.log.name}\n{a.log.read_text(errors='replace')[-chars:]}" for a in self.agents
        )

    def close(self) -> None:
        """SIGKILL every process of the job that is still alive."""
        for agent in self.agents:
            if agent.alive():
                self.kill_node(agent)
        for _ in range(3):
            left = job_processes(self.token)
            if not left:
                return
            _kill_groups(left)
            time.sleep(0.2)

    def __enter__(self) -> Cluster:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()
