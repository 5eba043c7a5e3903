"""Lightning's script launcher: a failed child ends the job with exit code 1, not SIGKILL.

``python script.py`` with ``Trainer(devices>1)`` runs the script again for
every other process, and a thread of the main process watches them: when a
child exits with an error it SIGKILLs the children and then the main
process itself (to end a main process stuck in a collective). The job's
exit status is then -9 (137 in a shell), which reads as an out-of-memory
kill, although the child said why it failed. A fairshard sampler built
before the launcher started the others is refused in the child
(``world._check_env_pair``), so the main process that built such a
sampler asks for :func:`exit_plainly_on_child_failure`: when a child has
*exited* with a failure code (not been killed by a signal), the children
are ended as Lightning ends them and the main process exits at once
(``os._exit``, as abrupt as the SIGKILL it replaces) with code 1, after a
line naming the child's code. Anything else goes to Lightning's own
handling.
"""

from __future__ import annotations

import os
import sys
from typing import Any

__all__ = ["exit_plainly_on_child_failure"]

_MODULES = (
    "lightning.fabric.strategies.launchers.subprocess_script",
    "lightning_fabric.strategies.launchers.subprocess_script",
)


def exit_plainly_on_child_failure() -> None:
    """End the main process with code 1 when a child of Lightning's launcher fails (once)."""
    for name in _MODULES:
        observer = getattr(sys.modules.get(name), "_ChildProcessObserver", None)
        original = getattr(observer, "_terminate_all", None)
        if original is None or getattr(original, "_fairshard", False):
            continue

        def terminate_all(self: Any, _original: Any = original) -> None:
            codes = [proc.returncode for proc in self._child_processes]
            failed = [code for code in codes if code]
            if not failed or any(code < 0 for code in failed):  # killed: Lightning's way
                _original(self)
                return
            for proc in self._child_processes:
                proc.send_signal(self._termination_signal)
            sys.stderr.write(
                f"\nfairshard: a process Lightning's launcher started exited with code "
                f"{failed[0]} (its error is above); this job ended with exit code 1\n"
            )
            sys.stderr.flush()
            os._exit(1)

        terminate_all._fairshard = True  # type: ignore[attr-defined]
        observer._terminate_all = terminate_all  # type: ignore[union-attr]
