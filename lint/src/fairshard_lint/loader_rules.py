"""Lint rules about the DataLoader and the environment.

Rules FS102, FS103 and FS106: DataLoader arguments that PyTorch rejects or
that leave a distributed job unsharded, and GPU selection done inside the
script instead of by the launcher. Each rule reads the syntax tree (never
runs the script) and yields ``(node, message)`` pairs.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator

from .branches import follows_an_exiting_if, single_process_branch, spawning_parent
from .caller_flags import shuffling_sites
from .context import context_of, rebound_later, target_names
from .flow import (
    LOADERS,
    bound_only_to,
    distributed_script,
    flow_of,
    is_distributed_sampler,
    module_constants,
    shuffle_from_config,
    shuffles,
    spread_entry,
)
from .importer_reach import reached_from
from .lightning_hooks import handed_to_lightning, lightning_shards
from .names import (
    Module,
    argument,
    calls_bound_to,
    distributed_test,
    dotted,
    env_key,
    is_constant,
    is_main_guard,
    mentions_local_rank,
    mentions_rank,
    name_words,
    single_process_test,
    tail,
)
from .one_process_runs import one_process_script
from .prepared import accelerate_launched, framework_shards
from .project import Project, asks_single_process, imported_modules, importers
from .rank_cuts import cut_by_rank
from .rulebook import rule

__all__: list[str] = []


def _given(mod: Module, call: ast.Call, node: ast.AST | None) -> bool:
    """A sampler is passed: neither ``None`` nor a local or attribute bound only to ``None``.

    ``sampler=self.sampler`` where every assignment of ``.sampler`` in the
    tree is ``None`` (VATTMoDi's base data module, whose ``self.sampler =
    None`` no subclass or caller replaces) passes no sampler.
    """
    if node is None or is_constant(node, None):
        return False
    if isinstance(node, ast.Name):
        func = mod.function_of(call)
        return not bound_only_to(func if func is not None else mod.tree, node.id, func, None)
    if isinstance(node, ast.Attribute) and dotted(node) == f"self.{node.attr}":
        return not _attribute_only_none(mod, node.attr)
    return True


def _attribute_only_none(mod: Module, attr: str) -> bool:
    """Every assignment of an attribute named ``attr`` in the tree's modules binds ``None``.

    A ``setattr`` or an assignment by tuple counts as another value (one
    handed in through a constructor is an assignment of a parameter).
    """
    project = mod.cache.get("project")
    modules = list(project.modules.values()) if isinstance(project, Project) else [mod]
    seen = False
    for other in modules:
        if attr not in other.identifiers:
            continue
        for node in other.nodes:
            if isinstance(node, ast.Assign | ast.AnnAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    if isinstance(target, ast.Attribute) and target.attr == attr:
                        if not is_constant(node.value, None):
                            return False
                        seen = True
                    elif isinstance(target, ast.Tuple | ast.List) and any(
                        isinstance(e, ast.Attribute) and e.attr == attr for e in target.elts
                    ):
                        return False
            elif isinstance(node, ast.Call) and tail(node) == "setattr":
                return False
    return seen


@rule(
    "FS102",
    "shuffle-with-sampler",
    "DataLoader(shuffle=True) together with sampler= or batch_sampler=: PyTorch raises "
    "ValueError when the loader is built (the two options are mutually exclusive)",
    "drop shuffle=True; the sampler decides the order (use its own shuffle argument)",
    default=False,
)
def _shuffle_with_sampler(mod: Module) -> Iterator[tuple[ast.AST, str]]:
    flow = flow_of(mod)
    for call in mod.calls:
        if tail(call) not in LOADERS or not shuffles(flow, call):
            continue
        for key, pos in (("sampler", 3), ("batch_sampler", 4)):
            if _given(mod, call, argument(call, key, pos)):
                yield (
                    call,
                    (
                        f"DataLoader(shuffle=True, {key}=...) raises ValueError in PyTorch; remove "
                        "shuffle=True and let the sampler shuffle"
                    ),
                )
                break


#: Words in an ``if`` test that mean the script branches on being distributed.
_BRANCH_WORDS = frozenset(
    {"distributed", "ddp", "world", "rank", "local", "gpu", "gpus", "multi", "main", "master"}
)


def _branches_on_world(mod: Module, call: ast.Call) -> bool:
    """The call sits in an ``if`` (or ``x if c else y``) that tests distributed-ness.

    Said by the test's words (``if args.distributed:``), or by the other arm,
    which builds a distributed sampler (``if is_mp:`` ... ``DistributedSampler``
    ... ``else:`` a plain shuffling loader for the one-GPU run).
    """
    child: ast.AST = call
    for ancestor in mod.ancestors(call):
        if isinstance(ancestor, ast.If) and _other_arm_shards(mod, ancestor, child):
            return True
        if _after_an_exiting_branch(mod, ancestor, child):
            return True
        child = ancestor
        if isinstance(ancestor, ast.If | ast.IfExp) and _tests_world(ancestor.test):
            return True
    return False


def _tests_world(test: ast.expr) -> bool:
    """The words of an ``if`` test say it branches on being distributed (``args.ddp``)."""
    words = {
        w
        for node in ast.walk(test)
        if isinstance(node, ast.Name | ast.Attribute)
        for w in name_words(node.id if isinstance(node, ast.Name) else node.attr)
    }
    return bool(words & _BRANCH_WORDS)


def _after_an_exiting_branch(mod: Module, block_owner: ast.AST, child: ast.AST) -> bool:
    """``child`` follows, in its block, an ``if`` on distributed-ness whose arm returns.

    HAAR's ``if self.ddp: return DataLoader(..., sampler=DistributedSampler(...))``
    then ``return DataLoader(..., shuffle=True)``: what follows the ``if`` is its
    ``else``, the one-process run's loader. The ``if`` tests distributed-ness by
    its words or builds a distributed sampler, and its arm always leaves
    (``return``, ``raise``).
    """
    return follows_an_exiting_if(
        block_owner,
        child,
        lambda branch: (
            not branch.orelse
            and (
                _tests_world(branch.test)
                or any(
                    isinstance(n, ast.Call) and is_distributed_sampler(mod, n)
                    for n in ast.walk(branch)
                )
            )
        ),
    )


def _in_single_process_function(mod: Module, call: ast.Call) -> bool:
    """The loader is built in a function named for one process (``train_single_gpu``).

    A script with a DDP path keeps its one-GPU path beside it; a shuffling
    loader there is read by one process only (Mammary_Gland_Involution's
    ``train_single_gpu`` beside the ``Trainer`` its DDP script imports).
    """
    return any(
        isinstance(a, ast.FunctionDef | ast.AsyncFunctionDef) and asks_single_process(a.name)
        for a in mod.ancestors(call)
    )


def _called_only_when_single(mod: Module, call: ast.Call) -> bool:
    """The loader's function runs only on the one-process arm of a branch on the run's kind.

    SVDD2024's ``if args.distributed: main_distributed(args) else: main(args)``:
    the shuffling loader of ``main`` is read by one process. Every call of the
    function in the file must sit in the ``else`` of a test that holds once
    distributed (``args.distributed``, ``dist.is_initialized()``) or in the
    body of one that holds on one process (``not args.distributed``); a
    function another module of the tree calls is not followed.
    """
    func = mod.function_of(call)
    if func is None or mod.function_of(func) is not None:
        return False
    project = mod.cache.get("project")
    if isinstance(project, Project) and any(
        owner != mod.cache["module_name"]
        for owner, _ in project.call_sites(mod.cache["module_name"], func.name)
    ):
        return False
    sites = [c for c in mod.calls if isinstance(c.func, ast.Name) and c.func.id == func.name]
    return bool(sites) and all(_on_single_arm(mod, site) for site in sites)


def _on_single_arm(mod: Module, node: ast.AST) -> bool:
    child = node
    for ancestor in mod.ancestors(node):
        if isinstance(ancestor, ast.If):
            if child in ancestor.orelse and distributed_test(ancestor.test):
                return True
            if child in ancestor.body and single_process_test(ancestor.test):
                return True
        child = ancestor
    return False


def _one_batch_only(mod: Module, call: ast.Call) -> bool:
    """Every read of the loader is ``next(iter(loader))``: one batch, drawn once.

    A throwaway loader built to take a batch of samples for a picture reads no
    epoch of the data, so no rank reads the whole set.
    """
    names = set(target_names(mod, call))
    if not names:
        parent = mod.parents.get(call)
        return isinstance(parent, ast.Call) and tail(parent) == "iter" and _in_next(mod, parent)
    reads = [
        node
        for node in mod.nodes
        if isinstance(node, ast.Name | ast.Attribute)
        and isinstance(node.ctx, ast.Load)
        and dotted(node) in names
    ]
    return bool(reads) and all(
        isinstance(parent := mod.parents.get(node), ast.Call)
        and tail(parent) == "iter"
        and _in_next(mod, parent)
        for node in reads
    )


def _in_next(mod: Module, call: ast.Call) -> bool:
    parent = mod.parents.get(call)
    return isinstance(parent, ast.Call) and tail(parent) == "next"


def _other_arm_shards(mod: Module, branch: ast.If, child: ast.AST) -> bool:
    """The arm of ``branch`` that does not hold ``child`` builds a distributed sampler."""
    other = branch.orelse if child in branch.body else branch.body if child in branch.orelse else []
    return any(
        isinstance(node, ast.Call) and is_distributed_sampler(mod, node)
        for stmt in other
        for node in ast.walk(stmt)
    )


@rule(
    "FS103",
    "unsharded-loader",
    "a distributed script (process group, DDP, rank or world-size queries, a trainer "
    "base class such as SpeechBrain's Brain that shards only the loaders it builds, or an "
    "accelerate script a shipped line launches on several processes), or a "
    "module such a script imports or loads by name (import_module(f'tasks.{name}.expert')), "
    "builds DataLoader(shuffle=True) without a distributed sampler (also shuffle= read from "
    "a config, outside evaluation): every rank reads the whole dataset in its own order",
    "pass sampler=fairshard.DistributedSampler(dataset) (or PyTorch's) and drop shuffle=True",
    default=False,
)
def _unsharded_loader(mod: Module) -> Iterator[tuple[ast.AST, str]]:
    flow = flow_of(mod)
    found: list[tuple[ast.Call, bool]] = []
    hand: set[int] = set()
    by_caller: dict[int, tuple[Module, ast.Call]] = {}
    for call in mod.calls:
        if tail(call) not in LOADERS:
            continue
        # a flag read from a config is unknown, so maybe True; evaluation loaders aside
        evaluation = context_of(mod, call) == "eval"
        from_config = shuffle_from_config(call) and not evaluation
        by_hand = not evaluation and _reordered_by_hand(mod, call)
        sites: list[tuple[Module, ast.Call]] = []
        if not (shuffles(flow, call) or from_config or by_hand or evaluation):
            # shuffle= a parameter of a loader factory: the calls that pass True decide
            sites = [(m, s) for m, s in shuffling_sites(mod, call) if context_of(m, s) != "eval"]
            if not sites:
                continue
        elif not (shuffles(flow, call) or from_config or by_hand):
            continue
        if evaluation:
            continue  # every rank scoring the whole evaluation set: repeated work, no wrong count
        if _one_batch_only(mod, call):
            continue  # next(iter(loader)): a batch to look at (a snapshot, a plot), no epoch
        if _given(
            mod, call, argument(call, "sampler", 3) or spread_entry(mod, call, "sampler")
        ) or _given(mod, call, argument(call, "batch_sampler", 4)):
            continue
        if (
            _branches_on_world(mod, call)
            or _in_single_process_function(mod, call)
            or _called_only_when_single(mod, call)
            or spawning_parent(mod, call)
            or _called_only_before_spawn(mod, call)
        ):
            continue  # the single-process branch of a script that also runs distributed
        if _rebound_to_a_sharded_loader(mod, call):
            continue  # what a one-process run keeps; a distributed run builds another
        data = argument(call, "dataset", 0)
        if data is not None and cut_by_rank(mod, data):
            continue  # the data is this rank's share already: shuffling reorders a shard
        if data is not None and _collected_in_its_loop(mod, call, data):
            continue  # a buffer this rank filled (its rollouts): its own data, not a share
        if framework_shards(mod, call):
            continue  # Lightning Fabric / accelerate replace the sampler of what they prepare
        if lightning_shards(mod, call) or handed_to_lightning(mod, call):
            continue  # a Lightning hook's loader (or one handed to fit): the Trainer shards it
        unsharded = [(m, s) for m, s in sites if not _site_sharded(m, s)]
        if sites and not unsharded:
            continue  # every call that makes it shuffle hands it on to a framework that shards
        found.append((call, from_config))
        if unsharded:
            by_caller[id(call)] = unsharded[0]
        if by_hand and not shuffles(flow, call) and not from_config:
            hand.add(id(call))
    # the loaders first: the search of the tree for an importer is the costly part
    if not found:
        return
    accelerate = accelerate_launched(mod)
    helper = not (flow.distributed or accelerate) and _prepares_for_an_accelerate_script(mod)
    if helper:
        found = [(c, f) for c, f in found if _reached_from_an_accelerate_script(mod, c)]
        if not found:
            return
    elif not (flow.distributed or accelerate or _run_by_a_distributed_script(mod)):
        return
    elif not (flow.distributed or accelerate):
        runners = [m for m in importers(mod) if distributed_script(m) and not one_process_script(m)]
        found = [
            (c, f)
            for c, f in found
            if any(reached_from(m, mod, c) and not _reshards_loader_data(m) for m in runners)
        ]
    for call, from_config in found:
        if id(call) in hand:
            yield (
                call,
                (
                    "DataLoader over a dataset reordered by a random permutation of its "
                    "indices, without a distributed sampler, in a distributed script: every "
                    "rank reads the whole dataset; pass sampler=DistributedSampler(dataset) "
                    "(it shuffles) instead of reordering by hand"
                ),
            )
            continue
        flag = (
            f"shuffle={ast.unparse(argument(call, 'shuffle', 2) or call)}"
            if from_config and not shuffles(flow, call)
            else "shuffle=True"
        )
        if id(call) in by_caller:
            owner, site = by_caller[id(call)]
            given = ast.unparse(argument(call, "shuffle", 2) or call)
            flag = f"shuffle={given}, True from {_site_text(mod, owner, site)}"
        if helper:
            yield (
                call,
                (
                    f"DataLoader({flag}) built in a module that prepares loaders for an "
                    "accelerate script launched on several processes, but never passed to "
                    "accelerator.prepare itself (a generator around it, such as cycle(), "
                    "comes back unprepared): every rank reads the whole dataset; prepare "
                    "the loader first, then wrap it"
                ),
            )
            continue
        if accelerate and not flow.distributed:
            yield (
                call,
                (
                    f"DataLoader({flag}) never passed to accelerator.prepare in a script "
                    "a shipped line launches on several processes: every rank reads the "
                    "whole dataset; pass the loader to accelerator.prepare"
                ),
            )
            continue
        yield (
            call,
            (
                f"DataLoader({flag}) without a distributed sampler in a distributed "
                "script: every rank reads the whole dataset; pass "
                "sampler=DistributedSampler(dataset)"
            ),
        )


_CVD = "CUDA_VISIBLE_DEVICES"


def _is_environ(node: ast.AST) -> bool:
    return (dotted(node) or "").endswith("environ")


#: Launcher variables (SLURM, Open MPI, MVAPICH, PMI) and MPI calls that give a
#: process its own rank.
_PROCESS_VARIABLES = frozenset(
    {"SLURM_LOCALID", "OMPI_COMM_WORLD_LOCAL_RANK", "MV2_COMM_WORLD_LOCAL_RANK", "PMI_LOCAL_RANK"}
)
_PROCESS_CALLS = frozenset({"Get_rank", "local_rank", "get_local_rank"})


def _per_process(mod: Module, value: ast.AST | None) -> bool:
    """The value differs from process to process: a GPU chosen per process on purpose.

    ``os.environ["SLURM_LOCALID"]``, the MPI local rank, ``str(local_rank)``,
    ``f"{MPI.COMM_WORLD.Get_rank() % GPUS_PER_NODE}"``: a launcher started one
    process per GPU and each pins its own before CUDA starts, which is what the
    launch command would do. Only the same value for every process (a
    constant, a command-line list of GPUs) fights the launcher.
    """
    if value is None:
        return False
    flow = flow_of(mod)
    names = flow.rank_names_at(value) | flow.local_names
    if mentions_local_rank(value, names) or mentions_rank(value, names):
        return True
    return any(
        env_key(sub) in _PROCESS_VARIABLES
        or (isinstance(sub, ast.Call) and tail(sub) in _PROCESS_CALLS)
        for sub in ast.walk(value)
    )


def _hides_every_gpu(value: ast.AST | None) -> bool:
    """``"-1"`` or ``""``: no GPU at all, on purpose (a CPU run), not a pin."""
    return isinstance(value, ast.Constant) and str(value.value).strip() in ("", "-1")


def _one_gpu(value: ast.AST | None) -> bool:
    """A literal naming exactly one GPU (``"0"``, ``3``): every process would share it."""
    return isinstance(value, ast.Constant) and str(value.value).strip().isdigit()


def _picks_device_per_process(mod: Module) -> bool:
    """The script, or a module of its tree that imports it, calls ``torch.cuda.set_device``.

    A list of GPUs that is the same for every process is harmless when each
    process then picks its own device in it (``set_device(local_rank)``) and
    the list is set before CUDA starts; without such a pick every process
    computes on the first GPU of the list.
    """
    if _here_or_in_an_importer(mod, _picks_own_device):
        return True
    return any(_picks_own_device(m) for m in imported_modules(mod))


def _picks_own_device(mod: Module) -> bool:
    """``torch.cuda.set_device``, or a device named per process (``f"cuda:{rank}"``).

    OrientPlace2's trainers set one list of GPUs for every process, then put
    each process's models and tensors on ``cuda:{rank}`` and hand DDP
    ``device_ids=[rank]``: every process computes on its own GPU of the list
    without calling ``set_device``. The device has to read the rank
    (``cuda:{args.gpu}`` from a config is one GPU for all).
    """
    fixed = _constant_ranks(mod)
    if "set_device" in mod.identifiers:
        pins = [c for c in mod.calls if tail(c) == "set_device"]
        if (
            not fixed
            or not pins
            or not all(_reads_only(mod, c.args[0] if c.args else c, fixed) for c in pins)
        ):
            return True
    flow = flow_of(mod)
    for node in mod.nodes:
        part: ast.AST | None = None
        if isinstance(node, ast.JoinedStr) and _names_cuda(node):
            part = node
        elif isinstance(node, ast.BinOp) and _names_cuda(node.left):
            part = node.right
        elif isinstance(node, ast.Call):
            name = tail(node)
            if name == "format" and isinstance(node.func, ast.Attribute):
                part = node if _names_cuda(node.func.value) else None
            elif name == "device" and len(node.args) == 2 and _names_cuda(node.args[0]):
                part = node.args[1]
            elif name == "cuda" and node.args:
                part = node.args[0]
            ids = argument(node, "device_ids")
            if part is None and isinstance(ids, ast.List | ast.Tuple) and len(ids.elts) == 1:
                part = ids.elts[0]
        if part is not None and not _reads_only(mod, part, fixed):
            names = flow.rank_names_at(part) | flow.local_names
            if mentions_rank(part, names) or mentions_local_rank(part, names):
                return True
    return False


def _constant_ranks(mod: Module) -> frozenset[str]:
    """Module-level rank names bound once, to a number (``local_rank = 0``), never again.

    alpha_gan_from_scratch's ``ddp_train.py`` sets ``local_rank = 0`` under a
    ``CUDA_VISIBLE_DEVICES = '0,1'`` and pins ``cuda:{device_ids[local_rank]}``:
    every process of the launch takes the first GPU of the list.
    """
    return frozenset(
        name
        for name in module_constants(mod, int)
        if mentions_rank(ast.Name(id=name)) or mentions_local_rank(ast.Name(id=name))
    )


def _reads_only(mod: Module, value: ast.AST, fixed: frozenset[str]) -> bool:
    """The rank names ``value`` reads (through one name bound once) are all of ``fixed``."""
    if not fixed:
        return False
    if isinstance(value, ast.Name):
        values = [
            stmt.value
            for stmt in ast.walk(mod.tree)
            if isinstance(stmt, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == value.id for t in stmt.targets)
        ]
        if len(values) == 1:
            value = values[0]
    ranks = {
        n.id
        for n in ast.walk(value)
        if isinstance(n, ast.Name) and (mentions_rank(n) or mentions_local_rank(n))
    }
    return bool(ranks) and ranks <= fixed


def _names_cuda(node: ast.AST) -> bool:
    """A string literal (or an f-string's text) that starts a CUDA device name."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value.startswith("cuda")
    if isinstance(node, ast.JoinedStr) and node.values:
        return _names_cuda(node.values[0])
    return False


def _runs_as_several_processes(mod: Module) -> bool:
    """The script is one process of several: it, or a module of its tree that imports it.

    The linter's test of a distributed script (:func:`~.flow.distributed_script`:
    a process group, DDP, rank queries, a launcher's ``RANK``/``LOCAL_RANK``)
    holds for the file or for a script that imports it (a helper of the
    training script that pins the GPU). A single-process script (an
    evaluation entry point choosing its GPU from a config) is free to pin one,
    and so is a script that declares itself one process
    (``os.environ["WORLD_SIZE"] = "1"``, Effi's inference scripts).
    """
    if _declares_one_process(mod):
        return False
    others = importers(mod)
    script = any(isinstance(n, ast.If) and is_main_guard(n.test) for n in mod.tree.body)
    if distributed_script(mod) and (script or not others):
        return True  # a script run on several processes: its pin runs when it starts
    # a module: its pin runs when a distributed script imports it
    late = [other for other in others if distributed_script(other)]
    if not late and distributed_script(mod):
        return True
    return bool(late) and not all(_imported_after_cuda_starts(other, mod) for other in late)


def _imported_after_cuda_starts(importer: Module, mod: Module) -> bool:
    """Every import of ``mod`` in ``importer`` follows a ``torch.cuda.set_device`` before it.

    TemCoCo's ``train_dist.py`` calls ``torch.cuda.set_device(local_rank)`` and only
    then runs ``from utils import *``, whose ``CUDA_VISIBLE_DEVICES = "0"`` comes
    too late to change anything: each process keeps the GPU it picked.
    """
    name = str(mod.cache.get("module_name", "")).rpartition(".")[2]
    sites = [
        node
        for node in importer.nodes
        if (isinstance(node, ast.ImportFrom) and (node.module or "").rpartition(".")[2] == name)
        or (
            isinstance(node, ast.Import)
            and any(alias.name.rpartition(".")[2] == name for alias in node.names)
        )
    ]
    starts = [
        call
        for call in importer.calls
        if tail(call) == "set_device" and "cuda" in (importer.qualified(call.func) or "")
    ]
    return bool(sites) and all(
        any(
            importer.function_of(start) is importer.function_of(site) and start.lineno < site.lineno
            for start in starts
        )
        for site in sites
    )


def _declares_one_process(mod: Module) -> bool:
    """The module sets ``os.environ["WORLD_SIZE"]`` to ``"1"`` (or ``1``) itself."""
    return any(
        isinstance(node, ast.Assign)
        and isinstance(node.value, ast.Constant)
        and str(node.value.value).strip() == "1"
        and any(env_key(t) == "WORLD_SIZE" for t in node.targets)
        for node in mod.nodes
    )


#: Packages that build, wrap or re-shard the loaders of the code they drive
#: (Lightning's Trainer, accelerate, HF Trainer, DeepSpeed's ``training_data``,
#: ignite's ``auto_dataloader``, ...): a loader near them is theirs to shard.
_SHARDING_FRAMEWORKS = frozenset(
    {
        "pytorch_lightning",
        "lightning",
        "lightning_fabric",
        "accelerate",
        "transformers",
        "deepspeed",
        "composer",
        "ignite",
        "mmengine",
        "mmcv",
        "detectron2",
        "fairseq",
        "catalyst",
        "ray",
    }
)


#: Calls that reorder a list of indices in place, or return a random order.
_IN_PLACE_SHUFFLES = frozenset({"shuffle"})
_PERMUTATIONS = frozenset({"randperm", "permutation"})


def _reordered_by_hand(mod: Module, call: ast.Call) -> bool:
    """The loader's dataset is the whole dataset indexed by a random permutation.

    STAR's ``shuffle(shuffled_list)`` then ``train_ds = train_ds[shuffled_list]``
    and ``DataLoader(train_ds, batch_size=...)`` with no sampler: the loader
    does not shuffle, the order was drawn by hand, and every rank reads every
    sample. A permutation cut before use (``idx[:n]``) is a split (FS110's).
    """
    data = argument(call, "dataset", 0)
    scope = mod.function_of(call) or mod.tree
    if not isinstance(data, ast.Name):
        return False
    for node in ast.walk(scope):
        if not (
            isinstance(node, ast.Assign)
            and node.lineno < call.lineno
            and any(isinstance(t, ast.Name) and t.id == data.id for t in node.targets)
        ):
            continue
        value = node.value
        index: ast.expr | None = None
        if isinstance(value, ast.Subscript):
            index = value.slice
        elif isinstance(value, ast.Call) and tail(value) == "Subset" and len(value.args) == 2:
            index = value.args[1]
        if index is not None and _random_order(mod, scope, index, node.lineno):
            return True
    return False


def _random_order(mod: Module, scope: ast.AST, index: ast.expr, before: int) -> bool:
    """``index`` is a random permutation: ``randperm(n)``, or a list shuffled in place."""
    if isinstance(index, ast.Call):
        return tail(index) in _PERMUTATIONS
    if not isinstance(index, ast.Name):
        return False
    for node in ast.walk(scope):
        if getattr(node, "lineno", before) >= before:
            continue
        if (
            isinstance(node, ast.Call)
            and tail(node) in _IN_PLACE_SHUFFLES
            and node.args
            and isinstance(node.args[0], ast.Name)
            and node.args[0].id == index.id
        ):
            return True
        if (
            isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Call)
            and tail(node.value) in _PERMUTATIONS
            and any(isinstance(t, ast.Name) and t.id == index.id for t in node.targets)
        ):
            return True
    return False


#: Methods that put rows in a buffer or empty it.
_FILLS = frozenset({"append", "extend", "add", "push", "insert", "put", "store", "clear", "reset"})


def _collected_in_its_loop(mod: Module, call: ast.Call, data: ast.AST) -> bool:
    """The loader is built inside a loop that fills its dataset (a replay buffer).

    re-grpo's ``replay_buffer.clear()`` then ``replay_buffer.append(experience)``
    for each rollout this process generated, then ``DataLoader(replay_buffer,
    shuffle=True)`` inside the same step: the buffer holds only what this rank
    made, so shuffling it is no unsharded read of a shared dataset.
    """
    name = dotted(data)
    loop = mod.loop_of(call)
    if name is None or loop is None:
        return False
    for node in ast.walk(loop):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in _FILLS
            and dotted(node.func.value) == name
        ):
            return True
    return False


def _prepares_for_an_accelerate_script(mod: Module) -> bool:
    """A module with no launch of its own that prepares loaders for an accelerate script.

    calico-confident-al's ``DataModule.setup(accelerator=...)`` builds the
    loaders and hands them to the accelerator it is given; ``train_jempp.py``
    builds ``Accelerator()`` and is launched on several processes. What the
    module leaves out of ``prepare`` keeps its own sampler in every process.
    Only a module that calls ``prepare`` itself counts: one that returns its
    loaders leaves the preparing to its callers, read at their calls.
    """
    return any(
        tail(c) == "prepare" and isinstance(c.func, ast.Attribute) for c in mod.calls
    ) and any(accelerate_launched(m, preparing=mod) for m in importers(mod))


def _reached_from_an_accelerate_script(mod: Module, call: ast.Call) -> bool:
    """An accelerate script launched on several processes that imports ``mod`` can run ``call``."""
    return any(
        accelerate_launched(m, preparing=mod) and reached_from(m, mod, call) for m in importers(mod)
    )


def _site_sharded(mod: Module, site: ast.Call) -> bool:
    """The loader a factory's call ``site`` builds is handed to a framework that shards it."""
    return (
        framework_shards(mod, site) or lightning_shards(mod, site) or handed_to_lightning(mod, site)
    )


def _site_text(mod: Module, owner: Module, site: ast.Call) -> str:
    """``the call at line 12`` (or ``at data.py:12`` in another file) that makes it shuffle."""
    where = f"line {site.lineno}"
    if owner is not mod:
        project = owner.cache.get("project")
        path = project.tree_path(owner) if isinstance(project, Project) else None
        if path is not None:
            where = f"{path.as_posix()}:{site.lineno}"
    return f"the call at {where}"


def _run_by_a_distributed_script(mod: Module) -> bool:
    """A module with no distributed code of its own that a distributed script imports.

    The task modules a runner loads by name (``import_module(f"pkg.{task}.expert")``)
    or imports build their loaders for that runner's processes, so a
    ``DataLoader(shuffle=True)`` there is read whole by every rank. Left alone
    where the module or the script uses a package that shards loaders itself.
    """
    if _may_shard_its_loaders(mod):
        return False
    return _here_or_in_an_importer(
        mod, lambda m: distributed_script(m) and not _may_shard_its_loaders(m)
    )


def _may_shard_its_loaders(mod: Module) -> bool:
    """``mod`` uses a package that may shard the loaders it builds (``_SHARDING_FRAMEWORKS``).

    transformers counts only where the module names a trainer
    (``Trainer``, ``Seq2SeqTrainer``, ``TrainingArguments``): 605final's
    ``dataload.py`` imports it for a GPT-2 tokenizer and hands its loaders
    to a hand-written DDP loop, which shards nothing.
    """
    if mod.imports_any(_SHARDING_FRAMEWORKS - {"transformers"}):
        return True
    return mod.imports_any(frozenset({"transformers"})) and any(
        name.endswith("Trainer") or name.endswith("TrainingArguments") for name in mod.identifiers
    )


def _rebound_to_a_sharded_loader(mod: Module, call: ast.Call) -> bool:
    """The loader's name is bound again later in its function, over a distributed sampler.

    DFC2025's ``train_loader = DataLoader(trainset, shuffle=True)`` then ``if
    torch.cuda.device_count() > 1 and args.use_ddp == 1: train_loader =
    DataLoader(trainset, sampler=DistributedSampler(trainset))``: the condition
    that starts the process group replaces the loader; the shuffling one is
    what a one-process run keeps.
    """
    scope = mod.function_of(call) or mod.tree
    names = set(target_names(mod, call))
    return any(
        (
            tail(loader) in LOADERS
            and any(
                _shards(mod, scope, argument(loader, key, position))
                for key, position in (("sampler", 3), ("batch_sampler", 4))
            )
        )
        for loader in rebound_later(mod, call)
    ) or any(
        _rebuilt_over_a_distributed_sampler(mod, later.value, names)
        for later in ast.walk(scope)
        if isinstance(later, ast.Assign)
        and isinstance(later.value, ast.Call)
        and later.lineno > call.lineno
        and names & {dotted(e) for t in later.targets for e in ast.walk(t)}
    )


def _rebuilt_over_a_distributed_sampler(mod: Module, call: ast.Call, names: set[str]) -> bool:
    """``call`` hands the loader to a function of the file that rebuilds it sharded.

    SpikeReg's ``train_loader, val_loader = _wrap_loaders_for_distributed(train_loader,
    val_loader, ...)``, whose nested ``rebuild`` makes a ``DataLoader`` over a
    ``DistributedSampler(loader.dataset, ...)`` when the world has several ranks.
    """
    if not any(dotted(a) in names for a in call.args):
        return False
    for func in mod.functions.get(tail(call), []):
        inner = [n for n in ast.walk(func) if isinstance(n, ast.Call)]
        if any(is_distributed_sampler(mod, c) for c in inner) and any(
            tail(c) in LOADERS for c in inner
        ):
            return True
    return False


def _shards(mod: Module, scope: ast.AST, sampler: ast.expr | None) -> bool:
    """``sampler`` is a distributed sampler: built right there or bound to one in ``scope``."""
    if isinstance(sampler, ast.Call):
        return is_distributed_sampler(mod, sampler)
    name = dotted(sampler) if sampler is not None else None
    return any(is_distributed_sampler(mod, c) for c in calls_bound_to(scope, name))


def _reshards_loader_data(runner: Module) -> bool:
    """The runner shards the data of a loader it was handed: ``DistributedSampler(loader.dataset)``.

    IQA's ``main.py`` takes ``dataloaders['train'].dataset`` from the helper
    module's shuffling loader and, when distributed, builds a new loader over
    a shuffling ``DistributedSampler`` of it; the helper's loader is what a
    one-process run keeps. The dataset is read as ``.dataset`` of something,
    there or through a name bound to it in the same function.
    """
    for call in runner.calls:
        if not is_distributed_sampler(runner, call) or is_constant(
            argument(call, "shuffle", 3), False
        ):
            continue
        data = argument(call, "dataset", 0)
        if isinstance(data, ast.Name):
            scope = runner.function_of(call) or runner.tree
            data = next(
                (
                    node.value
                    for node in ast.walk(scope)
                    if isinstance(node, ast.Assign)
                    and any(isinstance(t, ast.Name) and t.id == data.id for t in node.targets)
                ),
                data,
            )
        if isinstance(data, ast.Attribute) and data.attr == "dataset":
            return True
    return False


def _called_only_before_spawn(mod: Module, call: ast.Call) -> bool:
    """Every call in the tree of the loader's function runs in the parent of a spawning script.

    data_diet_distributed's ``get_scores_and_prune`` builds a shuffling loader
    for its one-process scoring; ``ddp.py`` calls it in ``__main__`` and only
    then ``mp.spawn(train, ...)``: no rank runs the function.
    """
    project = mod.cache.get("project")
    return isinstance(project, Project) and _runs_in_parent(
        project, mod, call, 3, helper=not distributed_script(mod)
    )


def _runs_in_parent(
    project: Project, mod: Module, node: ast.AST, depth: int, helper: bool, site: bool = False
) -> bool:
    """``node`` runs only in the parent of a spawning script (or a one-process script).

    Beside the spawn, or in a top-level function every call of which does
    (``preprocess()`` in ``__main__``, which calls the scorer), up to ``depth``
    calls away. For a helper of a module with no distributed code of its own,
    a call in an entry script with none either (the same scorer run by a
    one-process training script) runs on no rank.
    """
    if spawning_parent(mod, node):
        return True
    if (
        helper
        and site
        and not distributed_script(mod)
        and not importers(mod)
        and not accelerate_launched(mod)
    ):
        return True  # a helper called by a one-process entry script of the tree: no rank
    func = mod.function_of(node)
    if depth == 0 or func is None or isinstance(mod.parents.get(func), ast.ClassDef):
        return False  # a method: its calls go through objects the tree does not resolve
    sites = project.call_sites(mod.cache["module_name"], func.name)
    return bool(sites) and all(
        _runs_in_parent(project, project.modules[owner], call, depth - 1, helper, site=True)
        for owner, call in sites
    )


def _here_or_in_an_importer(mod: Module, test: Callable[[Module], bool]) -> bool:
    """``test`` holds for ``mod`` or for a module of its linted tree that imports it."""
    return test(mod) or any(test(other) for other in importers(mod))


def _fights_the_launcher(mod: Module, value: ast.AST | None) -> bool:
    """A same-for-every-process ``CUDA_VISIBLE_DEVICES`` value that goes wrong.

    NOTE: a pin is reported when it does not depend on the process and
    cannot work: one GPU for every process of a distributed script, or a
    list with no per-process ``set_device`` to choose within it. ``"-1"``
    (no GPU, a CPU run) and per-process values are left alone.
    """
    if _hides_every_gpu(value) or _per_process(mod, value):
        return False
    if _one_gpu(value):
        return True
    return not _picks_device_per_process(mod)


@rule(
    "FS106",
    "cuda-visible-devices",
    "a distributed script (process group, DDP, rank queries, a launcher's RANK or LOCAL_RANK; "
    "or a module such a script imports) sets os.environ['CUDA_VISIBLE_DEVICES'] to the same "
    "value in every process "
    "where that cannot work: one GPU for every process (ranks 1 and up cannot see theirs), or "
    "a list of GPUs with no torch.cuda.set_device (nor a device that reads the rank, "
    "f'cuda:{rank}') to pick each process's own (every process computes on the first); "
    "it is also ignored once CUDA is initialized. A per-process pin "
    "(SLURM_LOCALID, the MPI local rank, LOCAL_RANK) and '-1' (no GPU: a CPU run) are left alone",
    "set CUDA_VISIBLE_DEVICES in the launch command (CUDA_VISIBLE_DEVICES=0,1 torchrun ...) "
    "and call torch.cuda.set_device(local_rank) in the script",
    default=False,
)
def _cuda_visible_devices(mod: Module) -> Iterator[tuple[ast.AST, str]]:
    message = (
        "CUDA_VISIBLE_DEVICES is set alike in every process, to one GPU or without a "
        "per-process torch.cuda.set_device (or a cuda:{rank} device): the processes share "
        "a GPU (and the setting is ignored once CUDA is initialized); set it on the command "
        "line and use torch.cuda.set_device(local_rank)"
    )
    if not _runs_as_several_processes(mod):
        return  # one process: pinning its GPU from a config or a constant is its own choice
    for node in mod.nodes:
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AugAssign | ast.AnnAssign):
            targets = [node.target]
        for target in targets:
            if (
                isinstance(target, ast.Subscript)
                and _is_environ(target.value)
                and isinstance(target.slice, ast.Constant)
                and target.slice.value == _CVD
                and _fights_the_launcher(mod, getattr(node, "value", None))
                and not single_process_branch(mod, node)
            ):
                yield node, message
        if isinstance(node, ast.Call):
            name = dotted(node.func) or ""
            first = node.args[0] if node.args else None
            keyed = isinstance(first, ast.Constant) and first.value == _CVD
            setter = name.endswith(("environ.setdefault", "putenv")) and keyed
            updater = name.endswith("environ.update") and (
                any(k.arg == _CVD for k in node.keywords)
                or (
                    isinstance(first, ast.Dict)
                    and any(isinstance(k, ast.Constant) and k.value == _CVD for k in first.keys)
                )
            )
            if setter and not _fights_the_launcher(
                mod, node.args[1] if len(node.args) > 1 else None
            ):
                continue
            if updater and any(
                k.arg == _CVD and not _fights_the_launcher(mod, k.value) for k in node.keywords
            ):
                continue
            if (setter or updater) and not single_process_branch(mod, node):
                yield node, message
