"""What several rules need to know about a whole file: where samplers and loaders flow.

Real training scripts rarely iterate ``DistributedSampler(...)`` right where
it is built. The sampler is picked in a conditional (``RandomSampler(ds) if
local_rank == -1 else DistributedSampler(ds)``), returned from a helper
(``loader, sampler = build_loader(args)``), stored on an object
(``self.train_sampler``), wrapped (``tqdm(loader)``, ``enumerate``,
``iter``) or handed to ``train_one_epoch(loader, ...)`` in another function.
:class:`Flow` follows all of these, within one file, by name.

NOTE (precision over soundness): names are matched by their dotted text
across the whole file (``self.train_loader`` in ``__init__`` is the same as
in ``fit``), which is what scripts mean in practice; across files, a
call whose name says it trains (``engine.train_one_epoch(model, loader,
...)``) is followed here, and producers, ``set_epoch`` callers and loaders
kept on objects are followed by ``project`` and ``objects``. Evaluation loaders and
samplers (named ``val_*``, ``*_test``...) are not followed for ``set_epoch``:
their order does not matter.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from .names import (
    Module,
    argument,
    calls_bound_to,
    compare_literals,
    dotted,
    env_key,
    is_config_lookup,
    is_constant,
    is_eval_name,
    keyed_path,
    loader_shuffles,
    mentions_local_rank,
    mentions_rank,
    name_words,
    tail,
)

__all__ = [
    "BATCH_SAMPLERS",
    "LOADERS",
    "TRAINER_BASES",
    "chosen_functions",
    "WRAPPERS",
    "Flow",
    "bound_argument",
    "bound_once",
    "branch_not_taken",
    "dead_branch",
    "defaults_of",
    "distributed_script",
    "epoch_managing",
    "flow_of",
    "is_batch_sampler_call",
    "is_distributed_sampler",
    "is_global_rank",
    "is_local_world",
    "module_constants",
    "needs_set_epoch",
    "never_entered",
    "parameters",
    "poisson_replaced",
    "shuffle_from_config",
    "shuffles",
    "spread_entry",
    "switched_off",
    "trainer_subclasses",
]

#: Calls that build a data loader.
LOADERS = frozenset({"DataLoader", "StatefulDataLoader", "SaveableDataLoader"})
#: Calls that hand their (first) argument's items through unchanged, lazily.
WRAPPERS = frozenset(
    {"tqdm", "enumerate", "iter", "zip", "islice", "cycle", "chain", "log_every", "track"}
)
#: Context managers whose ``as`` target is a loader over the sampler of the loader they
#: are handed (opacus's ``BatchMemoryManager``: ``__enter__`` splits its batches).
LOADER_CONTEXTS = {"BatchMemoryManager": ("data_loader", 0)}
#: Batch samplers that do not end in ``BatchSampler``.
BATCH_SAMPLERS = frozenset({"BatchShardSampler"})
#: Calls that make a script distributed (a process group, DDP, rank queries).
_DISTRIBUTED_CALLS = frozenset(
    {
        "init_process_group",
        "DistributedDataParallel",
        "DDP",
        "init_distributed_mode",
        "ddp_init_group",
        "get_world_size",
        "get_rank",
        "barrier",
        "all_reduce",
        "all_gather",
        "all_gather_object",
    }
)
_DISTRIBUTED_ENV = frozenset({"WORLD_SIZE", "RANK", "LOCAL_RANK", "LOCAL_WORLD_SIZE"})
#: Horovod's process set up and queries (``hvd.init()``, ``hvd.rank()``), read by the
#: package they resolve to: ``init`` or ``rank`` alone name nothing distributed.
_HOROVOD_CALLS = frozenset(
    {"init", "rank", "size", "local_rank", "allreduce", "allgather", "DistributedOptimizer"}
)
#: Trainer base classes (by package) that set up DDP themselves and add a
#: distributed sampler only to the loaders they build from a dataset: a
#: DataLoader the script builds and hands to ``fit`` is read whole by every
#: rank. SpeechBrain's ``Brain`` (``run_opts`` from ``torchrun``) is one.
TRAINER_BASES: dict[str, frozenset[str]] = {"speechbrain": frozenset({"Brain"})}

Function = ast.FunctionDef | ast.AsyncFunctionDef


def is_distributed_sampler(mod: Module, call: ast.Call) -> bool:
    """``DistributedSampler(...)`` (any module) or a fairshard sampler, evaluation ones aside."""
    name = tail(call)
    qualified = mod.qualified(call.func) or ""
    return (name == "DistributedSampler" or qualified.startswith("fairshard.")) and (
        name.endswith("Sampler") and "Eval" not in name
    )


def needs_set_epoch(mod: Module, call: ast.Call) -> bool:
    """A shuffling distributed sampler that does not advance its epoch by itself.

    A sampler built with the epoch (``DistributedSampler(coco_set, epoch=epoch)``,
    a project's class whose constructor seeds its order from it) is rebuilt
    for each epoch by the code that passes a variable there: its order is the
    epoch's already. A constant epoch is no such rebuild. A sampler no shipped
    run builds (``unbuilt_samplers``, set by the project's reader) needs nothing,
    nor one whose ``shuffle`` every shipped config sets false
    (``config_flags.unshuffled_samplers``).
    """
    epoch = argument(call, "epoch")
    unbuilt = mod.cache.get("unbuilt_samplers", frozenset())
    unshuffled = mod.cache.get("unshuffled_samplers", frozenset())
    return (
        is_distributed_sampler(mod, call)
        and call not in unbuilt
        and call not in unshuffled
        and not is_constant(argument(call, "auto_epoch"), True)
        and not is_constant(argument(call, "shuffle", 3), False)
        and (epoch is None or isinstance(epoch, ast.Constant))
    )


def is_batch_sampler_call(call: ast.Call) -> bool:
    """``BatchSampler``, ``ClassBatchSampler``... : a sampler that yields whole batches."""
    name = tail(call)
    return name.endswith("BatchSampler") or name in BATCH_SAMPLERS


def _targets(node: ast.AST) -> list[str]:
    """Dotted names bound by an assignment target (tuples unpacked)."""
    if isinstance(node, ast.Tuple | ast.List):
        return [n for elt in node.elts for n in _targets(elt)]
    if isinstance(node, ast.Starred):
        return _targets(node.value)
    name = dotted(node)
    return [name] if name else []


def _bindings(mod: Module) -> list[tuple[list[str], ast.expr]]:
    """Every ``names = value`` in the file (assignments, annotated, walrus)."""
    out: list[tuple[list[str], ast.expr]] = []
    for node in mod.nodes:
        if isinstance(node, ast.Assign):
            out.append(([n for t in node.targets for n in _targets(t)], node.value))
            # kwargs["sampler"] = DistributedSampler(...): the dict carries what it holds
            # there for a loader spread from it (DataLoader(ds, **kwargs)), here or where
            # a function returning the dict is called
            held = [
                name
                for t in node.targets
                if isinstance(t, ast.Subscript)
                and isinstance(t.slice, ast.Constant)
                and t.slice.value in ("sampler", "batch_sampler")
                and (name := dotted(t.value))
            ]
            if held:
                out.append((held, node.value))
        elif isinstance(node, ast.AnnAssign | ast.NamedExpr) and node.value is not None:
            out.append((_targets(node.target), node.value))
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            # with BatchMemoryManager(data_loader=loader, ...) as memory_safe_loader:
            out.append((_targets(node.optional_vars), node.context_expr))
    return out


def _container_fills(mod: Module) -> list[tuple[str, ast.expr]]:
    """``(container, element)`` for each loader put into a dict or a list by name.

    ``loaders[name] = DataLoader(...)`` in a loop over the tasks and
    ``loaders.append(loader)``: a multi-task script keeps its training loaders
    in a container and reads them back in its epoch loop (``loaders.items()``,
    a round-robin over them). An entry under a key named for evaluation
    (``loaders["val"] = ...``) is no training loader.
    """
    out: list[tuple[str, ast.expr]] = []
    for node in mod.nodes:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if not isinstance(target, ast.Subscript) or _eval_key(target.slice):
                    continue
                if isinstance(target.slice, ast.Constant) and target.slice.value in (
                    "sampler",
                    "batch_sampler",
                ):
                    continue  # a loader's keyword dict (see _bindings)
                if (name := dotted(target.value)) is not None:
                    out.append((name, node.value))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("append", "add")
            and len(node.args) == 1
            and (name := dotted(node.func.value)) is not None
        ):
            out.append((name, node.args[0]))
    return out


#: Values that make the name they are bound to a container of what they hold.
_CONTAINER_VALUES = (ast.List, ast.Set, ast.Dict, ast.ListComp, ast.SetComp, ast.DictComp)


def _eval_key(key: ast.AST) -> bool:
    """A container key named for evaluation (``"val"``, ``"test"``)."""
    return isinstance(key, ast.Constant) and isinstance(key.value, str) and is_eval_name(key.value)


def _container_reads(mod: Module) -> list[tuple[list[str], ast.expr]]:
    """``(targets, container)`` of loops over a container's elements.

    ``for loader in loaders``, ``for name, loader in loaders.items()``,
    ``for loader in loaders.values()``, ``for i, loader in enumerate(loaders)``
    (and comprehensions so written) bind ``loader`` to an element.
    """
    out: list[tuple[list[str], ast.expr]] = []
    for node in mod.nodes:
        if not isinstance(node, ast.For | ast.AsyncFor | ast.comprehension):
            continue
        source, target = node.iter, node.target
        pair = False
        if isinstance(source, ast.Call) and tail(source) == "enumerate" and source.args:
            source, pair = source.args[0], True
        if (
            isinstance(source, ast.Call)
            and isinstance(source.func, ast.Attribute)
            and source.func.attr in ("items", "values")
            and not source.args
        ):
            pair = pair or source.func.attr == "items"
            source = source.func.value
        if pair:
            if not (isinstance(target, ast.Tuple) and len(target.elts) == 2):
                continue
            target = target.elts[1]
        names = _targets(target)
        if names and isinstance(source, ast.Name | ast.Attribute):
            out.append((names, source))
    return out


def _entries(name: str, value: ast.expr) -> Iterator[tuple[str, ast.expr]]:
    """``name`` bound to ``value``, a dict of constant keys bound entry by entry.

    ``cfg = {"cmd": {"seed": seed, "stamp": stamp}}`` binds ``cfg['cmd']['seed']``
    and ``cfg['cmd']['stamp']`` (see :func:`names.keyed_path`); a dict with a
    computed key or a ``**`` spread is bound whole.
    """
    pairs: list[tuple[str, ast.expr]] | None = None
    if isinstance(value, ast.Dict) and value.keys:
        if all(isinstance(k, ast.Constant) and isinstance(k.value, str) for k in value.keys):
            pairs = [
                (k.value, v)
                for k, v in zip(value.keys, value.values, strict=True)
                if isinstance(k, ast.Constant) and isinstance(k.value, str)
            ]
    elif (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Name)
        and value.func.id == "dict"
        and not value.args
        and value.keywords
        and all(k.arg is not None for k in value.keywords)
    ):
        pairs = [(k.arg, k.value) for k in value.keywords if k.arg is not None]
    if pairs is None:
        yield name, value
        return
    for key, entry in pairs:
        yield from _entries(f"{name}[{key!r}]", entry)


def _record_classes(mod: Module) -> frozenset[str]:
    """The module's ``@dataclass`` classes: a call binds each keyword to its own field."""
    return frozenset(
        node.name
        for node in mod.nodes
        if isinstance(node, ast.ClassDef)
        and any(
            (dotted(d.func if isinstance(d, ast.Call) else d) or "").rpartition(".")[2]
            == "dataclass"
            for d in node.decorator_list
        )
    )


def _fields(name: str, value: ast.expr, records: frozenset[str]) -> Iterator[tuple[str, ast.expr]]:
    """``name`` bound to ``value``, a dataclass built by keywords bound field by field.

    nemotron-indonesia's ``config = TrainingConfig(..., eval_split=args.eval_split,
    local_rank=args.local_rank)``: the rank is in ``config.local_rank``, and
    ``config.eval_split`` read for a cut of the dataset reads no rank. Positional
    arguments or a ``**`` spread bind it whole (the field each fills is not read here).
    """
    if (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Name)
        and value.func.id in records
        and not value.args
        and value.keywords
        and all(k.arg is not None for k in value.keywords)
    ):
        for keyword in value.keywords:
            yield f"{name}.{keyword.arg}", keyword.value
        return
    yield from _entries(name, value)


def _taint_bindings(mod: Module) -> list[tuple[list[str], ast.expr]]:
    """Every ``names = value`` that can carry a rank, dict entries by constant key apart.

    ``cfg["cmd"]["stamp"] = stamp`` binds the entry ``cfg['cmd']['stamp']``; a
    computed key (``cfg[key] = stamp``) binds ``cfg`` whole, since any entry may
    be the one written. A dataclass built by keywords binds each field apart
    (see :func:`_fields`).
    """
    records = _record_classes(mod)
    out: list[tuple[list[str], ast.expr]] = []
    for node in mod.nodes:
        if isinstance(node, ast.Assign):
            targets: list[ast.expr] = list(node.targets)
            value: ast.expr = node.value
        elif isinstance(node, ast.AnnAssign | ast.NamedExpr) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        for target in targets:
            if isinstance(target, ast.Subscript):
                path = keyed_path(target)
                if path is not None:
                    out.extend(([name], entry) for name, entry in _entries(path, value))
                    continue
                base: ast.expr = target
                while isinstance(base, ast.Subscript):
                    base = base.value
                if (whole := dotted(base)) is not None:
                    out.append(([whole], value))
                continue
            names = _targets(target)
            if len(names) == 1 and not isinstance(target, ast.Tuple | ast.List):
                out.extend(([name], entry) for name, entry in _fields(names[0], value, records))
            elif names:
                out.append((names, value))
    return out


def _updates_itself(names: list[str], value: ast.expr) -> str | None:
    """``cfg = update(cfg)``: the one name rebound from a call that is given it whole."""
    if len(names) != 1 or not isinstance(value, ast.Call):
        return None
    given = [*value.args, *(k.value for k in value.keywords)]
    return names[0] if any(dotted(arg) == names[0] for arg in given) else None


def carried_parameters(flow: Flow, call: ast.Call, func: Function) -> set[str]:
    """The parameters of ``func`` that ``call`` (in ``flow``'s file) binds to a carrier.

    Positional arguments by position (``self`` left out), keywords by name;
    evaluation parameters (``val_loader``) are left alone. Only a call outside
    any loop binds: the function then runs the epochs itself
    (``train_loop(dataloader=train_dl, num_epochs=5)``); a call inside the
    caller's loop is one pass of the caller's epochs, and the caller's loop is
    what needs ``set_epoch`` (see ``loops``).
    """
    if flow.mod.loop_of(call) is not None:
        return set()
    params = parameters(func)
    out: set[str] = set()
    for position, arg in enumerate(call.args):
        if isinstance(arg, ast.Starred):
            break
        if position < len(params) and flow.carries(arg) and not flow.managed(arg):
            out.add(params[position])
    for keyword in call.keywords:
        if (
            keyword.arg in params
            and flow.carries(keyword.value)
            and not flow.managed(keyword.value)
        ):
            out.add(keyword.arg)
    return {param for param in out if not is_eval_name(param)}


def parameters(func: Function) -> list[str]:
    """The names of ``func``'s parameters, ``self``/``cls`` left out, keyword-only ones last."""
    names = [a.arg for a in func.args.posonlyargs + func.args.args]
    if names and names[0] in ("self", "cls"):
        names = names[1:]
    return names + [a.arg for a in func.args.kwonlyargs]


def bound_only_to(scope: ast.AST, name: str, func: Function | None, value: object) -> bool:
    """``name`` is a local (not a parameter) whose every binding in ``scope`` is ``value``.

    Every place that binds the name (an assignment, ``+=``, a ``for`` or
    ``with`` target, a walrus) stores to it; all of them must be plain
    ``name = <value>`` assignments of a literal of ``value``'s own type
    (``True`` is no ``1``), and no ``global``/``nonlocal`` may hand it elsewhere.
    ``for it in range(iters)`` after ``iters = 1`` is one pass; ``sampler=sampler``
    after ``sampler = None`` gives the loader no sampler.
    """
    if func is not None and name in parameters(func):
        return False
    stores = same = 0
    for node in ast.walk(scope):
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Store):
            stores += 1
        elif isinstance(node, ast.Global | ast.Nonlocal) and name in node.names:
            return False
        elif (
            isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Constant)
            and type(node.value.value) is type(value)
            and node.value.value == value
        ):
            same += sum(isinstance(t, ast.Name) and t.id == name for t in node.targets)
    return stores > 0 and stores == same


def defaults_of(func: Function) -> dict[str, ast.expr]:
    """``func``'s parameters that have a default, with it."""
    positional = [a.arg for a in func.args.posonlyargs + func.args.args]
    defaults = dict(
        zip(
            positional[len(positional) - len(func.args.defaults) :], func.args.defaults, strict=True
        )
    )
    defaults.update(
        {a.arg: d for a, d in zip(func.args.kwonlyargs, func.args.kw_defaults, strict=True) if d}
    )
    return defaults


def bound_argument(call: ast.Call, func: Function, param: str) -> ast.expr | None:
    """The argument ``call`` binds to ``func``'s parameter ``param`` (keyword or position)."""
    for keyword in call.keywords:
        if keyword.arg == param:
            return keyword.value
    position = parameters(func).index(param)
    if position < len(call.args) and not any(
        isinstance(a, ast.Starred) for a in call.args[: position + 1]
    ):
        return call.args[position]
    return None


@dataclass
class Flow:
    """Names, functions and loops of one file that carry an epoch-bound sampler.

    Attributes:
        carriers: Dotted names holding a shuffling distributed sampler, a loader
            built on one, or a wrapper around either: attributes and module-level
            names (file-wide).
        local_carriers: Plain names bound to such a thing inside a function, by
            the ``id`` of the def (a name is local to its function: a sharded
            ``train_loader`` in ``training_loader`` says nothing of the plain
            ``train_loader`` that ``testing_loader`` builds). Nested functions
            see their enclosing functions' names (closures).
        producers: Functions that return such a thing.
        rank_scopes: Names assigned from an expression that reads the rank, by
            scope: plain names per function (``id`` of the def; ``None`` for
            module level), attributes (``self.seed``) at ``None``. Use
            :meth:`rank_names_at`.
        local_names: Names assigned only from node-local ranks.
        global_names: Names assigned only from global ranks (``local_rank =
            dist.get_rank()``: what the name holds, not what it says).
        local_world_names: Names assigned from a node-local world size.
        batch_names: Names only ever bound to a batch sampler.
        shuffle_dicts: Names of dicts that hold ``shuffle=True`` (for ``**kwargs``).
        managed_scopes: Names bound to a loader that accelerate or Lightning Fabric
            prepared (they call ``set_epoch`` at every pass), by scope as
            ``rank_scopes``. Use :meth:`managed`.
        distributed: The script runs under a process group.
        bindings: Every ``names = value`` of the file.
        attribute_producers: Class name -> attributes an instance carries
            (``self.data = DataLoader(ds, sampler=self.train_sampler)`` in
            ``class DepthDataLoader``), so ``DepthDataLoader(cfg, "train").data``
            carries; classes of other modules of the tree come from the project.
        containers: Names of dicts and lists that hold such a loader among their
            elements (``loaders[task] = DataLoader(...)``, ``loaders.append(...)``,
            ``[train_loader, ...]``): an element read back (``loaders[task]``,
            ``for loader in loaders.values()``) carries, and so does a loop over
            the container itself (it reads each loader in turn).
    """

    mod: Module
    carriers: set[str] = field(default_factory=set)
    local_carriers: dict[int, set[str]] = field(default_factory=dict)
    _bound: dict[int, set[str]] = field(default_factory=dict, repr=False)
    producers: set[str] = field(default_factory=set)
    rank_scopes: dict[int | None, set[str]] = field(default_factory=dict)
    local_names: set[str] = field(default_factory=set)
    global_names: set[str] = field(default_factory=set)
    local_world_names: set[str] = field(default_factory=set)
    batch_names: set[str] = field(default_factory=set)
    shuffle_dicts: set[str] = field(default_factory=set)
    managed_scopes: dict[int | None, set[str]] = field(default_factory=dict)
    distributed: bool = False
    bindings: list[tuple[list[str], ast.expr]] = field(default_factory=list)
    attribute_producers: dict[str, set[str]] = field(default_factory=dict)
    element_producers: dict[str, set[int]] = field(default_factory=dict)
    param_carriers: dict[int, set[str]] = field(default_factory=dict)
    containers: set[str] = field(default_factory=set)

    # --------------------------------------------------------- rank values
    def _scope(self, node: ast.AST) -> int | None:
        func = self.mod.function_of(node)
        return None if func is None else id(func)

    def _rank_count(self) -> int:
        return sum(len(names) for names in self.rank_scopes.values())

    def rank_names_at(self, node: ast.AST) -> set[str]:
        """Names holding a rank-dependent value where ``node`` is: its function's and globals.

        NOTE: plain names are scoped by function (a local ``seed = base + rank``
        in one function says nothing about a ``seed`` parameter elsewhere);
        attributes are shared across the file (``self.seed`` set in ``__init__``).
        """
        scope = self._scope(node)
        names = set(self.rank_scopes.get(None, set()))
        if scope is not None:
            names |= self.rank_scopes.get(scope, set())
        return names

    def managed(self, node: ast.AST | None) -> bool:
        """``node`` names a loader prepared by a framework that sets its epoch itself.

        NOTE: scoped like the rank names, so ``train_loader`` returned by a
        builder function is a carrier there while ``train_loader =
        prepare_data_loader(accelerator, build())`` in ``main`` is managed.
        """
        if node is None or (name := dotted(node)) is None:
            return False
        scope = self._scope(node)
        names = set(self.managed_scopes.get(None, set()))
        if scope is not None:
            names |= self.managed_scopes.get(scope, set())
        return name in names

    # ------------------------------------------------------------ carriers
    def carries(self, node: ast.AST | None) -> bool:
        """The expression evaluates to something whose order needs ``set_epoch``."""
        if node is None:
            return False
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Call):
            return node.attr in self.attribute_producers.get(tail(node.value), ())
        if isinstance(node, ast.Name) and self.param_carriers:
            func = self.mod.function_of(node)
            if func is not None and node.id in self.param_carriers.get(id(func), ()):
                return True
        if isinstance(node, ast.Name):
            for scope in self._functions(node):
                if node.id in self.local_carriers.get(id(scope), ()):
                    return True
                if node.id in self._bound_in(scope):
                    return False  # the function's own name: a global of that name is not it
        if isinstance(node, ast.Name | ast.Attribute):
            return dotted(node) in self.carriers
        if isinstance(node, ast.IfExp):
            return self.carries(node.body) or self.carries(node.orelse)
        if isinstance(node, ast.BoolOp):
            return any(self.carries(v) for v in node.values)
        if isinstance(node, ast.Tuple | ast.List | ast.Set):
            return any(self.carries(e) for e in node.elts)
        if isinstance(node, ast.Dict):
            return any(
                self.carries(v)
                for k, v in zip(node.keys, node.values, strict=True)
                if k is None or not _eval_key(k)
            )
        if isinstance(node, ast.ListComp | ast.SetComp | ast.GeneratorExp):
            return self.carries(node.elt)
        if isinstance(node, ast.DictComp):
            return self.carries(node.value)
        if isinstance(node, ast.Subscript):
            return (
                dotted(node.value) in self.containers
                and not _eval_key(node.slice)
                and self.carries(node.value)
            )
        if not isinstance(node, ast.Call):
            return False
        if node in self.mod.cache.get("unsharded_calls", ()):
            return False  # this call's arguments skip every sampler its builder makes
        name = tail(node)
        if (
            isinstance(node.func, ast.Attribute)
            and node.func.attr in ("items", "values")
            and not node.args
            and dotted(node.func.value) in self.containers
        ):
            return self.carries(node.func.value)
        if needs_set_epoch(self.mod, node):
            return True
        if name in LOADERS:
            return any(
                self.carries(argument(node, key, position) or spread_entry(self.mod, node, key))
                for key, position in (("sampler", 3), ("batch_sampler", 4))
            ) or any(k.arg is None and self.carries(k.value) for k in node.keywords)
        if name == "BatchSampler":
            return self.carries(argument(node, "sampler", 0))
        if name in WRAPPERS:
            return any(self.carries(a) for a in node.args)
        if name in self.mod.cache.get("wrapper_functions", ()) and node.args:
            return self.carries(node.args[0])  # the tree's own generator wrapper (project)
        if name == "prepare_data_loader" and _from_ray(self.mod, node):
            # Ray Train's keeps the loader's distributed sampler and never sets its epoch
            return self.carries(argument(node, "data_loader", 0))
        if name in LOADER_CONTEXTS:
            return self.carries(argument(node, *LOADER_CONTEXTS[name]))
        if lite_sharded(self, node):
            return True
        if name in self.mod.cache.get("iterator_classes", ()):
            # an iterator class of the tree handed the loaders: iterating it reads them
            return any(self.carries(a) for a in node.args) or any(
                self.carries(k.value) for k in node.keywords
            )
        if isinstance(node.func, ast.IfExp):  # (OtherIterator if dali else DataIterator)(...)
            return any(
                (dotted(f) or "").rpartition(".")[2] in self.producers
                for f in (node.func.body, node.func.orelse)
            )
        if isinstance(node.func, ast.Name) and any(
            (dotted(f) or "").rpartition(".")[2] in self.producers
            for f in chosen_functions(self.mod, node)
        ):
            return True
        return name in self.producers

    def _carried_count(self) -> int:
        return (
            len(self.containers)
            + sum(len(v) for v in self.element_producers.values())
            + sum(len(v) for v in self.param_carriers.values())
            + sum(len(v) for v in self.local_carriers.values())
        )

    def _functions(self, node: ast.AST) -> list[ast.AST]:
        """The functions around ``node``, innermost first (a closure reads its outer names)."""
        return [
            a
            for a in self.mod.ancestors(node)
            if isinstance(a, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
        ]

    def _bound_in(self, func: ast.AST) -> set[str]:
        """Plain names ``func`` binds itself (assigned, looped over, parameters), not globals."""
        found = self._bound.get(id(func))
        if found is None:
            found = set()
            declared: set[str] = set()
            for sub in ast.walk(func):
                if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store | ast.Del):
                    found.add(sub.id)
                elif isinstance(sub, ast.arg):
                    found.add(sub.arg)
                elif isinstance(sub, ast.Global | ast.Nonlocal):
                    declared.update(sub.names)
            found -= declared
            self._bound[id(func)] = found
        return found

    def has_carriers(self) -> bool:
        """Some name, attribute or parameter of the file carries an epoch-bound order."""
        return bool(self.carriers or self.param_carriers or any(self.local_carriers.values()))

    def add_carrier(self, name: str, where: ast.AST) -> None:
        """``name`` (bound at ``where``) carries: in its function when a plain name there."""
        func = self.mod.function_of(where)
        declared = func is not None and any(
            isinstance(n, ast.Global | ast.Nonlocal) and name in n.names for n in ast.walk(func)
        )
        if func is None or "." in name or declared:
            self.carriers.add(name)
        else:
            self.local_carriers.setdefault(id(func), set()).add(name)

    def _unpack(self, unpacked: list[tuple[list[ast.expr], ast.Call]]) -> None:
        """``train_dl, test_dl = make_loaders(...)``: the targets at the carrying positions."""
        for targets, call in unpacked:
            if call in self.mod.cache.get("unsharded_calls", ()):
                continue  # this call's arguments skip every sampler its builder makes
            positions = self.element_producers.get(tail(call))
            if _deepspeed_loader(self.mod, call):
                positions = {*(positions or ()), 2}
            if not positions or any(isinstance(t, ast.Starred) for t in targets):
                continue
            for position in positions:
                name = dotted(targets[position]) if position < len(targets) else None
                if name and not is_eval_name(name):
                    self.add_carrier(name, call)

    def _carry_parameters(self) -> None:
        """Parameters of the file's functions that a call of the file hands a carrier.

        ``train_loop(model, dataloader=train_dl)`` makes ``dataloader`` a carrier
        inside ``train_loop`` only (an ``eval_loop`` with the same parameter name
        is another function); see :meth:`carries`.
        """
        for call in self.mod.calls:
            funcs = self.mod.functions.get(tail(call), [])
            if not funcs:
                continue
            if not isinstance(call.func, ast.Name):
                funcs = self._instance_methods(call, funcs)
            for func in funcs:
                for param in carried_parameters(self, call, func):
                    self.param_carriers.setdefault(id(func), set()).add(param)

    def _instance_methods(self, call: ast.Call, funcs: list[Function]) -> list[Function]:
        """The methods ``call`` runs on an object of one of the file's classes.

        ASTRA's ``trainer = Trainer(model, ...)`` then ``trainer.search(train_data,
        epochs, ...)``: the method of ``Trainer`` named ``search`` (``self`` left out
        of its parameters). ``self.search(...)`` runs the method of the caller's own
        class. A receiver bound to anything but a class of the file runs no method
        here.
        """
        if not isinstance(call.func, ast.Attribute):
            return []
        receiver = dotted(call.func.value)
        if receiver is None:
            return []
        if receiver == "self":
            here = self.mod.function_of(call)
            owner = self.mod.parents.get(here) if here is not None else None
            classes = {owner.name} if isinstance(owner, ast.ClassDef) else set()
        else:
            scope = self.mod.function_of(call) or self.mod.tree
            classes = {tail(built) for built in calls_bound_to(scope, receiver)}
        return [
            func
            for func in funcs
            if isinstance(owner := self.mod.parents.get(func), ast.ClassDef)
            and owner.name in classes
            and not any(dotted(d) == "staticmethod" for d in func.decorator_list)
        ]

    def _reads_rank(self, names: list[str], value: ast.expr, refs: set[str]) -> bool:
        """``value``, bound to ``names``, reads a name or dict entry that holds a rank.

        ``cfg = update(cfg)`` keeps ``cfg``'s entries apart: the entries that hold
        a rank are already known, and the call's result is not taken for all of them.
        """
        known = self.rank_names_at(value)
        if not refs & (known | {name.partition("[")[0] for name in known}):
            return False
        if (itself := _updates_itself(names, value)) is not None and itself not in known:
            known = {name for name in known if not name.startswith(itself + "[")}
        return mentions_rank(value, known)

    def _grow(self) -> None:
        """Follow assignments and returns until nothing new is learned."""
        bindings = self.bindings = _bindings(self.mod)
        returns = [
            (func.name, node.value)
            for node in self.mod.nodes
            if isinstance(node, ast.Return)
            and node.value is not None
            and (func := self.mod.function_of(node)) is not None
        ]
        summaries = [_summary(value) for _, value in bindings]
        taint_bindings = _taint_bindings(self.mod)
        taint_refs = [_summary(value)[0] for _, value in taint_bindings]
        direct = [mentions_rank(value) for _, value in taint_bindings]
        tainted = [False] * len(taint_bindings)
        owners = [self._class_of(value) for _, value in bindings]
        # attributes a constructor elsewhere in the tree stores a carrier in (see project)
        self.carriers.update(self.mod.cache.get("carried_attributes", ()))
        self.param_carriers.update(
            (id(func), set(params))
            for name, params in self.mod.cache.get("carried_parameters", {}).items()
            for func in self.mod.functions.get(name, [])
        )
        unpacked = [
            (node.targets[0].elts, node.value)
            for node in self.mod.nodes
            if isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Tuple | ast.List)
            and isinstance(node.value, ast.Call)
        ]
        # loaders a framework prepares (known before the carriers: a call handing one on
        # binds no parameter, see _carry_parameters)
        for names, value in bindings:
            if isinstance(value, ast.Call) and epoch_managing(self.mod, value):
                scope = self._scope(value)
                for name in names:
                    self.managed_scopes.setdefault(None if "." in name else scope, set()).add(name)
        fills = _container_fills(self.mod)
        reads = _container_reads(self.mod)
        grown = self._carried_count()
        for _ in range(8):
            before = (len(self.carriers), len(self.producers), self._rank_count())
            for name, element in fills:
                if not is_eval_name(name) and self.carries(element):
                    self.add_carrier(name, element)
                    self.containers.add(name)
            for names, source in reads:
                if dotted(source) in self.containers and self.carries(source):
                    for name in names:
                        if not is_eval_name(name):
                            self.add_carrier(name, source)
            for i, (names, value) in enumerate(bindings):
                if self.carries(value):
                    for name in names:
                        if not is_eval_name(name):
                            self.add_carrier(name, value)
                    if isinstance(value, _CONTAINER_VALUES):
                        self.containers.update(n for n in names if not is_eval_name(n))
                    if (owner := owners[i]) is not None:
                        self.attribute_producers.setdefault(owner, set()).update(
                            n[5:] for n in names if n.startswith("self.") and n.count(".") == 1
                        )
            for i, (names, value) in enumerate(taint_bindings):
                if not tainted[i] and (direct[i] or self._reads_rank(names, value, taint_refs[i])):
                    tainted[i] = True
                    scope = self._scope(value)
                    for name in names:
                        base = name.partition("[")[0]
                        self.rank_scopes.setdefault(None if "." in base else scope, set()).add(name)
            for name, value in returns:
                if not is_eval_name(name) and self.carries(value):
                    self.producers.add(name)
                if isinstance(value, ast.Tuple):
                    self.element_producers.setdefault(name, set()).update(
                        i
                        for i, element in enumerate(value.elts)
                        if self.carries(element) and not is_eval_name(dotted(element) or "")
                    )
            self._unpack(unpacked)
            self._carry_parameters()
            self._iterating_classes()
            if (
                before
                == (
                    len(self.carriers),
                    len(self.producers),
                    self._rank_count(),
                )
                and grown == self._carried_count()
            ):
                break
            grown = self._carried_count()
        assigned: dict[str, list[int]] = {}
        for i, (names, value) in enumerate(bindings):
            for name in names:
                assigned.setdefault(name, []).append(i)
            if _literal_shuffle(value):
                self.shuffle_dicts.update(names)
        local_world = [any(w in text for w in _LOCAL_WORLD) for _, text in summaries]
        self.local_world_names = {
            name for name, ids in assigned.items() if any(local_world[i] for i in ids)
        }
        batch = [isinstance(v, ast.Call) and is_batch_sampler_call(v) for _, v in bindings]
        self.batch_names = {name for name, ids in assigned.items() if all(batch[i] for i in ids)}
        # a constant binding (``else: rank = 0``, the single-process fallback) leaves a
        # name that otherwise only ever holds the local rank a local rank
        local = [mentions_local_rank(value) and not is_global_rank(value) for _, value in bindings]
        fallback = [_constant_rank(value) for _, value in bindings]
        self.local_names = {
            name
            for name, ids in assigned.items()
            if any(local[i] for i in ids)
            and all(local[i] or fallback[i] for i in ids)
            and not is_global_rank(ast.Name(id=name.rpartition(".")[2]))
        }
        self.global_names = {
            name
            for name, ids in assigned.items()
            if all(_global_rank_value(bindings[i][1]) for i in ids)
        }

    def _iterating_classes(self) -> None:
        """Classes whose ``__iter__`` reads a loader an instance carries are producers.

        ``DataIterator(...)`` that builds ``self.dataloader`` over a shuffling
        ``DistributedSampler`` and yields from it: iterating the instance is
        iterating that loader, so a loop over it needs ``set_epoch`` as well.
        A class that names ``set_epoch`` (advancing its sampler in ``__iter__``,
        or passing the call on) is left alone.
        """
        for name, defs in self.mod.classes.items():
            carried = self.attribute_producers.get(name)
            if not carried or name in self.producers:
                continue
            for cls in defs:
                if any(
                    isinstance(n, ast.Attribute | ast.FunctionDef)
                    and getattr(n, "attr", getattr(n, "name", "")) == "set_epoch"
                    for n in ast.walk(cls)
                ):
                    continue
                iters = [
                    f for f in cls.body if isinstance(f, ast.FunctionDef) and f.name == "__iter__"
                ]
                if any(_reads_attribute(f, carried) for f in iters):
                    self.producers.add(name)

    def _class_of(self, node: ast.AST) -> str | None:
        """The class whose method holds ``node`` (``None`` outside any method)."""
        func = self.mod.function_of(node)
        parent = self.mod.parents.get(func) if func is not None else None
        return parent.name if isinstance(parent, ast.ClassDef) else None

    def _find_distributed(self) -> None:
        self.distributed = distributed_script(self.mod)


def distributed_script(mod: Module) -> bool:
    """The file runs as one process of several: the linter's one test of a distributed script.

    A process group or DDP (``init_process_group``, ``DistributedDataParallel``,
    rank and world-size queries, collectives, but not those that run only once
    ``dist.is_initialized()``), a launcher's variables read (``RANK``,
    ``LOCAL_RANK``, ``WORLD_SIZE``: ``torchrun``), a trainer base class
    that sets up DDP itself (:data:`TRAINER_BASES`), or Horovod's set-up and
    queries (``hvd.init()``, ``hvd.rank()``: ``horovodrun -np 2`` starts the
    processes).
    """
    cached = mod.cache.get("distributed_script")
    if isinstance(cached, bool):
        return cached
    off = switched_off(mod)
    found = (
        any(
            tail(c) in _DISTRIBUTED_CALLS
            and not dead_branch(mod, c, off)
            and not _only_if_initialized(mod, c)
            and not in_uncalled_function(mod, c)
            for c in mod.calls
        )
        or any(
            env_key(node) in _DISTRIBUTED_ENV
            and not dead_branch(mod, node, off)
            and not in_uncalled_function(mod, node)
            for node in mod.nodes
            if isinstance(node, ast.Subscript | ast.Call)
        )
        or bool(trainer_subclasses(mod))
        or any(
            tail(c) in _HOROVOD_CALLS
            and (mod.qualified(c.func) or "").startswith("horovod.")
            and not dead_branch(mod, c, off)
            and not in_uncalled_function(mod, c)
            for c in mod.calls
        )
    )
    mod.cache["distributed_script"] = found
    return found


def in_uncalled_function(mod: Module, node: ast.AST) -> bool:
    """``node`` sits in a top-level, undecorated function that no code of the tree names.

    music_generator's ``train_hpc.py`` defines ``setup_parallel(rank,
    world_size)`` around ``init_process_group`` and imports DDP, but nothing
    calls, passes or imports the function: the script runs one process. Only
    in a script (a ``__main__`` block) of a folder linted whole: the names of
    every module of the tree (``tree_identifiers``, set by the project)
    decide. A name in a string (``getattr(module, "setup_parallel")``) is not
    seen, so a file that looks names up at run time keeps its functions.
    """
    func: ast.AST | None = None
    for ancestor in mod.ancestors(node):
        if isinstance(ancestor, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            func = ancestor
        if isinstance(ancestor, ast.ClassDef):
            return False
    if not isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef) or func.decorator_list:
        return False
    if mod.parents.get(func) is not mod.tree:
        return False
    names = mod.cache.get("tree_identifiers")
    if not isinstance(names, frozenset) or func.name in names:
        return False  # a file on its own (its callers may be elsewhere), or a name in use
    if any(
        isinstance(n, ast.Call) and tail(n) in ("globals", "getattr", "eval", "import_module")
        for n in mod.calls
    ):
        return False
    return _runs_as_a_script(mod)  # a library module's functions are for code elsewhere


def _runs_as_a_script(mod: Module) -> bool:
    """The file has an ``if __name__ == "__main__":`` block: it is run, not only imported."""
    return any(
        isinstance(node, ast.Compare)
        and isinstance(node.left, ast.Name)
        and node.left.id == "__name__"
        and any(isinstance(c, ast.Constant) and c.value == "__main__" for c in node.comparators)
        for node in mod.nodes
    )


#: Tests that a process group is up (``dist.is_initialized()``, DeiT's helper).
_INITIALIZED_TESTS = frozenset({"is_initialized", "is_dist_avail_and_initialized"})


def _only_if_initialized(mod: Module, node: ast.AST) -> bool:
    """``node`` runs only where a process group is already up: no evidence of one.

    cs760's ``evaluate`` sums its counts with ``dist.all_reduce`` under ``if
    dist.is_initialized():``, in a copy whose rank and world size are set to
    0 and 1 by hand: code that works with or without a process group says
    nothing of whether the script starts one. (``rank = dist.get_rank() if
    dist.is_initialized() else 0`` likewise.)
    """
    child = node
    for ancestor in mod.ancestors(node):
        if isinstance(ancestor, ast.If | ast.IfExp) and any(
            isinstance(n, ast.Call) and tail(n) in _INITIALIZED_TESTS
            for n in ast.walk(ancestor.test)
        ):
            body = ancestor.body if isinstance(ancestor, ast.If) else [ancestor.body]
            if any(child is b for b in body):
                return True
        child = ancestor
    return False


def bound_once(mod: Module) -> frozenset[str]:
    """Names the module binds exactly once: no other store, parameter or ``global`` of them."""
    cached = mod.cache.get("bound_once")
    if isinstance(cached, frozenset):
        return cached
    bound: dict[str, int] = {}
    for node in mod.nodes:
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
            bound[node.id] = bound.get(node.id, 0) + 1
        elif isinstance(node, ast.Global | ast.Nonlocal):
            for name in node.names:
                bound[name] = bound.get(name, 0) + 2  # rebound elsewhere: not a constant
        elif isinstance(node, ast.arg):
            bound[node.arg] = bound.get(node.arg, 0) + 2  # a parameter of that name
    found = frozenset(name for name, count in bound.items() if count == 1)
    mod.cache["bound_once"] = found
    return found


def module_constants(mod: Module, kind: type) -> dict[str, ast.Constant]:
    """Module-level names bound once, to a constant of ``kind`` (``ddp = False``)."""
    once = bound_once(mod)
    return {
        target.id: stmt.value
        for stmt in mod.tree.body
        if isinstance(stmt, ast.Assign)
        and len(stmt.targets) == 1
        and isinstance(target := stmt.targets[0], ast.Name)
        and isinstance(stmt.value, ast.Constant)
        and type(stmt.value.value) is kind
        and target.id in once
    }


def switched_off(mod: Module) -> frozenset[str]:
    """Module-level names bound once, to ``False``, and never bound again (``ddp = False``).

    img2mml_resnet's ``main_ddp.py`` sets ``ddp = False`` under its argument
    parsing and keeps its process group, DDP and ``mp.spawn`` under ``if ddp:``:
    as shipped the script is one process, and the distributed code is dead.
    """
    return frozenset(
        name for name, value in module_constants(mod, bool).items() if value.value is False
    )


def dead_branch(mod: Module, node: ast.AST, off: frozenset[str]) -> bool:
    """``node`` sits in the body of ``if FLAG:`` with ``FLAG`` switched off (or ``if False:``)."""
    if not off and not any(isinstance(n, ast.If) for n in mod.ancestors(node)):
        return False
    child = node
    for ancestor in mod.ancestors(node):
        if isinstance(ancestor, ast.If) and child in ancestor.body:
            test = ancestor.test
            if (isinstance(test, ast.Name) and test.id in off) or (
                isinstance(test, ast.Constant) and test.value is False
            ):
                return True
        child = ancestor
    return False


#: Calls that wrap a loader so that every pass calls its sampler's ``set_epoch``:
#: accelerate's ``prepare`` / ``prepare_data_loader`` (``DataLoaderShard``),
#: fairshard's accelerate ``prepare_data_loader``, Lightning Fabric's
#: ``setup_dataloaders``. (Ray Train's ``prepare_data_loader`` does not.)
_EPOCH_MANAGERS = frozenset({"prepare", "prepare_data_loader", "setup_dataloaders"})
#: opacus's calls that replace the loader they are handed (with Poisson sampling).
_POISSON_SETUP = frozenset({"make_private", "make_private_with_epsilon"})


def _known_value(test: ast.expr, constants: dict[str, ast.Constant]) -> object:
    """What ``test`` evaluates to given the module's constants; :data:`_UNKNOWN` if unread."""
    if isinstance(test, ast.Constant):
        return test.value
    if isinstance(test, ast.Name):
        return constants[test.id].value if test.id in constants else _UNKNOWN
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        value = _known_value(test.operand, constants)
        return _UNKNOWN if value is _UNKNOWN else not value
    if isinstance(test, ast.Tuple | ast.List | ast.Set):
        values = [_known_value(e, constants) for e in test.elts]
        return _UNKNOWN if any(v is _UNKNOWN for v in values) else tuple(values)
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        left = _known_value(test.left, constants)
        right = _known_value(test.comparators[0], constants)
        if left is _UNKNOWN or right is _UNKNOWN:
            return _UNKNOWN
        op = test.ops[0]
        if isinstance(op, ast.Eq | ast.NotEq):
            return (left == right) == isinstance(op, ast.Eq)
        if isinstance(op, ast.In | ast.NotIn) and isinstance(right, tuple):
            return (left in right) == isinstance(op, ast.In)
    return _UNKNOWN


#: A test :func:`_known_value` cannot evaluate.
_UNKNOWN = object()


def branch_not_taken(mod: Module, node: ast.AST) -> bool:
    """``node`` sits in a branch that the module's own constants rule out.

    TipNet's ``data_type = "mixed"`` then ``if data_type == "simulated":``:
    a module-level name bound once, to a constant, compared with another
    constant; the body runs only when the test holds and the ``else`` (or
    ``elif``) only when it fails. Tests of names bound more than once, of
    options, of calls are not read.
    """
    if not any(isinstance(a, ast.If) for a in mod.ancestors(node)):
        return False
    if _asserted_away(mod, node):
        return True
    constants = mod.cache.get("branch_constants")
    if not isinstance(constants, dict):
        constants = {
            **module_constants(mod, str),
            **module_constants(mod, int),
            **module_constants(mod, bool),
        }
        mod.cache["branch_constants"] = constants
    if not constants:
        return False
    child = node
    for ancestor in mod.ancestors(node):
        if isinstance(ancestor, ast.If):
            value = _known_value(ancestor.test, constants)
            if value is not _UNKNOWN:
                if child in ancestor.body and not value:
                    return True
                if child in ancestor.orelse and value:
                    return True
        child = ancestor
    return False


def _asserted_away(mod: Module, node: ast.AST) -> bool:
    """``node`` sits under a test that an ``assert`` before it in its function rules out.

    scaling-retriever's ``assert args.world_size == 1`` and, further down the
    same function, ``if args.world_size > 1:`` around a distributed sampler:
    past the assert the value is known, and the body never runs (no binding
    of the name between them).
    """
    func = mod.function_of(node)
    scope: ast.AST = func if func is not None else mod.tree
    child = node
    for ancestor in mod.ancestors(node):
        if ancestor is scope:
            break
        if (
            isinstance(ancestor, ast.If)
            and child in ancestor.body
            and _contradicted(mod, ancestor, scope) is True
        ):
            return True
        child = ancestor
    return False


def _contradicted(mod: Module, branch: ast.If, scope: ast.AST) -> bool | None:
    """The branch's test ``X <op> literal`` is false for the ``assert X == literal`` before it."""
    test = branch.test
    if not (
        isinstance(test, ast.Compare)
        and len(test.ops) == 1
        and isinstance(test.comparators[0], ast.Constant)
    ):
        return None
    name = dotted(test.left)
    if name is None:
        return None
    enclosing = {id(a) for a in mod.ancestors(branch)}
    asserted = [
        a
        for a in ast.walk(scope)
        if isinstance(a, ast.Assert)
        and a.lineno < branch.lineno
        and id(mod.parents.get(a)) in enclosing  # it runs before the branch, whatever the path
        and isinstance(a.test, ast.Compare)
        and len(a.test.ops) == 1
        and isinstance(a.test.ops[0], ast.Eq)
        and dotted(a.test.left) == name
        and isinstance(a.test.comparators[0], ast.Constant)
    ]
    if not asserted:
        return None
    last = max(asserted, key=lambda a: a.lineno)
    for other in ast.walk(scope):
        if isinstance(other, ast.Assign | ast.AugAssign | ast.AnnAssign) and (
            last.lineno < other.lineno < branch.lineno
        ):
            targets = other.targets if isinstance(other, ast.Assign) else [other.target]
            if any(dotted(t) == name for t in targets):
                return None  # bound again between the assert and the test
    known = last.test.comparators[0] if isinstance(last.test, ast.Compare) else None
    if not isinstance(known, ast.Constant):
        return None
    holds = compare_literals(test.ops[0], known.value, test.comparators[0].value)
    return None if holds is None else not holds


def never_entered(mod: Module, node: ast.AST) -> bool:
    """``node`` sits in a ``while`` loop whose test fails on entry: its body never runs.

    distributed-vae's ``stop_prune = True`` then ``while not stop_prune:``
    (pruning switched off by hand): the last statement before the loop, in its
    block, that binds the loop's only name binds it to a constant that makes
    the test false.
    """
    child: ast.AST | None = None
    for ancestor in [node, *mod.ancestors(node)]:
        if isinstance(ancestor, ast.While) and (child is None or child in ancestor.body):
            test, negated = ancestor.test, False
            if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
                test, negated = test.operand, True
            holder = mod.parents.get(ancestor)
            block = next(
                (
                    b
                    for part in ("body", "orelse", "finalbody")
                    if isinstance(b := getattr(holder, part, None), list) and ancestor in b
                ),
                None,
            )
            if isinstance(test, ast.Name) and block is not None:
                for before in reversed(block[: block.index(ancestor)]):
                    stores = [
                        n
                        for n in ast.walk(before)
                        if isinstance(n, ast.Name)
                        and n.id == test.id
                        and isinstance(n.ctx, ast.Store | ast.Del)
                    ]
                    if not stores:
                        continue  # a print between them binds nothing
                    if (
                        isinstance(before, ast.Assign)
                        and len(before.targets) == 1
                        and dotted(before.targets[0]) == test.id
                        and isinstance(before.value, ast.Constant)
                        and bool(before.value.value) == negated
                    ):
                        return True
                    break
        child = ancestor
    return False


def poisson_replaced(call: ast.Call) -> bool:
    """The call is opacus's ``make_private`` with Poisson sampling (a new loader).

    It is a ``DPDataLoader`` over ``DistributedUniformWithReplacementSampler``
    (a distributed module) whose steps draw each sample with rate q: the
    sampler or shuffle handed in is gone, and no ``set_epoch`` is needed.
    """
    if tail(call) not in _POISSON_SETUP:
        return False
    return not is_constant(argument(call, "poisson_sampling"), False)


def epoch_managing(mod: Module, call: ast.Call) -> bool:
    """``call`` returns loaders whose epoch the framework advances at every pass.

    opacus's ``make_private`` with Poisson sampling returns a new loader whose
    steps need no epoch (``prepared.poisson_replaced``).
    """
    name = tail(call)
    if poisson_replaced(call):
        return True
    if name not in _EPOCH_MANAGERS:
        return False
    if name == "setup_dataloaders" and lite_without_epochs(mod):
        return False
    if _from_ray(mod, call):
        return False
    if name == "prepare":  # accelerator.prepare(...): a method of an accelerate object
        return isinstance(call.func, ast.Attribute) and mod.imports_any(frozenset({"accelerate"}))
    return True


def _from_ray(mod: Module, call: ast.Call) -> bool:
    """``call`` is Ray's (``ray.train.torch.prepare_data_loader``): it sets no epoch."""
    qualified = mod.qualified(call.func) or ""
    return qualified.startswith("ray.") or ".ray." in qualified


#: Where Lightning Lite (before 1.9) lives: its ``setup_dataloaders`` puts in a
#: ``DistributedSampler`` and never calls ``set_epoch``.
_LITE_PACKAGES = frozenset({"pytorch_lightning", "lightning_lite", "lightning"})


def lite_without_epochs(mod: Module) -> bool:
    """The file drives Lightning Lite, whose ``setup_dataloaders`` shards but sets no epoch.

    NOTE: ``LightningLite.setup_dataloaders`` (``pytorch_lightning.lite``,
    1.5-1.8, and the ``lightning_lite`` package of 1.8) replaces a loader's
    sampler with a ``DistributedSampler`` that shuffles when the loader did,
    and its ``_LiteDataLoader`` iterates without ``set_epoch``: the user's
    loop must call it. Lightning Fabric (``lightning_fabric``,
    ``lightning.fabric``, and the deprecated Lite of 1.9 built on it) calls
    ``set_epoch`` at every pass. Code naming ``LightningLite`` is taken for
    the former, the releases it was written for; Fabric code never names it.
    """
    return "LightningLite" in mod.identifiers and mod.imports_any(_LITE_PACKAGES)


def lite_sharded(flow: Flow, call: ast.Call) -> bool:
    """``self.setup_dataloaders(loader)`` under Lite with a loader that shuffles.

    Lite puts in a shuffling ``DistributedSampler`` (unless
    ``replace_sampler=False``), so the loader it returns needs ``set_epoch``.
    """
    if tail(call) != "setup_dataloaders" or not lite_without_epochs(flow.mod):
        return False
    if is_constant(argument(call, "replace_sampler"), False):
        return False
    return any(flow.carries(arg) or _shuffling_loader(flow, arg) for arg in call.args)


def _reads_attribute(func: Function, attributes: set[str]) -> bool:
    """``func`` iterates ``self.X``, an X of ``attributes`` (``for``, ``iter``, ``yield from``)."""

    def is_carried(node: ast.AST) -> bool:
        if isinstance(node, ast.Call) and tail(node) in {"enumerate", "iter", "tqdm"} and node.args:
            node = node.args[0]
        name = dotted(node) or ""
        return name.startswith("self.") and name[5:] in attributes

    for node in ast.walk(func):
        if isinstance(node, ast.For | ast.AsyncFor | ast.comprehension) and is_carried(node.iter):
            return True
        if isinstance(node, ast.YieldFrom | ast.Call) and is_carried(node):
            return True
        if isinstance(node, ast.YieldFrom) and is_carried(node.value):
            return True
    return False


def _shuffling_loader(flow: Flow, node: ast.AST) -> bool:
    """``DataLoader(ds, shuffle=True)``, inline or a name its function binds to one."""
    if isinstance(node, ast.Call):
        return tail(node) in LOADERS and shuffles(flow, node)
    name = dotted(node)
    if name is None:
        return False
    func = flow.mod.function_of(node)
    return any(
        name in names
        and flow.mod.function_of(value) is func
        and isinstance(value, ast.Call)
        and tail(value) in LOADERS
        and shuffles(flow, value)
        for names, value in flow.bindings
    )


def trainer_subclasses(mod: Module) -> list[ast.ClassDef]:
    """Classes of ``mod`` derived from a :data:`TRAINER_BASES` class (``class ASR(sb.Brain)``)."""
    found: list[ast.ClassDef] = []
    for node in mod.nodes:
        if not isinstance(node, ast.ClassDef):
            continue
        for base in node.bases:
            qualified = mod.qualified(base) or ""
            package, _, _ = qualified.partition(".")
            if qualified.rpartition(".")[2] in TRAINER_BASES.get(package, frozenset()):
                found.append(node)
                break
    return found


def shuffle_from_config(call: ast.Call) -> bool:
    """The loader's ``shuffle=`` is a configuration lookup: unknown here, maybe ``True``."""
    return is_config_lookup(argument(call, "shuffle", 2), "shuffle")


def shuffles(flow: Flow, call: ast.Call) -> bool:
    """A ``DataLoader(...)`` passes ``shuffle=True``: directly or through ``**kwargs``."""
    if loader_shuffles(call):
        return True
    for keyword in call.keywords:
        if keyword.arg is None and (
            _literal_shuffle(keyword.value) or dotted(keyword.value) in flow.shuffle_dicts
        ):
            return True
    return False


_NODE_WORDS = ("node_rank", "machine_rank", "node_id", "group_rank", "nodeid", "node_idx")


def is_global_rank(node: ast.AST) -> bool:
    """The expression is a global rank built from a local one.

    ``node_rank * gpus_per_node + local_rank`` (the launcher arithmetic of
    detection and self-supervised codebases), anything reading a node's
    rank (``NODE_RANK``, ``SLURM_NODEID``, ``machine_rank``), or a name that
    says so (``global_rank``).
    """
    name = dotted(node)
    if name is not None:
        words = set(name_words(name.rpartition(".")[2]))
        if words & {"global", "world"} and "local" not in words:
            return True
    text = ast.unparse(node).lower()
    if any(word in text for word in _NODE_WORDS) or "slurm_procid" in text:
        return True
    return any(
        isinstance(sub, ast.BinOp)
        and isinstance(sub.op, ast.Add)
        and (
            any(
                isinstance(side, ast.BinOp) and isinstance(side.op, ast.Mult)
                for side in (sub.left, sub.right)
            )
            or _offset_sum(sub)
        )
        for sub in ast.walk(node)
    )


_OFFSET_WORDS = frozenset({"offset", "start", "base", "first", "begin"})


def _offset_sum(node: ast.BinOp) -> bool:
    """``local_rank + rank_offset``: the node's first rank plus the local one (mp.spawn scripts).

    The other term must be named for an offset; ``local_rank + 1`` stays local.
    """
    for side in (node.left, node.right):
        name = dotted(side)
        if name is not None and set(name_words(name.rpartition(".")[2])) & _OFFSET_WORDS:
            return True
    return False


def _constant_rank(node: ast.AST) -> bool:
    """``0``, ``-1``, ``None``: the rank a single-process run falls back to."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        node = node.operand
    return isinstance(node, ast.Constant) and (
        node.value is None or (isinstance(node.value, int) and not isinstance(node.value, bool))
    )


def _global_rank_value(node: ast.AST) -> bool:
    """The expression is a global rank: ``dist.get_rank()``, ``os.environ["RANK"]``...

    A rank read with no node-local part (``LOCAL_RANK``, ``get_local_rank()``,
    ``args.local_rank``), or one built from a node's rank.
    """
    if is_global_rank(node):
        return True
    return mentions_rank(node) and not mentions_local_rank(node)


_LOCAL_WORLD = ("local_world_size", "nproc_per_node", "device_count", "gpus_per_node", "ngpus")


def _deepspeed_loader(mod: Module, call: ast.Call) -> bool:
    """``deepspeed.initialize(..., training_data=dataset)``: its third result is a loader.

    DeepSpeed builds that loader over a shuffling ``DistributedSampler``
    (``loader.data_sampler``) and never sets its epoch: the training loop must.
    """
    return (
        tail(call) == "initialize"
        and (mod.qualified(call.func) or "").startswith("deepspeed")
        and argument(call, "training_data") is not None
    )


def is_local_world(node: ast.AST, names: set[str] | frozenset[str] = frozenset()) -> bool:
    """The expression is a node-local world size (``LOCAL_WORLD_SIZE``, ``device_count()``).

    The length of a list of devices counts too (``len(cfg.gpus)``, one machine's
    GPU ids, which the script indexes by the local rank to pick its device): the
    sampler's world is this machine's processes, so a local rank is consistent
    with it on the one node such a script runs on.
    """
    if dotted(node) in names:
        return True
    if isinstance(node, ast.Call) and tail(node) == "len" and len(node.args) == 1:
        listed = ast.unparse(node.args[0]).lower()
        if any(word in listed for word in ("gpu", "device")):
            return True
    text = ast.unparse(node).lower()
    return any(word in text for word in _LOCAL_WORLD)


def _summary(value: ast.AST) -> tuple[set[str], str]:
    """Names an expression reads (``x``, ``a.b``), and its words and strings in lower case."""
    refs: set[str] = set()
    words: list[str] = []
    for node in ast.walk(value):
        if isinstance(node, ast.Name):
            refs.add(node.id)
            words.append(node.id)
        elif isinstance(node, ast.Attribute):
            name = dotted(node)
            if name:
                refs.add(name)
            words.append(node.attr)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            words.append(node.value)
    return refs, " ".join(words).lower()


def _dict_entry(
    value: ast.AST | None,
    key: str,
    lookup: Callable[[str], ast.expr | None] | None = None,
    depth: int = 2,
) -> ast.expr | None:
    """``{"sampler": x}["sampler"]`` or ``dict(sampler=x)``'s ``sampler``: ``x``.

    A dict literal that spreads another (``{"batch_size": b, **cuda_kw}``)
    reads the spread one too, where ``lookup`` finds what its name holds
    (distributed-vae's ``drop_last`` in ``cuda_kw``); the last entry wins, as
    in Python.
    """
    if isinstance(value, ast.Dict):
        found: ast.expr | None = None
        for k, v in zip(value.keys, value.values, strict=True):
            if isinstance(k, ast.Constant) and k.value == key:
                found = v
            elif k is None and depth > 0:
                name = dotted(v)
                inner = lookup(name) if lookup is not None and name is not None else v
                entry = _dict_entry(inner, key, lookup, depth - 1)
                if entry is not None:
                    found = entry
        return found
    if isinstance(value, ast.Call) and tail(value) == "dict":
        return argument(value, key)
    if isinstance(value, ast.IfExp):
        # {"sampler": sampler_vl, ...} if valdataset else None (U-EGformer): the dict arm
        # is what a spread reads (spreading None would raise)
        return _dict_entry(value.body, key, lookup, depth) or _dict_entry(
            value.orelse, key, lookup, depth
        )
    return None


def spread_entry(mod: Module, call: ast.Call, key: str) -> ast.expr | None:
    """The value a ``**kwargs`` spread gives parameter ``key`` of ``call``, if readable here.

    ``DataLoader(ds, **{"sampler": s})``; ``kw = dict(sampler=s)`` or
    ``kw = {"sampler": s}`` then ``DataLoader(**kw)``; ``kw["sampler"] = s``:
    literal dicts built in the same function as the call (the last write
    before the call wins).
    """
    func = mod.function_of(call)

    def lookup(name: str) -> ast.expr | None:
        bound = [
            node.value
            for node in ast.walk(func or mod.tree)
            if isinstance(node, ast.Assign)
            and node.lineno <= call.lineno
            and mod.function_of(node) is func
            and any(dotted(t) == name for t in node.targets)
        ]
        return bound[-1] if bound else None

    for keyword in call.keywords:
        if keyword.arg is not None:
            continue
        found = _dict_entry(keyword.value, key, lookup)
        name = dotted(keyword.value)
        if found is not None or name is None:
            if found is not None:
                return found
            continue
        writes: list[tuple[int, ast.expr | None]] = []
        for node in ast.walk(func or mod.tree):
            if not isinstance(node, ast.Assign) or node.lineno > call.lineno:
                continue
            if mod.function_of(node) is not func:
                continue
            for target in node.targets:
                if dotted(target) == name:
                    writes.append((node.lineno, _dict_entry(node.value, key, lookup)))
                elif (
                    isinstance(target, ast.Subscript)
                    and dotted(target.value) == name
                    and isinstance(target.slice, ast.Constant)
                    and target.slice.value == key
                ):
                    writes.append((node.lineno, node.value))
        writes += _updates(mod, func, call, name, key)
        writes += _filled_by_callees(mod, func, call, name, key)
        entries = [value for _, value in sorted(writes, key=lambda w: w[0]) if value is not None]
        if entries:
            return entries[-1]
    return None


def chosen_functions(mod: Module, call: ast.Call) -> list[ast.expr]:
    """The functions a conditional expression bound to the called name chooses between.

    EQGNS's ``get_data_loader = (distribute.get_data_distributed_dataloader_by_samples
    if device == torch.device("cuda") else data_loader.get_data_loader_by_samples)``
    then ``dl = get_data_loader(...)``: either arm may run, so the call builds
    what either function returns. Only names and attributes as arms, bound in
    the call's own function.
    """
    assert isinstance(call.func, ast.Name)
    choices = mod.cache.get("chosen_functions")
    if not isinstance(choices, dict):
        # indexed once per file: (the function that binds it, its name) -> the arms
        choices = {}
        for node in mod.nodes:
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.IfExp):
                arms = [
                    arm
                    for arm in (node.value.body, node.value.orelse)
                    if isinstance(arm, ast.Name | ast.Attribute)
                ]
                for target in node.targets:
                    if isinstance(target, ast.Name) and arms:
                        key = (id(mod.function_of(node)), target.id)
                        choices.setdefault(key, []).extend(arms)
        mod.cache["chosen_functions"] = choices
    found: list[ast.expr] = choices.get((id(mod.function_of(call)), call.func.id), [])
    return found


def _updates(
    mod: Module, func: ast.AST | None, call: ast.Call, name: str, key: str
) -> list[tuple[int, ast.expr | None]]:
    """``name.update(dict(key=v))``, ``name.update({"key": v})``, ``name.update(key=v)``.

    NIH-ML's ``trainer_params = dict(max_epochs=...)`` then, on the cluster,
    ``trainer_params.update(dict(gpus=self.cfg.cluster.gpus_per_node, ...))``
    before ``Trainer(**trainer_params)``: an update writes the key as an
    assignment would, at its line.
    """
    found: list[tuple[int, ast.expr | None]] = []
    for node in ast.walk(func or mod.tree):
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "update"
            and dotted(node.func.value) == name
            and node.lineno <= call.lineno
            and mod.function_of(node) is func
        ):
            continue
        value = argument(node, key) if node.keywords else None
        if value is None and node.args:
            value = _dict_entry(node.args[0], key)
        if value is not None:
            found.append((node.lineno, value))
    return found


def _filled_by_callees(
    mod: Module, func: ast.AST | None, call: ast.Call, name: str, key: str
) -> list[tuple[int, ast.expr | None]]:
    """``key`` written into the dict ``name`` by a function of the module it is handed to.

    EmotionNeuralInterface's ``self.get_sampler(self.training_set,
    train_params)``, whose ``params["sampler"] = DistributedSampler(...)``
    fills the options ``DataLoader(..., **train_params)`` spreads next.
    """
    found: list[tuple[int, ast.expr | None]] = []
    for other in ast.walk(func or mod.tree):
        if not isinstance(other, ast.Call) or other.lineno > call.lineno or other is call:
            continue
        positions = [i for i, a in enumerate(other.args) if dotted(a) == name]
        keywords = [k.arg for k in other.keywords if k.arg and dotted(k.value) == name]
        if not positions and not keywords:
            continue
        for callee in mod.functions.get(tail(other), []):
            params = parameters(callee)
            method = params[:1] == ["self"] and isinstance(other.func, ast.Attribute)
            chosen = [params[i + method] for i in positions if i + method < len(params)]
            chosen += [k for k in keywords if k in params]
            for node in ast.walk(callee):
                if not isinstance(node, ast.Assign):
                    continue
                for target in node.targets:
                    if (
                        isinstance(target, ast.Subscript)
                        and dotted(target.value) in chosen
                        and isinstance(target.slice, ast.Constant)
                        and target.slice.value == key
                    ):
                        found.append((other.lineno, node.value))
    return found


def _literal_shuffle(value: ast.AST) -> bool:
    """``{"shuffle": True, ...}`` or ``dict(shuffle=True, ...)``."""
    if isinstance(value, ast.Dict):
        return any(
            isinstance(k, ast.Constant) and k.value == "shuffle" and is_constant(v, True)
            for k, v in zip(value.keys, value.values, strict=True)
        )
    return (
        isinstance(value, ast.Call)
        and tail(value) == "dict"
        and is_constant(argument(value, "shuffle"), True)
    )


def flow_of(mod: Module) -> Flow:
    """The file's :class:`Flow`, computed once and shared by every rule."""
    cached = mod.cache.get("flow")
    if isinstance(cached, Flow):
        return cached
    flow = Flow(mod)
    # functions of other modules of the linted tree known to return a carrier (see project)
    flow.producers.update(mod.cache.get("imported_producers", ()))
    for name, positions in mod.cache.get("imported_element_producers", {}).items():
        flow.element_producers.setdefault(name, set()).update(positions)
    for name, attributes in mod.cache.get("imported_attributes", {}).items():
        flow.attribute_producers.setdefault(name, set()).update(attributes)
    flow._grow()
    flow._find_distributed()
    mod.cache["flow"] = flow
    return flow
