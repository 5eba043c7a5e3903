"""A script that every shipped launch line runs as one process.

``CUDA_VISIBLE_DEVICES=$GPU accelerate launch finetune_accelerate.py`` with
``GPU=0`` (SDoRA's experiment scripts, "single-GPU setup"): one visible GPU
makes one process, so a padded evaluation repeats nothing, an unsharded
loader reads the data once, and no second rank can draw another seed or
split. A finding of a rule whose harm needs several processes
(``MULTI_PROCESS_RULES``) describes no shipped run of such a script and is
left out. What stays: set_epoch (one process still repeats its order),
shuffle with a sampler, weighted draws, batch samplers, unshuffled training.

Only an entry script counts (a file no other file of the tree imports: an
imported helper may run under another launch line), one that does not set
``CUDA_VISIBLE_DEVICES`` itself (which overrides the launch line's pin), and
one whose own process spawning, if any, sizes itself by the visible GPUs
(``mp.spawn(main, nprocs=torch.cuda.device_count())``).
"""

from __future__ import annotations

import ast

from .names import Module, tail
from .project import Project, importers

__all__ = ["MULTI_PROCESS_RULES", "one_process_script"]

#: Rules whose pitfall does harm only when several processes run.
MULTI_PROCESS_RULES = frozenset(
    {"FS103", "FS104", "FS105", "FS106", "FS109", "FS110", "FS111", "FS113", "FS114"}
)
_SPAWNS = frozenset({"spawn", "start_processes", "Process", "Pool"})


def one_process_script(mod: Module) -> bool:
    """Every shipped launch line that runs this entry script runs it as one process."""
    cached = mod.cache.get("one_process_script")
    if isinstance(cached, bool):
        return cached
    mod.cache["one_process_script"] = found = _one_process(mod)
    return found


def _one_process(mod: Module) -> bool:
    project = mod.cache.get("project")
    if not isinstance(project, Project) or not project.whole_tree:
        return False
    path = project.tree_path(mod)
    if path is None or path.as_posix() not in project.one_process_scripts or importers(mod):
        return False
    if any(isinstance(n, ast.Constant) and n.value == "CUDA_VISIBLE_DEVICES" for n in mod.nodes):
        return False  # the script pins its own devices
    spawns = [c for c in mod.calls if tail(c) in _SPAWNS]
    return all("device_count" in ast.unparse(c) for c in spawns)
