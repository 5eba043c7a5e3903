"""Lint rules about samplers and seeds: epochs, shuffling, seeding and RNG.

Rules FS101, FS104 and FS105: how a script drives its samplers
(``set_epoch`` in the epoch loop, one seed for every rank, private
generators). Each rule reads the syntax tree
(never runs the script) and yields ``(node, message)`` pairs.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from .accelerate_epochs import lost_batch_sampler_epochs
from .branches import single_process_branch
from .cycles import imported_cycles
from .data_samplers import is_data_sampler_class
from .flow import (
    LOADERS,
    distributed_script,
    flow_of,
    is_distributed_sampler,
    needs_set_epoch,
    shuffles,
)
from .lightning_hooks import tree_modules
from .loops import fixed_setting, unsynced_loops
from .names import (
    Module,
    argument,
    calls,
    dotted,
    is_constant,
    mentions_rank,
    name_words,
    source_position,
    tail,
)
from .prepared import framework_shards
from .project import Project
from .rulebook import rule
from .seed_draws import seed_drawn_per_process
from .seeded_datasets import per_rank_seed, shuffled_by_its_constructor
from .unset_epochs import (
    batch_samplers_out_of_reach,
    epochs_set_past_the_batch_sampler,
    hidden_from_the_framework,
    unprepared_trainer_loaders,
    unset_in_the_project,
)

__all__: list[str] = []


@rule(
    "FS101",
    "set-epoch-missing",
    "a distributed sampler (also the one Lightning Lite before 1.9 puts into the loaders "
    "it sets up, and the one under the loader deepspeed.initialize(training_data=...) "
    "returns) is iterated across epochs without set_epoch in the loop, so every epoch "
    "repeats the same order",
    "call sampler.set_epoch(epoch) at the top of the epoch loop, before iterating the loader "
    "(or build a fairshard sampler with auto_epoch=True)",
)
def _set_epoch_missing(mod: Module) -> Iterator[tuple[ast.AST, str]]:
    project = mod.cache.get("project")
    for loop, what in unsynced_loops(mod):
        method = mod.function_of(loop)
        if (
            project is not None
            and method is not None
            and project.called_only_on_other_classes(mod.cache["module_name"], method)
        ):
            continue  # the tree calls this method's name on other classes only
        fixed = fixed_setting(loop)
        unset = f"with the same {ast.unparse(fixed)}" if fixed else "without set_epoch"
        yield (
            loop,
            (
                f"loop iterates {what} (a distributed sampler) every pass {unset}: "
                "each epoch repeats the same order; call sampler.set_epoch(epoch) first"
            ),
        )
    for call, what in imported_cycles(flow_of(mod)):
        yield (
            call,
            (
                f"{ast.unparse(call.func)}(...) restarts {what} (a distributed sampler) on every "
                "pass of its endless loop without set_epoch: each pass repeats the same order; "
                "call sampler.set_epoch(epoch) each time the loader starts over"
            ),
        )
    yield from lost_batch_sampler_epochs(mod)
    yield from _materialized_loaders(mod)
    yield from unset_in_the_project(mod)
    yield from hidden_from_the_framework(mod)
    yield from batch_samplers_out_of_reach(mod)
    yield from epochs_set_past_the_batch_sampler(mod)
    yield from unprepared_trainer_loaders(mod)


_TORCH_GLOBAL_SEEDERS = frozenset({"torch.manual_seed", "torch.random.manual_seed"})
_GLOBAL_RNG_SAMPLERS = ("RandomSampler", "SubsetRandomSampler", "WeightedRandomSampler")


@rule(
    "FS104",
    "rank-dependent-seed",
    "a sampler's seed depends on the rank (seed=rank, seed + rank, or torch.manual_seed(rank) "
    "before a sampler that draws from the global generator) or is drawn in each process "
    "(random.randint, time.time), or a per-rank seed runs before a dataset whose "
    "constructor shuffles its items from the global generator and a distributed sampler "
    "splits it: ranks shuffle differently, so their shares overlap and miss samples",
    "give every rank the same sampler seed; seed augmentation per rank separately "
    "(e.g. a per-worker generator), never the sampler",
    default=False,
)
def _rank_dependent_seed(mod: Module) -> Iterator[tuple[ast.AST, str]]:
    flow = flow_of(mod)
    all_calls = mod.calls
    for call in all_calls:
        name = tail(call)
        if name.endswith("Sampler"):
            seed = argument(call, "seed", 4 if name == "DistributedSampler" else None)
            if seed is not None and mentions_rank(seed, flow.rank_names_at(call)):
                yield (
                    call,
                    (
                        f"{name}(seed={ast.unparse(seed)}) depends on the rank: ranks shuffle "
                        "differently and their shares overlap; use the same seed on every rank"
                    ),
                )
            elif seed is not None and (drawn := seed_drawn_per_process(mod, call, seed)):
                yield (
                    call,
                    (
                        f"{name}(seed={ast.unparse(seed)}) gets a seed drawn in each process "
                        f"({drawn}): ranks shuffle differently and their shares overlap; draw it "
                        "once and broadcast it from rank 0, or take it from the command line"
                    ),
                )
        yield from _seeded_dataset_orders(mod, call)
        if not _seeds_torch_per_rank(mod, call):
            continue
        qualified = mod.qualified(call.func) or ""
        later = [
            c
            for c in all_calls
            if (c.lineno, c.col_offset) > (call.lineno, call.col_offset)
            and (
                (tail(c) in _GLOBAL_RNG_SAMPLERS and argument(c, "generator") is None)
                # a loader handed its own generator draws its order from that
                or (tail(c) in LOADERS and shuffles(flow, c) and argument(c, "generator") is None)
            )
            # the `else` of `if args.distributed:` runs on one process: nothing to disagree
            and not single_process_branch(mod, c)
            # accelerate syncs the sampler's generator from rank 0 at every pass
            and not framework_shards(mod, c)
            and not _reseeded_alike(mod, call, c)
            and not _never_read(mod, c)
        ]
        if later:
            yield (
                call,
                (
                    f"{qualified}({ast.unparse(call.args[0])}) seeds the global generator per "
                    f"rank before {tail(later[0])} (line {later[0].lineno}) draws its order "
                    "from it: every rank gets a different order; use a distributed sampler "
                    "with one shared seed"
                ),
            )


def _loads(mod: Module, name: str) -> list[ast.expr]:
    """Every read of the dotted ``name`` (``loader``, ``self.val_loader``) in the module."""
    return [
        node
        for node in mod.nodes
        if isinstance(node, ast.Name | ast.Attribute)
        and isinstance(node.ctx, ast.Load)
        and dotted(node) == name
    ]


def _read_anywhere(mod: Module, name: str) -> bool:
    """``name``'s last part is read in any module of the tree (``trainer.val_iter`` too)."""
    last = name.rpartition(".")[2]
    modules = tree_modules(mod)
    return any(
        (isinstance(node, ast.Attribute) and node.attr == last and isinstance(node.ctx, ast.Load))
        or (isinstance(node, ast.Name) and node.id == last and isinstance(node.ctx, ast.Load))
        for other in modules
        for node in other.nodes
    )


def _never_read(mod: Module, loader: ast.Call) -> bool:
    """The loader's only reads make an iterator that nothing advances.

    selftof's ``self.val_loader = DataLoader(..., shuffle=True)`` then
    ``self.val_iter = iter(self.val_loader)``, with nothing in the tree reading
    ``val_iter`` (its validation calls commented out): no order is drawn, so a
    seed per rank before it changes nothing. A loader no line of its module
    reads may be read elsewhere (``from train import loader``): it counts.
    """
    statement = mod.parents.get(loader)
    if not isinstance(statement, ast.Assign) or len(statement.targets) != 1:
        return False
    name = dotted(statement.targets[0])
    reads = _loads(mod, name) if name is not None else []
    if not reads:
        return False
    for read in reads:
        wrapper = mod.parents.get(read)
        bound = mod.parents.get(wrapper) if wrapper is not None else None
        if not (
            isinstance(wrapper, ast.Call)
            and tail(wrapper) == "iter"
            and isinstance(bound, ast.Assign)
            and len(bound.targets) == 1
            and (held := dotted(bound.targets[0])) is not None
            and not _read_anywhere(mod, held)
        ):
            return False
    return True


def _seeded_dataset_orders(mod: Module, seed: ast.Call) -> Iterator[tuple[ast.AST, str]]:
    """``seed`` seeds a generator per rank that a later sampler's dataset orders itself from."""
    project = mod.cache.get("project")
    if not isinstance(project, Project) or not distributed_script(mod):
        return
    family = per_rank_seed(mod, seed, flow_of(mod).rank_names_at(seed))
    if family is None or _in_worker_init(mod, seed):
        return
    for call in mod.calls:
        if source_position(call) <= source_position(seed) or not is_distributed_sampler(mod, call):
            continue
        if mod.function_of(call) is not mod.function_of(seed):
            continue
        draw = shuffled_by_its_constructor(project, mod.cache["module_name"], call, family)
        if draw is not None:
            yield (
                seed,
                (
                    f"{tail(seed)}({ast.unparse(seed.args[0])}) seeds the global generator per "
                    f"rank before the dataset that {tail(call)} (line {call.lineno}) splits is "
                    f"built, and its constructor reorders its items from it ({tail(draw)}): "
                    "every rank holds them in another order, so shares overlap and miss items; "
                    "seed alike on every rank before building the dataset"
                ),
            )
            return


def _seeds_torch_per_rank(mod: Module, call: ast.Call) -> bool:
    """``torch.manual_seed(base + rank)``: the one global seed PyTorch's samplers draw from.

    ``RandomSampler``, ``DataLoader(shuffle=True)``, ``SubsetRandomSampler`` and
    ``WeightedRandomSampler`` draw their seed from torch's CPU generator;
    ``random.seed`` and ``numpy.random.seed`` never reach them, and
    ``torch.cuda.manual_seed`` seeds the GPU generators only.
    """
    qualified = mod.qualified(call.func) or ""
    return (
        qualified in _TORCH_GLOBAL_SEEDERS
        and bool(call.args)
        and mentions_rank(call.args[0], flow_of(mod).rank_names_at(call))
        and not _in_worker_init(mod, call)
    )


#: Names of the functions a loader runs in each worker process at its start.
_WORKER_INIT_NAMES = frozenset({"worker_init_fn", "seed_worker", "init_worker", "worker_init"})


def _in_worker_init(mod: Module, call: ast.Call) -> bool:
    """``call`` runs in a loader's worker processes, not in the process that draws the order.

    centernet_ltrb_pl's ``def worker_init_fn(worker_id, rank, seed): torch.manual_seed(rank
    + seed)``: a loader calls it in each worker it starts, whose generator augments; the
    shuffle's order is drawn in the main process, which the seed never reaches. The
    enclosing function counts by its name or by being handed as ``worker_init_fn=``
    (also through ``functools.partial``).
    """
    func = mod.function_of(call)
    if func is None:
        return False
    if func.name in _WORKER_INIT_NAMES:
        return True
    return any(
        k.arg == "worker_init_fn"
        and any(isinstance(n, ast.Name) and n.id == func.name for n in ast.walk(k.value))
        for c in mod.calls
        for k in c.keywords
    )


def _reseeded_alike(mod: Module, seed: ast.Call, draw: ast.Call) -> bool:
    """A rank-free ``torch.manual_seed`` runs after ``seed`` and before ``draw``'s order is drawn.

    PyTorch's samplers draw their seed when iterated, not when built: a
    same-on-every-rank reseed before the first loop of ``draw``'s function
    (or before ``draw`` itself) undoes the per-rank seed.
    """
    flow = flow_of(mod)
    func = mod.function_of(draw)
    loops = [
        n
        for n in ast.walk(func or mod.tree)
        if isinstance(n, ast.For | ast.AsyncFor)
        and (n.lineno, n.col_offset) > source_position(draw)
    ]
    until = min((source_position(n) for n in loops), default=source_position(draw))
    until = max(until, source_position(draw))
    return any(
        (mod.qualified(c.func) or "") in _TORCH_GLOBAL_SEEDERS
        and c.args
        and not mentions_rank(c.args[0], flow.rank_names_at(c))
        and source_position(seed) < source_position(c) < until
        for c in mod.calls
    )


_NUMPY_SAFE = frozenset(
    {
        "Generator",
        "SeedSequence",
        "PCG64",
        "PCG64DXSM",
        "Philox",
        "SFC64",
        "MT19937",
        "BitGenerator",
    }
)
_NUMPY_SEEDABLE = frozenset({"default_rng", "RandomState"})
_TORCH_RNG = frozenset(
    {
        "randperm",
        "rand",
        "randn",
        "randint",
        "multinomial",
        "normal",
        "bernoulli",
        "rand_like",
        "randint_like",
        "randn_like",
    }
)


#: Calls that seed or save the module-level generators: no draw, nothing ranks disagree on.
_SEEDING = frozenset(
    {"seed", "manual_seed", "setstate", "getstate", "set_state", "get_state", "get_rng_state"}
    | {"set_rng_state", "initial_seed"}
)


def _global_rng(mod: Module, call: ast.Call) -> str | None:
    """The module-level generator the call draws from (``random.shuffle``), or ``None``."""
    name = mod.qualified(call.func) or ""
    head, _, fn = name.rpartition(".")
    if fn in _SEEDING:
        return None
    if head == "random":
        if fn in ("Random", "SystemRandom") and (call.args or call.keywords):
            return None
        return name
    if head == "numpy.random":
        if fn in _NUMPY_SAFE or (fn in _NUMPY_SEEDABLE and (call.args or call.keywords)):
            return None
        return name
    if head == "torch" and fn in _TORCH_RNG and argument(call, "generator") is None:
        return name
    return None


def _partitioned_before(cls: ast.ClassDef, call: ast.Call) -> bool:
    """An index by the rank (``x[self.rank :: n]``, ``chunks[rank]``) precedes the call.

    Shuffling a rank's own, already disjoint share with a global RNG changes
    only that rank's order, never which samples it owns. Anywhere earlier in
    the class counts: the share is often cut in ``__init__`` and shuffled in
    ``__iter__``.
    """
    return any(
        isinstance(node, ast.Subscript)
        and mentions_rank(node.slice)
        and (node.lineno, node.col_offset) < (call.lineno, call.col_offset)
        for node in ast.walk(cls)
    )


def _selected_by_rank(cls: ast.ClassDef, call: ast.Call) -> bool:
    """The draw reorders a list that only this rank's branch fills (``if r == self.rank``).

    ``if target_rank == self.rank: indices_list.append(indices)`` after a
    deterministic assignment of intervals to ranks, then
    ``torch.randperm(len(indices_list))``: the share is the rank's own before
    the draw, so the global RNG changes its order only.
    """
    read = {dotted(n) for n in ast.walk(call) if isinstance(n, ast.Name | ast.Attribute)}
    for node in ast.walk(cls):
        if not (
            isinstance(node, ast.If)
            and (node.lineno, node.col_offset) < (call.lineno, call.col_offset)
            and isinstance(node.test, ast.Compare)
            and all(isinstance(op, ast.Eq) for op in node.test.ops)
            and mentions_rank(node.test)
        ):
            continue
        filled = {
            dotted(sub.func.value)
            for stmt in node.body
            for sub in ast.walk(stmt)
            if isinstance(sub, ast.Call)
            and isinstance(sub.func, ast.Attribute)
            and sub.func.attr in ("append", "extend")
        }
        if filled & read - {None}:
            return True
    return False


_WORLD_WORDS = ("num_replicas", "world_size", "rank", "replicas", "world")


#: Draws with replacement: a weighted or uniform sample each process may draw for itself
#: (a list of draws, or one value: ``random.randint(i0, i1)`` picks a crop's start).
_WITH_REPLACEMENT = frozenset(
    {
        "torch.randint",
        "random.choices",
        "random.choice",
        "random.randint",
        "random.randrange",
        "random.uniform",
        "numpy.random.randint",
        "numpy.random.uniform",
    }
)


def _draws_with_replacement(mod: Module, cls: ast.ClassDef) -> bool:
    """Every draw of the class is with replacement (``torch.multinomial(w, n, True)``)."""
    draws = [c for c in calls(cls) if _global_rng(mod, c) is not None]
    return bool(draws) and all(_with_replacement(mod, c) for c in draws)


#: Calls whose argument seeds a generator: a draw inside one is a seed, not a sample.
_SEEDS_A_GENERATOR = frozenset(
    {"manual_seed", "seed", "default_rng", "RandomState", "Random", "Generator"}
)


def _seeds_from_a_draw(mod: Module, cls: ast.ClassDef) -> bool:
    """A global-RNG draw of the class is a seed (``g.manual_seed(np.random.randint(...))``)."""
    return any(
        tail(call) in _SEEDS_A_GENERATOR
        and any(
            isinstance(sub, ast.Call) and _global_rng(mod, sub) is not None
            for arg in [*call.args, *(k.value for k in call.keywords)]
            for sub in ast.walk(arg)
        )
        for call in calls(cls)
    )


def _an_own_sample(mod: Module, call: ast.Call) -> bool:
    """A draw with replacement that seeds nothing: an i.i.d. pick, whoever draws it.

    ``random.randint(begin, end - 256)`` for a crop's start beside a shuffle
    the ranks disagree on: the shuffle is the finding, not the pick.
    """
    seeding = any(
        isinstance(a, ast.Call) and tail(a) in _SEEDS_A_GENERATOR for a in mod.ancestors(call)
    )
    return not seeding and _with_replacement(mod, call)


def _with_replacement(mod: Module, call: ast.Call) -> bool:
    name = mod.qualified(call.func) or ""
    if name in _WITH_REPLACEMENT:
        return True
    if name == "torch.multinomial":
        return is_constant(argument(call, "replacement", 2), True)
    if name in {"torch.rand", "numpy.random.rand", "numpy.random.random", "random.random"}:
        return True  # uniform draws, each on its own (thresholds, weights)
    if name == "numpy.random.choice":
        return not is_constant(argument(call, "replace", 2), False)
    return False


#: What PyTorch's samplers set in ``__init__`` (``torch/utils/data/sampler.py``
#: and ``distributed.py`` of torch 2.13): a subclass reads them without setting them.
_TORCH_BASE_ATTRIBUTES: dict[str, frozenset[str]] = {
    "SequentialSampler": frozenset({"data_source"}),
    "RandomSampler": frozenset({"data_source", "replacement", "_num_samples", "generator",
                                "num_samples"}),
    "SubsetRandomSampler": frozenset({"indices", "generator"}),
    "WeightedRandomSampler": frozenset({"weights", "num_samples", "replacement", "generator"}),
    "BatchSampler": frozenset({"sampler", "batch_size", "drop_last"}),
    "DistributedSampler": frozenset({"dataset", "num_replicas", "rank", "epoch", "drop_last",
                                     "num_samples", "total_size", "shuffle", "seed"}),
}  # fmt: skip


def _torch_base_attributes(mod: Module, cls: ast.ClassDef) -> set[str]:
    """``self.x`` names the class's PyTorch sampler bases set (``DistributedSampler``...)."""
    out: set[str] = set()
    for base in cls.bases:
        qualified = mod.qualified(base) or dotted(base) or ""
        name = qualified.rpartition(".")[2]
        if name in _TORCH_BASE_ATTRIBUTES and (
            qualified.startswith("torch.") or "." not in qualified
        ):
            out |= {f"self.{a}" for a in _TORCH_BASE_ATTRIBUTES[name]}
    return out


def _broken(mod: Module, cls: ast.ClassDef) -> bool:
    """``__iter__`` reads ``self.x`` that no method of the class (nor a base) sets.

    Such a sampler raises ``AttributeError`` when iterated: left over code that
    no loader can use, whatever its draws would do. A base of the file may set
    anything; PyTorch's samplers set what ``_TORCH_BASE_ATTRIBUTES`` lists
    (a ``DistributedSampler`` subclass reads ``self.rank`` it never assigns).
    """
    bases = [dotted(b) or "" for b in cls.bases]
    if any(b.rpartition(".")[2] in mod.classes for b in bases):
        return False  # a base of the file may set what it reads
    iters = [f for f in cls.body if isinstance(f, ast.FunctionDef) and f.name == "__iter__"]
    if not iters:
        return False
    assigned = {
        dotted(element)
        for node in ast.walk(cls)
        if isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign)
        for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
        for element in ast.walk(t)
        if isinstance(element, ast.Attribute)
    } | {
        f"self.{f.name}" for f in cls.body if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef)
    }
    if any(isinstance(n, ast.Call) and tail(n) in {"setattr", "update"} for n in ast.walk(cls)):
        return False  # attributes set by name (setattr, self.__dict__.update): not followed
    class_level = {
        f"self.{t.id}"
        for node in cls.body
        if isinstance(node, ast.Assign)
        for t in node.targets
        if isinstance(t, ast.Name)
    }
    read = {
        dotted(node)
        for node in ast.walk(iters[0])
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "self"
        and isinstance(node.ctx, ast.Load)
    }
    return bool(read - assigned - class_level - _torch_base_attributes(mod, cls) - {None})


def _seeded_block(mod: Module, call: ast.Call) -> bool:
    """The call runs inside ``with numpy_seed(seed, epoch):`` (or any ``*seed*(...)`` context).

    Such a context manager seeds the global generator on entry with values
    every rank shares and restores it on exit (fairseq's ``numpy_seed``), so
    what is drawn inside is the same on every rank.
    """
    for ancestor in mod.ancestors(call):
        if isinstance(ancestor, ast.With | ast.AsyncWith):
            for item in ancestor.items:
                expr = item.context_expr
                if (
                    isinstance(expr, ast.Call)
                    and "seed" in tail(expr).lower()
                    and (expr.args or expr.keywords)
                    and not any(
                        mentions_rank(a) for a in [*expr.args, *(k.value for k in expr.keywords)]
                    )
                ):
                    return True
    return False


def _seeded_before(mod: Module, call: ast.Call) -> bool:
    """Before the draw, the generator drawn from is seeded alike on every rank.

    ``random.seed(self.seed + self.epoch)`` then ``random.shuffle(indices)``:
    every rank seeds the generator with the same value right before drawing,
    so the draw is the same everywhere. The seed may sit in a helper the
    function calls first (``self._reseed()``), or the draw in a helper that
    every caller in the class calls after seeding (``np.random.seed(seed)``
    then ``self.sample_list()`` in ``__iter__``). A seed that reads the rank
    does not count (each rank then draws its own order).
    """
    func = mod.function_of(call)
    head = (mod.qualified(call.func) or "").rpartition(".")[0]
    if func is None or not head:
        return False
    seeder = f"{head}.manual_seed" if head == "torch" else f"{head}.seed"
    if _seeds_alike(mod, func, seeder, source_position(call)):
        return True
    cls = mod.parents.get(func)
    if not isinstance(cls, ast.ClassDef):
        return False
    callers = [
        c
        for c in calls(cls)
        if isinstance(c.func, ast.Attribute)
        and c.func.attr == func.name
        and dotted(c.func.value) == "self"
    ]
    return bool(callers) and all(
        (outer := mod.function_of(c)) is not None
        and _seeds_alike(mod, outer, seeder, source_position(c))
        for c in callers
    )


def _seeds_alike(
    mod: Module, func: ast.FunctionDef | ast.AsyncFunctionDef, seeder: str, before: tuple[int, int]
) -> bool:
    """``func`` seeds ``seeder``'s generator with a rank-free value before ``before``.

    Directly, or through a method of its class that it calls (``self._reseed()``).
    """
    cls = mod.parents.get(func)
    methods = (
        {m.name: m for m in cls.body if isinstance(m, ast.FunctionDef | ast.AsyncFunctionDef)}
        if isinstance(cls, ast.ClassDef)
        else {}
    )
    for c in calls(func):
        if source_position(c) >= before:
            continue
        if _seeds_with(mod, c, seeder):
            return True
        helper = (
            methods.get(c.func.attr)
            if isinstance(c.func, ast.Attribute) and dotted(c.func.value) == "self"
            else None
        )
        if (
            helper is not None
            and helper is not func
            and any(_seeds_with(mod, h, seeder) for h in calls(helper))
        ):
            return True
    return False


def _seeds_with(mod: Module, call: ast.Call, seeder: str) -> bool:
    return (
        mod.qualified(call.func) == seeder
        and bool(call.args)
        and not mentions_rank(call.args[0], flow_of(mod).rank_names_at(call))
    )


#: Calls that drain an iterable into a container once.
_DRAINS = frozenset({"list", "tuple"})


def _materialized_loaders(mod: Module) -> Iterator[tuple[ast.AST, str]]:
    """``list(DataLoader(..., sampler=DistributedSampler(...)))`` built once, outside a loop.

    Zoom-Transformer's ``self.data_loader["train"] = list(DataLoader(...,
    sampler=self.train_sampler))``: the loader is iterated once, when the list
    is built, so the sampler's order (and the random augmentation of that
    pass) is fixed then; ``set_epoch`` at every epoch changes nothing the
    training reads, and every epoch replays the first. Built inside a loop it
    is drawn again each pass, and is left alone.
    """
    scope_samplers: dict[int, set[str]] = {}
    for call in mod.calls:
        if not (isinstance(call.func, ast.Name) and call.func.id in _DRAINS and call.args):
            continue
        loader = call.args[0]
        if not (isinstance(loader, ast.Call) and tail(loader) in LOADERS):
            continue
        if mod.loop_of(call) is not None:
            continue
        sampler = argument(loader, "sampler", 3)
        if sampler is None:
            continue
        scope = mod.function_of(call) or mod.tree
        if id(scope) not in scope_samplers:
            scope_samplers[id(scope)] = _shuffling_sampler_names(mod, scope)
        if (isinstance(sampler, ast.Call) and needs_set_epoch(mod, sampler)) or (
            dotted(sampler) in scope_samplers[id(scope)]
        ):
            yield (
                call,
                (
                    f"{call.func.id}(DataLoader(...)) draws the distributed sampler's order "
                    "once, when it is built: set_epoch afterwards changes nothing, and every "
                    "epoch replays that first order; iterate the loader itself each epoch"
                ),
            )


def _shuffling_sampler_names(mod: Module, scope: ast.AST) -> set[str]:
    """Names (``self.train_sampler``) bound in ``scope`` to a sampler needing ``set_epoch``."""
    return {
        name
        for node in ast.walk(scope)
        if isinstance(node, ast.Assign)
        and isinstance(node.value, ast.Call)
        and needs_set_epoch(mod, node.value)
        for target in node.targets
        if (name := dotted(target)) is not None
    }


@rule(
    "FS105",
    "global-rng-in-sampler",
    "a Sampler subclass in a distributed script draws from module-level RNG (random.*, "
    "np.random.*, torch.randperm without generator=) before splitting the data between "
    "ranks (or a webdataset pipeline shuffles its shard list with no rng= before "
    "split_by_node): its order depends on whatever else consumed that RNG in the process, "
    "so ranks disagree on the order and their shares overlap",
    "derive a private generator from (seed, epoch): np.random.default_rng([seed, epoch]) or "
    "torch.Generator().manual_seed(...), and pass it explicitly",
)
def _global_rng_in_sampler(mod: Module) -> Iterator[tuple[ast.AST, str]]:
    for cls in mod.nodes:
        if not isinstance(cls, ast.ClassDef):
            continue
        if not is_data_sampler_class(mod, cls):
            yield from _global_rng_in_iterable(mod, cls)
            continue
        source_words = {
            node.attr if isinstance(node, ast.Attribute) else node.id
            for node in ast.walk(cls)
            if isinstance(node, ast.Attribute | ast.Name)
        }
        splits = any(
            word in _WORLD_WORDS or any(w in _WORLD_WORDS for w in name_words(word))
            for word in source_words
        )
        if not splits and not flow_of(mod).distributed:
            continue  # one process: nothing to disagree with
        if _draws_with_replacement(mod, cls) and not (splits and _seeds_from_a_draw(mod, cls)):
            # every draw is with replacement: a rank's share is an i.i.d. sample whether
            # or not the ranks agree (random rays cut rank::W from a per-step batch), and
            # no coverage of the data is promised that disagreeing ranks could break; a
            # draw that seeds a permutation later split by rank is no such sample
            continue
        if _broken(mod, cls):
            continue  # its __iter__ fails on an attribute nothing sets, before any draw
        for call in calls(cls):
            name = _global_rng(mod, call)
            if (
                name is not None
                and not _an_own_sample(mod, call)
                and not _partitioned_before(cls, call)
                and not _selected_by_rank(cls, call)
                and not _seeded_block(mod, call)
                and not _seeded_before(mod, call)
            ):
                source = (
                    "an unseeded generator (fresh entropy in every process)"
                    if name.rpartition(".")[2] in _NUMPY_SEEDABLE
                    else "module-level RNG"
                )
                yield (
                    call,
                    (
                        f"{name}() in Sampler subclass {cls.name} uses {source} before "
                        "the data is split between ranks: ranks disagree on the order and "
                        "their shares overlap; use a generator seeded from (seed, epoch)"
                    ),
                )
    yield from _shards_shuffled_before_the_node_split(mod)


def _shards_shuffled_before_the_node_split(mod: Module) -> Iterator[tuple[ast.AST, str]]:
    """A webdataset pipeline that shuffles its shard list, unseeded, before ``split_by_node``.

    Vespa's ``wds.DataPipeline(wds.SimpleShardList(urls), wds.shuffle(len(urls)),
    wds.split_by_worker, wds.split_by_node, ...)``: webdataset's ``shuffle`` with
    no ``rng=`` (or ``seed=``) seeds a generator from the process id and the clock,
    so every rank shuffles the shard list its own way before taking every
    ``world``-th shard: ranks read some shards twice and others never (a 2-rank
    check with webdataset 0.2.48 and 16 shards: 4 shards read by both, 4 by
    neither). Stages after the split shuffle a rank's own share and are left alone.
    """
    if not mod.imports_any(_WEBDATASET):
        return
    for node in mod.nodes:
        stages: list[ast.expr] = []
        if isinstance(node, ast.Call) and tail(node) in _PIPELINES:
            stages = list(node.args)
        elif isinstance(node, ast.List | ast.Tuple):
            stages = list(node.elts)
        split = next(
            (i for i, stage in enumerate(stages) if _stage_name(stage) == "split_by_node"), None
        )
        if split is None:
            continue
        for stage in stages[:split]:
            if (
                isinstance(stage, ast.Call)
                and _stage_name(stage) == "shuffle"
                and argument(stage, "rng") is None
                and argument(stage, "seed") is None
            ):
                yield (
                    stage,
                    (
                        "webdataset's shuffle() before split_by_node seeds itself from the "
                        "process id and the clock: ranks shuffle the shard list differently "
                        "before each takes its share, so shares overlap and shards go unread; "
                        "pass rng=random.Random(seed + epoch) or shuffle after the split"
                    ),
                )


_WEBDATASET = frozenset({"webdataset"})
#: Calls whose positional arguments are the stages of a webdataset pipeline.
_PIPELINES = frozenset({"DataPipeline", "compose"})


def _stage_name(stage: ast.expr) -> str:
    """``wds.shuffle(100)`` -> ``shuffle``; ``wds.split_by_node`` -> ``split_by_node``."""
    target = stage.func if isinstance(stage, ast.Call) else stage
    return (dotted(target) or "").rpartition(".")[2]


#: Calls in an iterable dataset's ``__iter__`` that split the stream between ranks or workers.
_SPLITTERS = frozenset({"get_worker_info", "get_rank", "get_world_size"})


def _splits_after(func: ast.AST, call: ast.Call) -> bool:
    """``func`` asks for its worker or rank after ``call`` (``get_worker_info()``...)."""
    return any(
        isinstance(node, ast.Call)
        and tail(node) in _SPLITTERS
        and (node.lineno, node.col_offset) > (call.lineno, call.col_offset)
        for node in ast.walk(func)
    )


def _global_rng_in_iterable(mod: Module, cls: ast.ClassDef) -> Iterator[tuple[ast.AST, str]]:
    """An ``IterableDataset`` that shuffles with module-level RNG, then cuts its share.

    ``random.shuffle(self.files)`` in ``__iter__``, then a slice by
    ``get_worker_info().id`` and ``dist.get_rank()``: each DataLoader worker
    seeds the module-level generators with its own seed, so every worker cuts
    its slice out of a different permutation; the slices overlap and some
    items are never read (across ranks too, unless every rank seeds alike).
    """
    if not any((dotted(b) or "").endswith("IterableDataset") for b in cls.bases):
        return
    for item in cls.body:
        if not isinstance(item, ast.FunctionDef) or item.name != "__iter__":
            continue
        for call in calls(item):
            name = _global_rng(mod, call)
            if (
                name is not None
                and _splits_after(item, call)
                and not _seeded_block(mod, call)
                and not _seeded_before(mod, call)
            ):
                yield (
                    call,
                    (
                        f"{name}() in IterableDataset {cls.name}.__iter__ uses module-level RNG "
                        "before the stream is split between workers and ranks: each worker "
                        "shuffles differently, so the slices overlap and items go missing; "
                        "use a generator seeded from (seed, epoch)"
                    ),
                )
