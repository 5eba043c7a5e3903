"""A world pinned to one machine: the rendezvous address is this host.

``os.environ["MASTER_ADDR"] = "localhost"`` (or ``127.0.0.1``), or
``init_process_group(init_method="tcp://127.0.0.1:port")``, set by the
script itself and not by a launcher: every process of the group runs on
this machine, so a node-local rank (an ``mp.spawn`` index, ``LOCAL_RANK``)
is the global rank, and FS111's pitfall (two nodes reading one share)
cannot happen. The URL may be built apart (``url = "tcp://localhost:" +
str(free_port)``, then ``init_method=args.url``: a spawn path that picks
its own free port). A ``setdefault``, an ``environ.get`` fallback or a
command-line default (``add_argument("--dist-url", default=...)``) is no
pin: a multi-node launcher, or the user, overrides it.
"""

from __future__ import annotations

import ast

from .names import Module, argument, env_key, tail
from .project import importers

__all__ = ["pinned_to_one_machine"]

_LOCAL_HOSTS = ("localhost", "127.0.0.1", "::1", "[::1]")


def _local(value: ast.AST | None) -> bool:
    return isinstance(value, ast.Constant) and value.value in _LOCAL_HOSTS


def _local_url(value: ast.AST | None) -> bool:
    if not isinstance(value, ast.Constant | ast.JoinedStr):
        return False
    text = ast.unparse(value)
    return any(f"://{host}:" in text for host in _LOCAL_HOSTS)


#: Calls whose string arguments are overridable defaults, not the address the script uses.
_FALLBACKS = frozenset({"add_argument", "get", "setdefault", "getenv"})


def _built_local_url(mod: Module, node: ast.AST) -> bool:
    """A ``"tcp://localhost:"`` string that the script builds its rendezvous from.

    The port may be joined apart: Auto-Trajectory-Prediction-Devkit's
    ``dist_url = "tcp://127.0.0.1"``, then ``"{}:{}".format(dist_url, port)``.
    """
    if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
        return False
    if not any(
        f"://{host}:" in node.value or node.value.endswith(f"://{host}") for host in _LOCAL_HOSTS
    ):
        return False
    call = next((a for a in mod.ancestors(node) if isinstance(a, ast.Call)), None)
    return call is None or tail(call) not in _FALLBACKS


def _pins(mod: Module) -> bool:
    for node in mod.nodes:
        if _built_local_url(mod, node):
            return True
        if (
            isinstance(node, ast.Assign)
            and _local(node.value)
            and any(env_key(t) == "MASTER_ADDR" for t in node.targets)
        ):
            return True
        if isinstance(node, ast.Call) and _local_url(argument(node, "init_method")):
            return True
    return False


def pinned_to_one_machine(mod: Module) -> bool:
    """The file, or a file of its tree that imports it, pins the rendezvous to this host."""
    cached = mod.cache.get("one_machine")
    if isinstance(cached, bool):
        return cached
    found = _pins(mod) or any(_pins(other) for other in _importers_up(mod, 3))
    mod.cache["one_machine"] = found
    return found


def _importers_up(mod: Module, depth: int) -> list[Module]:
    """The modules of the tree that import ``mod``, and theirs, ``depth`` levels up.

    De-limiter's ``main_ddp.py`` pins ``MASTER_ADDR`` and imports ``train_ddp``,
    which imports the ``solver_ddp`` that builds the sampler.
    """
    found: list[Module] = []
    level = [mod]
    for _ in range(depth):
        level = [other for m in level for other in importers(m) if other not in found]
        found.extend(o for o in level if o not in found)
        if not level:
            break
    return found
