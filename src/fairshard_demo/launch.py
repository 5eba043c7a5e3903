"""Run the training script under torchrun and turn its events into progress.

``fairshard demo`` launches ``python -m torch.distributed.run --standalone
--nproc-per-node N -m fairshard_demo.train ...`` as a child process (in its
own session, so a timeout can stop every rank). Rank 0 prints progress events
(``train.PROGRESS_PREFIX`` + JSON); everything else the ranks and torchrun
print is shown as it comes, or, with ``quiet``, only when the launch fails.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
from collections import deque
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

import fairshard

from .train import PROGRESS_PREFIX

__all__ = ["LaunchError", "LaunchLog", "child_env", "run_torchrun", "torchrun_command"]


class LaunchError(RuntimeError):
    """A torchrun launch failed or ran past its timeout."""


def torchrun_command(nproc: int, script_args: Sequence[str]) -> list[str]:
    """The command line that runs the training script on ``nproc`` local ranks."""
    return [
        sys.executable,
        "-m",
        "torch.distributed.run",
        "--standalone",
        f"--nproc-per-node={nproc}",
        "-m",
        "fairshard_demo.train",
        *script_args,
    ]


def child_env() -> dict[str, str]:
    """The environment of the ranks: this fairshard importable, one thread per rank."""
    env = dict(os.environ)
    root = str(Path(fairshard.__file__).resolve().parent.parent)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH", "")) if p)
    env.setdefault("OMP_NUM_THREADS", "1")
    env["PYTHONUNBUFFERED"] = "1"
    for name in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT"):
        env.pop(name, None)  # torchrun sets them; stale values from a parent job confuse it
    return env


class LaunchLog:
    """A progress display on a stream (stderr by default).

    One line per epoch; on a terminal the line of the running method is
    rewritten in place.
    """

    def __init__(self, stream: IO[str] | None = None, *, quiet: bool = False) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.quiet = quiet
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.logs: deque[str] = deque(maxlen=200)
        self._open = False

    def _write(self, text: str, *, final: bool) -> None:
        if self.quiet:
            return
        if self.tty:
            self.stream.write("\r\033[K" + text + ("\n" if final else ""))
            self._open = not final
        else:
            self.stream.write(text + "\n")
        self.stream.flush()

    def note(self, text: str) -> None:
        """A line of its own (a phase starting, a result)."""
        if self._open:
            self._write("", final=True)
        self._write(text, final=True)

    def log(self, line: str) -> None:
        """Output of the ranks or torchrun that is not an event."""
        self.logs.append(line)
        if not self.quiet:
            self.note(line)

    def event(self, fields: dict[str, Any]) -> None:
        """Render one event printed by rank 0."""
        kind, method = fields.get("kind"), fields.get("method", "?")
        if kind == "epoch":
            done = fields["epoch"] + 1
            width = 20
            bar = "#" * (width * done // fields["epochs"])
            check = "ok" if fields["coverage_ok"] else "FAILED"
            text = (
                f"  {method:<9} [{bar:<{width}}] epoch {done}/{fields['epochs']}  "
                f"loss {fields['loss']:.3f}  balanced acc {fields['balanced_accuracy']:.3f}  "
                f"coverage {check}"
            )
            self._write(text, final=not self.tty or done == fields["epochs"])
        elif kind == "checkpoint":
            self.note(
                f"  {method:<9} checkpoint in epoch {fields['epoch']} after "
                f"{fields['steps']} samples per rank"
            )
        elif kind == "resume":
            check = "ok" if fields["coverage_ok"] else "FAILED"
            self.note(f"  {method:<9} resumed epoch {fields['epoch']}: coverage {check}")


def run_torchrun(cmd: Sequence[str], progress: LaunchLog, *, timeout: float) -> None:
    """Run ``cmd``, feeding its output to ``progress``.

    Raises:
        LaunchError: non-zero exit or timeout; the message ends with the
            launch's last output lines.
    """
    timed_out = threading.Event()
    with subprocess.Popen(
        list(cmd),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=child_env(),
        start_new_session=True,
    ) as proc:

        def stop() -> None:
            timed_out.set()
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)

        timer = threading.Timer(timeout, stop)
        timer.start()
        try:
            assert proc.stdout is not None
            for raw in proc.stdout:
                line = raw.rstrip("\n")
                if line.startswith(PROGRESS_PREFIX):
                    progress.event(json.loads(line[len(PROGRESS_PREFIX) :]))
                elif line.strip():
                    progress.log(line)
            code = proc.wait()
        finally:
            timer.cancel()
            if proc.poll() is None:
                stop()
                proc.wait()
    if timed_out.is_set() or code != 0:
        why = f"ran past its {timeout:.0f}s timeout" if timed_out.is_set() else f"exited {code}"
        tail = "\n".join(list(progress.logs)[-40:])
        raise LaunchError(f"torchrun {why}: {' '.join(cmd)}\n{tail}")
