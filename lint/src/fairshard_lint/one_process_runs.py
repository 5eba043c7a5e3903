"""A script that every shipped launch line runs as one process.

``CUDA_VISIBLE_DEVICES=$GPU accelerate launch finetune_accelerate.py`` with
``GPU=0`` (SDoRA's experiment scripts, "single-GPU setup"): one visible GPU
makes one process, so a padded evaluation repeats nothing, an unsharded
loader reads the data once, and no second rank can draw another seed or
split. A finding of a rule whose harm needs several processes
(``MULTI_PROCESS_RULES``) describes no shipped run of such a script and is
left out. What stays: set_epoch (one process still repeats its order),
shuffle with a sampler, weighted draws, batch samplers, unshuffled training.

A script that sets ``WORLD_SIZE`` to 1 at its top level is one process too,
whatever launches it. An entry script counts (a file no other file of the
tree imports), one that does not set ``CUDA_VISIBLE_DEVICES`` itself (which
overrides the launch line's pin), and one whose own process spawning, if
any, sizes itself by the visible GPUs (``mp.spawn(main,
nprocs=torch.cuda.device_count())``). So does a module
that only such entry scripts import, through any chain of imports, and that
no shipped line runs itself: it runs in their one process.
"""

from __future__ import annotations

import ast

from .branches import several_process_branch
from .flow import dead_branch, is_distributed_sampler, switched_off
from .launch_counts import names_fabric_cli
from .names import Module, env_key, is_main_guard, tail
from .option_branches import skipped_option_branch
from .project import (
    Project,
    entry_scripts,
    imported_modules,
    importers,
    unreached_by_callers,
)

__all__ = ["MULTI_PROCESS_RULES", "one_process_script", "unbuilt_samplers", "unlaunched_fabric"]

#: Rules whose pitfall does harm only when several processes run.
MULTI_PROCESS_RULES = frozenset(
    {"FS103", "FS104", "FS105", "FS106", "FS109", "FS110", "FS111", "FS113", "FS114", "FS115"}
)
#: (A ``multiprocessing.Pool`` maps a function over items, the feature conversion of
#: the transformers examples: its daemonic workers form no ranks and start none.)
_SPAWNS = frozenset({"spawn", "start_processes", "Process"})


def one_process_script(mod: Module) -> bool:
    """Every shipped line that runs this entry script (or each entry importing it): one process."""
    cached = mod.cache.get("one_process_script")
    if isinstance(cached, bool):
        return cached
    mod.cache["one_process_script"] = found = _one_process(mod)
    return found


def unbuilt_samplers(mod: Module) -> frozenset[ast.Call]:
    """Distributed samplers of a one-process entry script that only its multi-process arm builds.

    The older transformers examples (``run_glue.py``, ``run_squad.py``, and the
    scripts built on them) pick ``RandomSampler(ds) if args.local_rank == -1
    else DistributedSampler(ds)``. Run by plain ``python`` on every shipped
    line, ``local_rank`` stays -1: the distributed sampler is never built, so
    no loop over its loader repeats an order for want of ``set_epoch`` (FS101
    follows the loader into the trainer module it is handed to, and stops here).
    So is a sampler in a branch that every call of its function skips with a
    literal (LLM_Train's ``DistributedSampler`` for ``"shakespeare"``, a data
    name that its only caller never passes), or that an option every shipped
    run sets against it skips (retformer's ``if args.isdistributed == 1:``,
    each line passing ``--isdistributed=0``; see ``option_branches``).
    """
    project = mod.cache.get("project")
    one = one_process_script(mod)
    return frozenset(
        call
        for call in mod.calls
        if is_distributed_sampler(mod, call)
        and (
            (one and several_process_branch(mod, call))
            or (
                isinstance(project, Project)
                and (
                    unreached_by_callers(project, mod.cache["module_name"], call)
                    or _built_before_any_group(project, mod, call)
                    or skipped_option_branch(mod, call)
                )
            )
        )
    )


#: Packages whose launchers or trainers set up the process group before user code runs.
_GROUP_MAKERS = frozenset({"lightning", "pytorch_lightning", "accelerate", "deepspeed", "ignite"})


def _built_before_any_group(project: Project, mod: Module, call: ast.Call) -> bool:
    """The sampler is built only once a process group exists, and no caller makes one first.

    GBM's ``create_dataloaders`` builds its ``DistributedSampler`` under ``if
    dist.is_available() and dist.is_initialized():``; ``train_gbm2.py`` calls
    it and never starts a process group, and ``train_gbm.py`` starts one only
    after the call: on every shipped path the test fails and the loaders
    carry no distributed sampler. Every call site of the builder, and of the
    functions around them up to three callers up, must sit in a module that
    imports no package that makes the group for it, with no
    ``init_process_group`` before it in its function (nor in a function of
    the tree it calls earlier there).
    """
    func = mod.function_of(call)
    if func is None or not _under_an_initialized_test(mod, call):
        return False
    sites = project.call_sites(mod.cache["module_name"], func.name)
    return bool(sites) and all(_no_group_before(project, owner, site, 3) for owner, site in sites)


def _no_group_before(project: Project, owner: str, site: ast.Call, depth: int) -> bool:
    """No process group can exist where ``site`` runs (see :func:`_built_before_any_group`)."""
    caller = project.modules[owner]
    if caller.imports_any(_GROUP_MAKERS):
        return False
    scope = caller.function_of(site)
    for earlier in caller.calls:
        if (earlier.lineno, earlier.col_offset) >= (site.lineno, site.col_offset):
            break
        if caller.function_of(earlier) is not scope:
            continue
        if tail(earlier) == "init_process_group" or _makes_a_group(project, owner, earlier):
            return False
    if scope is None:
        return True  # a script's top level: nothing runs before it
    outer = project.call_sites(owner, scope.name)
    if not outer:
        return True  # an entry point (or handed to a launcher): its own body was read
    if depth == 0:
        return False
    return all(_no_group_before(project, o, s, depth - 1) for o, s in outer)


def _makes_a_group(project: Project, owner: str, call: ast.Call) -> bool:
    """``call`` runs a function of the tree that calls ``init_process_group``."""
    where = project.resolve(owner, call)
    if where is None:
        return False
    module = project.modules[where[0]]
    return any(
        tail(inner) == "init_process_group"
        and (f := module.function_of(inner)) is not None
        and f.name == where[1]
        for inner in module.calls
    )


def _under_an_initialized_test(mod: Module, call: ast.Call) -> bool:
    """``call`` sits in the body of an ``if`` whose test requires ``dist.is_initialized()``."""
    child: ast.AST = call
    for ancestor in mod.ancestors(call):
        if isinstance(ancestor, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            return False
        if isinstance(ancestor, ast.If) and child in ancestor.body:
            test = ancestor.test
            parts = (
                test.values
                if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And)
                else [test]
            )
            if any(
                isinstance(p, ast.Call) and tail(p) == "is_initialized" and not p.args
                for p in parts
            ):
                return True
        child = ancestor
    return False


def _one_process(mod: Module) -> bool:
    project = mod.cache.get("project")
    if not isinstance(project, Project) or not project.whole_tree:
        return False
    path = project.tree_path(mod)
    if path is None:
        return False
    if importers(mod) and not _imported_for_its_data_free_names(project, mod):
        # run directly by some line as well as imported: its own runs are not read here
        return path.as_posix() not in project.run_scripts and _imported_by_one_process(mod)
    if _sets_a_world_of_one(mod) and not _starts_processes(mod):
        return True
    if path.as_posix() not in project.one_process_scripts:
        return path.as_posix() in project.plain_python_scripts and not _starts_processes(mod)
    if _pins_its_own_devices(mod):
        return False  # the script pins its own devices
    spawns = [c for c in mod.calls if tail(c) in _SPAWNS]
    return all("device_count" in ast.unparse(c) for c in spawns)


_VISIBLE = "CUDA_VISIBLE_DEVICES"


def _pins_its_own_devices(mod: Module) -> bool:
    """The script names ``CUDA_VISIBLE_DEVICES`` other than to keep the launch's or one GPU.

    medical-BERT-project's ``os.environ["CUDA_VISIBLE_DEVICES"] =
    os.environ.get("CUDA_VISIBLE_DEVICES", "0")`` keeps what the launch line
    set (one GPU per worker there), or one GPU: the line's count stands.
    """
    kept: set[int] = set()
    for node in mod.nodes:
        if not isinstance(node, ast.Assign) or len(node.targets) != 1:
            continue
        target = node.targets[0]
        if not (
            isinstance(target, ast.Subscript)
            and isinstance(target.slice, ast.Constant)
            and target.slice.value == _VISIBLE
        ):
            continue
        value = node.value
        if isinstance(value, ast.Call) and tail(value) == "get" and value.args:
            if not (isinstance(value.args[0], ast.Constant) and value.args[0].value == _VISIBLE):
                continue
            value = value.args[1] if len(value.args) > 1 else ast.Constant(value="")
        if isinstance(value, ast.Constant) and str(value.value).strip().isdigit():
            kept.update(id(n) for n in ast.walk(node))
    return any(
        isinstance(n, ast.Constant) and n.value == _VISIBLE and id(n) not in kept for n in mod.nodes
    )


def unlaunched_fabric(mod: Module) -> bool:
    """``mod`` runs its work through a Lightning Fabric that nothing launches: one device.

    tabular_mri's ``kfold.py`` builds ``Fabric()`` and hands its fold loaders to
    ``fabric.setup_dataloaders``; nothing in the tree calls ``.launch()`` and no
    line runs a script by Fabric's CLI (``fabric run``, ``lightning run
    model``). Fabric then refuses more than one device at the first
    ``setup`` ("you must call `.launch()` or use the CLI", Lightning 2.x; a
    torchrun launch does not count as launched), so every run that gets
    past it is one process. A module that starts a process group itself, or
    a tree too large to read its launch files, is left alone.
    """
    cached = mod.cache.get("unlaunched_fabric")
    if isinstance(cached, bool):
        return cached
    found = False
    project = mod.cache.get("project")
    if (
        isinstance(project, Project)
        and project.whole_tree
        and project.root is not None
        and any(tail(c) == "Fabric" for c in mod.calls)
        and not any(tail(c) == "init_process_group" for c in mod.calls)
    ):
        key = "tree launches or runs fabric"
        if key not in project.facts:
            launched = any(
                tail(c) == "launch" and isinstance(c.func, ast.Attribute)
                for other in project.modules.values()
                for c in other.calls
            )
            project.facts[key] = launched or names_fabric_cli(project.root) is not False
        found = not project.facts[key]
    mod.cache["unlaunched_fabric"] = found
    return found


#: Names whose presence in a definition means it may load data or start ranks.
_DATA_WORDS = frozenset(
    {
        "DataLoader",
        "DistributedSampler",
        "init_process_group",
        "DistributedDataParallel",
        "spawn",
        "start_processes",
        "Accelerator",
        "Trainer",
        "Fabric",
    }
)


def _imported_for_its_data_free_names(project: Project, mod: Module) -> bool:
    """Every file importing the script takes names from it that reach no data code.

    ml-stance-detection's ``run_classify.py`` is run by one README line on one
    GPU, and four other files import its ``PROCESSORS`` table and
    ``get_processor``: those reach no loader, sampler or process group of the
    script, so its own runs decide. A whole-module import, a module loaded by
    name, or module-level code outside the main guard that names data code
    (it runs on import) leaves the script to its importers.
    """
    name = mod.cache["module_name"]
    defined = {
        stmt.name: stmt
        for stmt in mod.tree.body
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
    }
    top = [
        stmt
        for stmt in mod.tree.body
        if not isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        and not (isinstance(stmt, ast.If) and is_main_guard(stmt.test))
    ]
    if any(_names_data_code(stmt) for stmt in top):
        return False
    wanted: set[str] = set()
    for other in importers(mod):
        owner = other.cache["module_name"]
        if project.loaded_by_name(owner):
            return False
        for target in project.imports(owner).values():
            if project.find(target) == name:
                return False  # the whole module: any of it may be called
            head, _, attr = target.rpartition(".")
            if head and project.find(head) == name:
                wanted.add(attr)
    seen: set[str] = set()
    while wanted:
        item = wanted.pop()
        if item in seen or item not in defined:
            continue
        seen.add(item)
        if _names_data_code(defined[item]):
            return False
        wanted |= {n.id for n in ast.walk(defined[item]) if isinstance(n, ast.Name)} - seen
    return True


def _names_data_code(node: ast.AST) -> bool:
    """``node`` names a loader, a sampler, a process group or a trainer (see ``_DATA_WORDS``)."""
    return any(
        (isinstance(n, ast.Name) and n.id in _DATA_WORDS)
        or (isinstance(n, ast.Attribute) and n.attr in _DATA_WORDS)
        for n in ast.walk(node)
    )


def _imported_by_one_process(mod: Module) -> bool:
    """Every entry script that imports ``mod`` (directly or through other modules) is one process.

    TASA's ``model/evaluator.py`` gathers an evaluation over a loader
    accelerate prepared; ``TASA.py`` alone imports it, and each README line
    runs that script by plain ``python`` on the one V100 the paper used: the
    helper runs in one process on every shipped run, as its only entry does.
    An entry no shipped line runs says nothing of how it is run (it is not
    one process), so neither does a helper it imports.
    """
    entries = entry_scripts(mod)
    return bool(entries) and all(one_process_script(entry) for entry in entries)


def _sets_a_world_of_one(mod: Module) -> bool:
    """The script sets ``os.environ["WORLD_SIZE"] = "1"`` at its top level, whatever runs it.

    tgrs's ``main.py`` forces ``WORLD_SIZE='1'`` before
    ``init_process_group(init_method="env://", ...)``: a launch of two
    processes cannot form its group (the second rank is refused), so the only
    run that trains is one process.
    """
    return any(
        isinstance(stmt, ast.Assign)
        and isinstance(stmt.value, ast.Constant)
        and str(stmt.value.value).strip() == "1"
        and any(env_key(t) == "WORLD_SIZE" for t in stmt.targets)
        for stmt in mod.tree.body
    )


#: Packages whose trainers start the processes of a run themselves.
_SELF_LAUNCHING = frozenset(
    {"pytorch_lightning", "lightning", "ray", "submitit", "horovod", "deepspeed", "colossalai"}
)
#: Calls that start processes, or a launcher, from the script.
_STARTS = _SPAWNS | frozenset(
    {
        "notebook_launcher",
        "system",
        "run",
        "Popen",
        "call",
        "check_call",
        "launch",
        "elastic_launch",
    }
)


def _starts_processes(mod: Module) -> bool:
    """The script (or a module of its tree it imports) may start processes of its own.

    ``mp.spawn``, ``multiprocessing.Process``, a launcher run through
    ``subprocess``/``os.system``, accelerate's ``notebook_launcher``, or a
    framework that launches its ranks itself (Lightning's ``Trainer(devices=4)``
    run by plain ``python``, Ray Train): then a plain ``python`` line is not one
    process.
    """
    seen = [mod, *imported_modules(mod)]
    return any(
        m.imports_any(_SELF_LAUNCHING)
        or any(
            tail(c) in _STARTS
            and not _own_function(m, c)
            and not dead_branch(m, c, switched_off(m))
            for c in m.calls
        )
        for m in seen
    )


def _own_function(mod: Module, call: ast.Call) -> bool:
    """``run(args)`` calls the module's own ``def run``, not ``subprocess.run`` (KALA's script)."""
    return isinstance(call.func, ast.Name) and call.func.id in mod.functions
