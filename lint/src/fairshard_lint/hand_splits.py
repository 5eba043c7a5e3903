"""Random splits written by hand: a permutation drawn per process, sliced into a ``Subset``.

``random_split`` is one spelling of a random split; code as often writes it
out: ``index = torch.randperm(len(train_set))[length:]`` then
``Subset(train_set, index)``, or ``np.random.permutation(n)`` sliced into
train and validation indices, or ``random.shuffle(ids)`` before
``Subset(dataset, ids[:k])``, or ``random.shuffle(paths)`` cut into
``paths[:k]`` and ``paths[k:]`` for the training and validation datasets.
Where every rank runs that code without a seed shared by all ranks, each
rank keeps a different subset: the distributed sampler then splits several
different subsets, shares overlap, and some samples are never read (or
validation leaks into training on another rank).

Where it runs on every rank: a distributed script; a module such a script
of the tree imports; or a hook, a method of a class of the tree that a
distributed module calls on an object it was handed
(``task.preprocess(train_set, valid_set, test_set)`` in an engine's
``__init__``). A same-on-every-rank seed (``torch.manual_seed(seed)``,
``np.random.seed(0)``, ``seed_everything``, a project's ``set_seed(args.seed)``)
in the module before the split, or anywhere in a distributed module of the
tree, is taken to fix the split, since the linter cannot order calls across
files.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from .broken_imports import imports_a_missing_module
from .flow import distributed_script, flow_of
from .importer_reach import reached_from
from .lightning_eval import lightning_ranks
from .lightning_hooks import trainer_method
from .lightning_launch import in_lightning_hook, lightning_runs_on_every_rank
from .names import (
    Module,
    argument,
    dotted,
    is_constant,
    mentions_rank,
    source_position,
    tail,
)
from .option_branches import skipped_option_branch
from .options import UNKNOWN, shipped_default
from .prepared import trainer_launched
from .project import Project, entry_scripts, importers

__all__ = [
    "drawn_once_per_node",
    "generator_family",
    "hand_splits",
    "ranks_run",
    "run_by_unseeded_ranks",
    "seeded_before",
    "seeded_by_every_entry",
    "seeds_own_generator",
    "unset_option",
]

#: Draws of a permutation (or an in-place shuffle) from the process's global generator.
_PERMUTATIONS = frozenset(
    {
        "torch.randperm",
        "numpy.random.permutation",
        "numpy.random.shuffle",
        "random.shuffle",
        "random.sample",
        "numpy.random.choice",
    }
)
#: Of those, the ones that shuffle their first argument in place.
_IN_PLACE = frozenset({"numpy.random.shuffle", "random.shuffle"})
#: Of those, the ones whose draw is a part already (a sample without replacement).
_PARTS = frozenset({"random.sample", "numpy.random.choice"})


def _permutation(mod: Module, call: ast.Call) -> str | None:
    """The qualified name of ``call`` if it draws from the global generator, else None."""
    name = mod.qualified(call.func)
    if name not in _PERMUTATIONS:
        return None
    if name == "numpy.random.choice" and not is_constant(argument(call, "replace", 2), False):
        return None  # a draw with replacement is a bootstrap, not a split
    generator = argument(call, "generator")
    return name if generator is None or is_constant(generator, None) else None


#: The global generator a qualified draw or seed belongs to (by its package).
_FAMILIES = (("torch.", "torch"), ("numpy.", "numpy"), ("random.", "random"))


def generator_family(mod: Module, call: ast.Call) -> str | None:
    """``torch``, ``numpy`` or ``random`` for a call of that package; ``None`` for others."""
    name = mod.qualified(call.func) or ""
    return next((family for prefix, family in _FAMILIES if name.startswith(prefix)), None)


def _seeds(mod: Module, call: ast.Call, rank_names: set[str], family: str | None = None) -> bool:
    """A call that seeds the global generators (``family``'s, when given) alike on every rank.

    ``torch.manual_seed(seed)``, ``np.random.seed(0)``, ``seed_everything``,
    and a project's own ``set_seed(args.seed)`` / ``fix_seed`` / ``init_seeds``:
    a call named for a seed with an argument that reads no rank. A package's
    own seed fixes that package's generator only: ``np.random.seed`` and
    ``torch.manual_seed`` leave Python's ``random`` unseeded (DFC2025's
    ``random.shuffle`` split); a project's or a framework's seeding function
    is taken to seed them all.
    """
    name = tail(call).lower()
    if "seed" not in name or name in {"seed_worker", "worker_init_fn"}:
        return False
    if seeds_own_generator(mod, call):
        return False  # a generator object's seed: the global generator stays unseeded
    if family is not None and generator_family(mod, call) not in (None, family):
        return False
    if skipped_option_branch(mod, call):
        return False  # under a test on an option every shipped run fails
    return bool(call.args) and not any(mentions_rank(a, rank_names) for a in call.args)


#: torch's seeders of its global generator; any other ``manual_seed`` is an object's own.
_TORCH_GLOBAL_SEEDS = frozenset({"torch.manual_seed", "torch.random.manual_seed"})


def seeds_own_generator(mod: Module, call: ast.Call) -> bool:
    """``call`` is a ``manual_seed`` of a generator object (or the GPU's), not torch's global one.

    trafficgen's ``seed = torch.Generator().manual_seed(42)`` before a
    ``random_split`` that is never handed it: the split still draws from
    torch's global generator, unseeded. Only ``torch.manual_seed`` (and
    ``torch.random.manual_seed``) seed that one.
    """
    return tail(call) == "manual_seed" and mod.qualified(call.func) not in _TORCH_GLOBAL_SEEDS


def unset_option(mod: Module, option: str) -> bool:
    """Every shipped run leaves ``mod``'s option ``option`` at a false default (``None``)."""
    default = shipped_default(mod, option)
    return default is not UNKNOWN and isinstance(default, ast.Constant) and not default.value


def seeded_before(mod: Module, node: ast.AST, depth: int = 5, family: str | None = None) -> bool:
    """A same-on-every-rank seed of the global generators runs before ``node``.

    Before it in its own function or at module level, or before every call of
    its function in the file (up to ``depth`` levels of callers):
    ``def local_dataset(...)`` splitting above ``main``, which calls
    ``set_seed(args.seed)`` and then ``make_data_module(...)``, which calls
    ``local_dataset``, splits after the seed though the seed comes later in the
    text. A seed in another function earlier in the text does not count: it
    may run after the draw (``main()`` drawing, then seeding, called at the end
    of the file) or never. A Lightning hook of the file's own class
    (``setup``) is called by the trainer: the file's ``trainer.fit(...)`` (and
    ``validate``/``test``/``predict``) calls are its call sites.
    """
    if depth == 0:
        return False
    flow = flow_of(mod)
    func = mod.function_of(node)
    at = source_position(node)
    if any(
        mod.function_of(c) in (func, None)
        and _seeds(mod, c, flow.rank_names_at(c), family)
        and source_position(c) < at
        for c in mod.calls
    ):
        return True
    if func is None:
        return False
    sites = [c for c in mod.calls if tail(c) == func.name and mod.function_of(c) is not func]
    if not sites and in_lightning_hook(mod, node):
        # Lightning calls the hook from the trainer's runs: those are its call sites
        # (classification-pytorch seeds in its __main__ block, then fits)
        sites = [c for c in mod.calls if trainer_method(c) in _HOOK_RUNS]
    return bool(sites) and all(seeded_before(mod, c, depth - 1, family) for c in sites)


#: Trainer calls that run a module's hooks (``setup`` and the loader hooks).
_HOOK_RUNS = frozenset({"fit", "validate", "test", "predict"})


def seeded_by_every_entry(mod: Module, family: str | None = None) -> bool:
    """Every script that imports ``mod`` (through any chain) seeds ``family``'s generator alike.

    CMC_Mol's ``utils.split_dataset`` calls ``random_split`` with no
    generator; the module uses ``torch.distributed`` itself, so it reads as a
    distributed script, but it runs only inside its importers, and each of
    them (``pretrain_lightning.py``, ``ft_lightning.py``,
    ``inference_lightning.py``) calls ``pl.seed_everything(args.seed)``: every
    rank draws the same split. As for the helpers of
    :func:`run_by_unseeded_ranks`, a seed anywhere in such a script is taken
    to run before the split (calls are not ordered across files); a seed that
    reads the rank does not count, and a module nothing imports has no entry.
    """
    entries = entry_scripts(mod)
    return bool(entries) and all(_seeded_anywhere(e, family) for e in entries)


def _seeded_anywhere(mod: Module, family: str | None) -> bool:
    flow = flow_of(mod)
    return any(_seeds(mod, c, flow.rank_names_at(c), family) for c in mod.calls)


def _tainted(func: ast.AST, mod: Module, draw: ast.Call) -> set[str]:
    """Names in ``func`` that hold the drawn permutation or a part of it, in source order."""
    names: set[str] = set()
    if mod.qualified(draw.func) in _IN_PLACE and draw.args:
        shuffled = dotted(draw.args[0])
        if shuffled:
            names.add(shuffled)
    for node in ast.walk(func):
        if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
            value = node.value
            if value is draw or _reads(value, names) or _contains(value, draw):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    for element in ast.walk(target):
                        if isinstance(element, ast.Name | ast.Attribute) and dotted(element):
                            names.add(dotted(element) or "")
    return names


def _contains(tree: ast.AST, node: ast.AST) -> bool:
    return any(child is node for child in ast.walk(tree))


def _reads(tree: ast.AST, names: set[str]) -> bool:
    return any(
        isinstance(node, ast.Name | ast.Attribute) and dotted(node) in names
        for node in ast.walk(tree)
    )


def _sliced(tree: ast.AST) -> bool:
    return any(
        isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice)
        for node in ast.walk(tree)
    )


def _split_subset(mod: Module, func: ast.AST, draw: ast.Call) -> ast.Call | None:
    """The ``Subset(dataset, part)`` whose ``part`` is a slice of ``draw``'s permutation."""
    names = _tainted(func, mod, draw)
    drawn_part = mod.qualified(draw.func) in _PARTS  # a part already: no slice needed
    sliced: set[str] = {
        dotted(element) or ""
        for node in ast.walk(func)
        if isinstance(node, ast.Assign)
        and _sliced(node.value)
        and _reads_or_is(node.value, draw, names)
        for target in node.targets
        for element in ast.walk(target)
        if isinstance(element, ast.Name | ast.Attribute)
    }
    flow = flow_of(mod)
    for node in ast.walk(func):
        if not isinstance(node, ast.Call) or tail(node) != "Subset":
            continue
        part = argument(node, "indices", 1)
        if part is None or mentions_rank(part, flow.rank_names_at(node)):
            continue
        if not _reads_or_is(part, draw, names):
            continue
        if drawn_part or _sliced(part) or _reads(part, sliced):
            return node
    return None


def _complementary_cut(mod: Module, func: ast.AST, draw: ast.Call) -> ast.Subscript | None:
    """``part[:k]`` of the drawn permutation where ``part[k:]`` is cut too: a split in two.

    DFC2025's ``random.shuffle(img_pths)`` then ``train_pths = img_pths[:split_idx]``
    and ``val_pths = img_pths[split_idx:]`` handed to its own dataset class: no
    ``Subset``, the two complementary slices of the shuffled list are the split.
    A slice alone (the first ``k`` shuffled items, a sample) is not.
    """
    names = _tainted(func, mod, draw)
    heads: dict[str, ast.Subscript] = {}
    tails: set[str] = set()
    after = source_position(draw)
    for assign in ast.walk(func):
        # each part bound to a name of its own, after the draw (a split, not a remainder
        # cut off inside an expression)
        if not isinstance(assign, ast.Assign) or source_position(assign) <= after:
            continue
        node = assign.value
        if not (isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice)):
            continue
        if not _reads_or_is(node.value, draw, names) or node.slice.step is not None:
            continue
        lower, upper = node.slice.lower, node.slice.upper
        if lower is None and upper is not None:
            heads.setdefault(ast.dump(upper), node)
        elif upper is None and lower is not None:
            tails.add(ast.dump(lower))
    cuts = [node for key, node in heads.items() if key in tails]
    if cuts:
        return min(cuts, key=source_position)
    return _fold_and_rest(func, draw, names)


def _fold_and_rest(func: ast.AST, draw: ast.Call, names: set[str]) -> ast.Subscript | None:
    """A fold ``part[i*k:(i+1)*k]`` of the drawn order and the rest kept by a comprehension.

    delivr_train's ``shuffle(input_list)``, then for each fold
    ``small = input_list[i*size:(i+1)*size]`` and
    ``big = [x for x in input_list if not x in small]``: a k-fold split by hand.
    """
    after = source_position(draw)
    folds: dict[str, ast.Subscript] = {}
    for assign in ast.walk(func):
        if not isinstance(assign, ast.Assign) or source_position(assign) <= after:
            continue
        node = assign.value
        if (
            isinstance(node, ast.Subscript)
            and isinstance(node.slice, ast.Slice)
            and node.slice.lower is not None
            and node.slice.upper is not None
            and node.slice.step is None
            and _reads_or_is(node.value, draw, names)
        ):
            for target in assign.targets:
                if isinstance(target, ast.Name):
                    folds[target.id] = node
    for comp in ast.walk(func):
        if not isinstance(comp, ast.ListComp | ast.GeneratorExp | ast.SetComp):
            continue
        for generator in comp.generators:
            if not _reads_or_is(generator.iter, draw, names):
                continue
            for test in generator.ifs:
                for compare in ast.walk(test):
                    if (
                        isinstance(compare, ast.Compare)
                        and len(compare.ops) == 1
                        and isinstance(compare.ops[0], ast.In | ast.NotIn)
                        and isinstance(compare.comparators[0], ast.Name)
                        and compare.comparators[0].id in folds
                    ):
                        return folds[compare.comparators[0].id]
    return None


def _reads_or_is(tree: ast.AST, draw: ast.Call, names: set[str]) -> bool:
    return _contains(tree, draw) or _reads(tree, names)


def _hook_owners(mod: Module, project: Project | None, func: ast.AST) -> list[Module]:
    """Distributed modules of the tree that call ``func`` as a hook (``task.preprocess(...)``)."""
    if project is None or not isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef):
        return []
    if not isinstance(mod.parents.get(func), ast.ClassDef):
        return []
    owners = []
    for owner, call in project.calls_named(func.name):
        other = project.modules[owner]
        receiver = call.func.value if isinstance(call.func, ast.Attribute) else None
        if receiver is None or dotted(receiver) in {"self", "cls", "super()"}:
            continue
        if isinstance(receiver, ast.Call) and tail(receiver) == "super":
            continue
        if other is not mod and distributed_script(other):
            owners.append(other)
    return owners


def _per_item(mod: Module, func: ast.AST) -> bool:
    """``func`` is a dataset's ``__getitem__``, or a method of its class that it calls.

    A draw there is made for each item: ``random.sample`` of the time offsets
    of one sample, sliced into its input frames and its target frames. Each
    call sees one item, so nothing of the dataset is split between ranks.
    """
    owner = mod.parents.get(func)
    if not isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef) or not isinstance(
        owner, ast.ClassDef
    ):
        return False
    methods = {
        n.name: n for n in owner.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
    }
    reached: set[str] = set()
    todo: list[str] = [name for name in ("__getitem__", "__getitems__") if name in methods]
    while todo:
        name = todo.pop()
        if name in reached:
            continue
        reached.add(name)
        for node in ast.walk(methods[name]):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and dotted(node.func.value) == "self"
                and node.func.attr in methods
            ):
                todo.append(node.func.attr)
    return func.name in reached


def hand_splits(mod: Module) -> Iterator[tuple[ast.expr, ast.Call]]:
    """``(part, draw)`` pairs: a split by hand, from an unseeded permutation, on every rank.

    ``part`` is the ``Subset`` the permutation is sliced into, or the first of
    two complementary slices of it.
    """
    project: Project | None = mod.cache.get("project")
    for draw in mod.calls:
        if _permutation(mod, draw) is None or drawn_once_per_node(mod, draw):
            continue
        func = mod.function_of(draw) or mod.tree
        if _per_item(mod, func):
            continue
        subset: ast.expr | None = _split_subset(mod, func, draw)
        if subset is None:
            subset = _complementary_cut(mod, func, draw)
        family = generator_family(mod, draw)
        if subset is None or seeded_before(mod, draw, family=family):
            continue
        if ranks_run(mod, mod, draw):
            yield subset, draw
            continue
        runners = _hook_owners(mod, project, func) or [
            m for m in importers(mod) if ranks_run(m, mod, draw)
        ]
        if runners and not any(_seeded_anywhere(r, family) for r in runners):
            yield subset, draw


def ranks_run(runner: Module, owner: Module, node: ast.AST) -> bool:
    """Every process of ``runner``'s distributed run executes ``node`` of ``owner``.

    ``runner`` is a distributed script (see ``flow.distributed_script``), a
    script a shipped line launches on several processes that trains with
    transformers' or trl's ``Trainer`` (see ``prepared.trainer_launched``), or
    a script whose Lightning ``Trainer`` may take several devices where
    Lightning runs ``node`` in each process (see ``lightning_launch``).
    """
    return (
        distributed_script(runner)
        or trainer_launched(runner)
        or lightning_runs_on_every_rank(runner, owner, node)
    )


def _runs_ranks(mod: Module) -> bool:
    """Some line of ``mod`` runs in several processes (a distributed, Lightning, Trainer script)."""
    return distributed_script(mod) or lightning_ranks(mod) or trainer_launched(mod)


def drawn_once_per_node(mod: Module, node: ast.AST) -> bool:
    """``node`` sits in a class's ``prepare_data``: Lightning runs it in one process per node.

    A split drawn there (and written to disk for ``setup`` to read) is the
    same for every rank of a machine; ``setup`` runs in every process.
    """
    func = mod.function_of(node)
    return (
        isinstance(func, ast.FunctionDef)
        and func.name == "prepare_data"
        and isinstance(mod.parents.get(func), ast.ClassDef)
    )


def run_by_unseeded_ranks(
    mod: Module, family: str | None = None, node: ast.AST | None = None
) -> bool:
    """``mod`` is a helper that distributed scripts of the tree import, none seeding alike.

    traj_token's ``data_loader.py`` splits with ``random_split`` in a builder
    its distributed finetuning scripts call: every rank runs the split, and no
    seed (``family``'s generator, or any where ``None``) is set in those
    scripts or before the split in the helper. With ``node``, the importers
    must run that line in every process (a Lightning trainer that spawns
    runs a data module's ``setup`` in each, not the helpers its script
    calls); without it, any line of ``mod``.
    """
    if _runs_ranks(mod):
        return False
    # a script that stops at an import of its own tree runs nothing (ScoreVAE's train_ddp)
    runners = [
        m
        for m in importers(mod)
        if (ranks_run(m, mod, node) if node is not None else _runs_ranks(m))
        and not imports_a_missing_module(m)
        # a distributed script runs what it takes of the helper, not the helper's own
        # __main__ use (Lightning's hooks are called by its trainer: ranks_run reads those)
        and (
            node is None
            or not (distributed_script(m) or trainer_launched(m))
            or reached_from(m, mod, node)
        )
    ]
    return bool(runners) and not any(_seeded_anywhere(r, family) for r in runners)
