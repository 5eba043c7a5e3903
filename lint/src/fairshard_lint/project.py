"""The files of one linted folder as a project: imports inside it are followed.

Real training code spreads one loader over several modules: ``main.py``
calls ``data.build_loader(val_set)``, whose sampler is built in
``data/samplers.py``; ``engine.train_one_epoch`` calls ``set_epoch``. When a
folder is linted, :class:`Project` parses the files of that folder that
mention loaders, samplers or ``set_epoch`` (a text test first), maps module
names to them, and resolves ``import`` / ``from ... import`` (relative ones
too) to functions of the tree. Three facts then cross module boundaries:

* functions that return a loader or sampler needing ``set_epoch``
  (``loader = build_train_loader(cfg)``, rule FS101),
* functions that call ``set_epoch`` at any depth (an imported
  ``train(loader, epoch)`` that calls it is an epoch loop's ``set_epoch``),
* the call sites of a function, to tell whether a sampler built in a
  neutral helper is reached from evaluation (rule FS109), with the argument
  that picks the branch followed (``make_data_loader(sampler_type=
  SamplerType.DISTRIBUTED)`` reaches only the ``if type ==
  SamplerType.DISTRIBUTED:`` branch of the factory),
* loaders carried by objects (rule FS101): a class whose method stores one in
  ``self.data`` makes ``DepthDataLoader(cfg, "train").data`` a loader in the
  module that builds it, and a loader handed to a class's constructor
  (``Trainer(cfg, model, train_loader)``, also a class a factory returns,
  ``get_trainer(cfg)(cfg, model, train_loader)``, matched by parameter name)
  is followed into the ``self.train_loader`` its ``__init__`` (or a base
  class's, through ``super().__init__``) stores, so an epoch loop over it in
  another method is checked.

NOTE (bounded cost): every file is parsed once; the per-module facts are
computed twice (once alone, once with what its imports give), and once
more for a module that a constructor hands a loader to; call sites
are indexed once by called name; the search up the callers stops after
three levels. Names that do not resolve inside the tree (the standard
library, torch, installed packages) are left alone.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path, PurePosixPath

from .cli_configs import read_accelerate_processes, read_trainer_devices
from .context import context_of, evaluation_split_loop
from .flow import (
    bound_argument,
    carried_parameters,
    chosen_functions,
    defaults_of,
    flow_of,
    is_distributed_sampler,
    parameters,
)
from .launch_counts import (
    Runs,
    launch_texts_name,
    launch_texts_pass,
    one_process_files,
    plain_python_files,
    read_launch_counts,
    read_node_counts,
    read_runs,
    several_process_files,
)
from .loops import setter_functions
from .names import (
    Module,
    argument,
    compare_literals,
    dotted,
    is_constant,
    name_words,
    option_flags,
    tail,
)
from .objects import carried_attributes, imported_attributes
from .option_setters import option_set_elsewhere
from .padding_classes import Padding
from .positions import position_verdict
from .replicas import ONE_REPLICA, replica_parameter

__all__ = ["Project", "entry_scripts", "imported_modules", "importers", "module_name"]

#: Text that makes a file take part in the project even without PyTorch data words
#: (a training helper that only calls ``loader.sampler.set_epoch(epoch)``; a script
#: that turns off Lightning's sampler, or hands the Trainer a data module, of the tree;
#: a Lightning module that scores validation or combines its metrics over the ranks).
_PROJECT_WORDS = (
    "set_epoch",
    "MASTER_ADDR",  # a launcher script that pins the rendezvous (see ``machines``)
    "datamodule=",
    "use_distributed_sampler",
    "replace_sampler_ddp",
    "sync_dist",
    "self.all_gather",
    "torchmetrics",
    "pytorch_lightning.metrics",  # Lightning 0.8-0.9's metric classes reduce when called
    "def validation_step",
    "def test_step",
    "def on_validation_epoch_end",  # a callback that computes its metrics there
    "def on_test_epoch_end",
    "trainer.fit(",
    "trainer.validate(",
    "trainer.test(",
    "LightningCLI(",  # an entry point that runs fit (and, from 1.5, test) itself
)
_FAIRSHARD = frozenset({"fairshard"})
#: Levels of callers searched above a function (``helper <- factory <- evaluate``).
MAX_CALLER_DEPTH = 3
#: ``self.train_loader = train_loader``: a class that keeps a loader handed to it. Files
#: whose text has this take part, so that a trainer module naming no data word is read.
_STORES_LOADER = re.compile(r"self\.\w*(?:loader|sampler)\w*\s*=\s*\w*(?:loader|sampler)", re.I)


def _branch_calls(module: Module, call: ast.Call) -> list[ast.Call]:
    """``call``, or one call per arm of ``(A if flag else B)(...)``, each named by its class.

    A name bound to such a choice in the call's function counts alike
    (``get_loader = a.build if cuda else b.build`` then ``get_loader(...)``).
    """
    if isinstance(call.func, ast.IfExp):
        arms: list[ast.expr] = [call.func.body, call.func.orelse]
    elif isinstance(call.func, ast.Name) and (chosen := chosen_functions(module, call)):
        arms = [call, *chosen]
    else:
        return [call]
    return [
        arm
        if isinstance(arm, ast.Call)
        else ast.copy_location(ast.Call(func=arm, args=call.args, keywords=call.keywords), call)
        for arm in arms
    ]


def module_name(relative: PurePosixPath) -> tuple[str, bool]:
    """``pkg/data/build.py`` -> ``("pkg.data.build", False)``; ``pkg/__init__.py`` -> package."""
    parts = list(relative.with_suffix("").parts)
    is_package = parts[-1] == "__init__"
    if is_package:
        parts = parts[:-1]
    return ".".join(parts), is_package


def takes_part(source: str) -> bool:
    """The file drives an epoch without naming PyTorch's data words: parse it for the project.

    (Files that pass the linter's own text test take part too; see ``engine``.)
    """
    return any(word in source for word in _PROJECT_WORDS) or bool(_STORES_LOADER.search(source))


def _iterates_itself(cls: ast.ClassDef) -> bool:
    """The class iterates what it holds (``__next__`` or ``__iter__``) and sets no epoch."""
    methods = {n.name for n in cls.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
    if not methods & {"__next__", "__iter__"}:
        return False
    return not any(isinstance(n, ast.Attribute) and n.attr == "set_epoch" for n in ast.walk(cls))


def _wraps_its_iterable(func: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """A generator that yields while it reads its first parameter through, setting no epoch.

    semantic-grasping's ``time_iter(iterable)``: ``it = iter(iterable)``, then
    ``yield end - start, next(it)`` until it runs out. A loop over
    ``time_iter(train_loader)`` reads the loader as ``tqdm(train_loader)``
    would (see ``Flow.carries``).
    """
    params = [a.arg for a in [*func.args.posonlyargs, *func.args.args]]
    if not params or params[0] in ("self", "cls"):
        return False
    first = params[0]
    nodes = list(ast.walk(func))
    if not any(isinstance(n, ast.Yield | ast.YieldFrom) for n in nodes):
        return False
    if any(isinstance(n, ast.Attribute) and n.attr == "set_epoch" for n in nodes):
        return False
    return any(
        (isinstance(n, ast.For | ast.AsyncFor) and dotted(n.iter) == first)
        or (
            isinstance(n, ast.Call)
            and tail(n) == "iter"
            and len(n.args) == 1
            and dotted(n.args[0]) == first
        )
        for n in nodes
    )


@dataclass
class Project:
    """Parsed modules of one tree by dotted name, their imports, and facts across them."""

    modules: dict[str, Module] = field(default_factory=dict)
    paths: dict[str, str] = field(default_factory=dict)
    packages: set[str] = field(default_factory=set)
    _imports: dict[str, dict[str, str]] = field(default_factory=dict)
    _sites: dict[str, list[tuple[str, ast.Call]]] | None = None
    _suffixes: dict[str, list[str]] | None = None
    _loaded: dict[str, list[re.Pattern[str]]] = field(default_factory=dict)
    _resolving: set[tuple[str, int]] = field(default_factory=set)
    _bindings: dict[int, dict[str, list[tuple[ast.expr, int | None]]]] = field(default_factory=dict)
    #: The project is a walked folder (every file of the tree seen), not a file alone.
    whole_tree: bool = False
    #: Loader-running frameworks any file of the tree imports (see ``unset_epochs``).
    frameworks: set[str] = field(default_factory=set)
    #: Some file of the tree loops over epochs, by its text (see ``unset_epochs``): the
    #: trainer module that holds the loop may name no data word and so not be parsed.
    epoch_loops: bool = False
    #: Package -> the highest version the tree's requirement files allow (see ``pins``).
    pins: dict[str, tuple[int, ...]] = field(default_factory=dict)
    #: The walked folder, where the tree's non-Python files are read from.
    root: Path | None = None
    #: Facts of the whole tree, computed once by the rules that ask (see ``unset_epochs``).
    facts: dict[str, bool] = field(default_factory=dict)
    #: Function name -> how often the text of the tree's files calls it (``trainer_spreads``).
    call_counts: dict[str, int] = field(default_factory=dict)
    #: Values the tree's configs and launch lines give a trainer option, read once (see
    #: ``lightning_hooks``).
    config_values: dict[str, list[str]] = field(default_factory=dict)
    #: Command-line options -> their default where no shipped run sets them (None: unknown).
    option_defaults: dict[str, ast.expr | None] = field(default_factory=dict)
    #: Files of the tree read only for a value (a settings module's ``DEVICES``), by key.
    parsed_extras: dict[str, ast.Module | None] = field(default_factory=dict)
    producers: dict[str, set[str]] = field(default_factory=dict)
    setters: dict[str, set[str]] = field(default_factory=dict)
    #: Module -> its classes -> attributes an instance carries (``DepthDataLoader.data``).
    attribute_producers: dict[str, dict[str, set[str]]] = field(default_factory=dict)
    #: Sampler classes of the tree that pad by repeating (rule FS109), once computed.
    padded_samplers: set[str] | None = None
    #: Module -> functions returning a tuple -> positions of the loaders in it.
    element_producers: dict[str, dict[str, set[int]]] = field(default_factory=dict)
    #: Classes of the tree that pad by inheritance or by the sampler they build (FS109).
    padding_classes: dict[str, Padding] | None = None
    #: What an expression of a module gives on every shipped run of its script (``True``,
    #: ``False``, ``None``: unknown), read from the options and launch lines; set by the
    #: engine (``option_branches.option_test_on_shipped_runs``), which this layer cannot import.
    shipped_value: Callable[[Module, ast.expr, ast.AST | None], bool | None] | None = None

    @cached_property
    def launch_counts(self) -> list[int] | None:
        """The process counts the tree's launch lines name (read once; see ``launch_counts``)."""
        return read_launch_counts(self.root) if self.root else []

    @cached_property
    def node_counts(self) -> list[int] | None:
        """The node count of every launch line of the tree (read once; see ``launch_counts``)."""
        return read_node_counts(self.root) if self.root else []

    @cached_property
    def runs(self) -> Runs | None:
        """What the tree's shipped lines run, and how (read once; see ``launch_counts``)."""
        return read_runs(self.root) if self.root else {}

    @cached_property
    def one_process_scripts(self) -> frozenset[str]:
        """The tree's files every shipped line runs as one process (see ``launch_counts``)."""
        return one_process_files(self.runs)

    @cached_property
    def plain_python_scripts(self) -> frozenset[str]:
        """The tree's files every shipped line runs as one process or by plain ``python``."""
        return plain_python_files(self.runs)

    @cached_property
    def several_process_scripts(self) -> frozenset[str]:
        """The tree's files a shipped line launches on several processes (``launch_counts``)."""
        return several_process_files(self.runs)

    @cached_property
    def run_scripts(self) -> frozenset[str]:
        """The tree's files some shipped line runs (see ``launch_counts``)."""
        return frozenset(self.runs or ())

    @cached_property
    def accelerate_processes(self) -> list[int]:
        """The process count of every accelerate config of the tree (read once)."""
        return read_accelerate_processes(self.root) if self.root else []

    @cached_property
    def trainer_devices(self) -> list[str]:
        """The ``trainer:`` device value of every YAML config of the tree (read once)."""
        return read_trainer_devices(self.root) if self.root else []

    # ------------------------------------------------------------- building
    def add(self, name: str, module: Module, path: str, is_package: bool = False) -> None:
        """Enter a parsed module under its dotted ``name``."""
        self.modules[name] = module
        self.paths[name] = path
        if is_package:
            self.packages.add(name)
        module.cache["project"] = self
        module.cache["module_name"] = name

    def finish(self) -> None:
        """Compute the cross-module facts (twice: alone, then with what imports give).

        Only modules that can hold a fact are analysed: producers need a
        distributed sampler in the module (or an imported producer), setters
        a ``set_epoch`` (or an imported setter); a module whose imports give
        nothing keeps its first analysis for the rules.
        """
        if self.whole_tree:  # what flow.in_uncalled_function reads: every name of the tree
            names = frozenset(n for module in self.modules.values() for n in module.identifiers)
            for module in self.modules.values():
                module.cache["tree_identifiers"] = names
        self._mark_iterator_classes()
        self._mark_wrapper_functions()
        self._mark_unsharded_calls()
        flowing: set[str] = set()
        for round_ in range(2):
            for name, module in self.modules.items():
                producers = self._imported(name, self.producers) if round_ else set()
                setters = self._imported(name, self.setters) if round_ else set()
                attributes = imported_attributes(self, name) if round_ else {}
                elements = self._imported_elements(name) if round_ else {}
                if round_ and not producers and not setters and not attributes and not elements:
                    continue
                module.cache.pop("flow", None)
                module.cache.pop("loops", None)
                module.cache["imported_producers"] = producers
                module.cache["imported_setters"] = setters
                module.cache["imported_attributes"] = attributes
                module.cache["imported_element_producers"] = elements
                ids = module.identifiers
                if (
                    producers
                    or attributes
                    or elements
                    or "DistributedSampler" in ids
                    or module.imports_any(_FAIRSHARD)
                ):
                    flow = flow_of(module)
                    flowing.add(name)
                    self.producers[name] = set(flow.producers) & (
                        set(module.functions) | set(module.classes)
                    )
                    self.element_producers[name] = {
                        function: positions
                        for function, positions in flow.element_producers.items()
                        if positions and function in module.functions
                    }
                    self.attribute_producers[name] = {
                        cls: attrs
                        for cls, attrs in flow.attribute_producers.items()
                        if cls in module.classes and attrs
                    }
                if setters or "set_epoch" in ids:
                    self.setters[name] = setter_functions(module, frozenset(setters))
        for name, carried in carried_attributes(self).items():
            module = self.modules[name]
            module.cache.pop("flow", None)
            module.cache.pop("loops", None)
            module.cache["carried_attributes"] = carried
        for name, params in self._carried_parameters(flowing).items():
            module = self.modules[name]
            module.cache.pop("flow", None)
            module.cache.pop("loops", None)
            module.cache["carried_parameters"] = params

    def _mark_iterator_classes(self) -> None:
        """Tell each module which of the calls it makes build an iterator class of the tree.

        ``RoundRobinIterator(loaders)`` from ``utils/round_iterator.py``, whose
        ``__next__`` draws from each loader in turn: iterating the instance
        reads the loaders it was handed (see ``Flow.carries``). A class that
        names ``set_epoch`` advances them itself and is left out.
        """
        iterators: set[tuple[str, str]] = set()
        for name, module in self.modules.items():
            for cls, defs in module.classes.items():
                if any(_iterates_itself(d) for d in defs):
                    iterators.add((name, cls))
        if not iterators:
            return
        tails = {cls for _, cls in iterators}
        for name, module in self.modules.items():
            found = {
                tail(call)
                for call in module.calls
                if tail(call) in tails and self.resolve(name, call) in iterators
            }
            if found:
                module.cache["iterator_classes"] = frozenset(found)

    def _mark_wrapper_functions(self) -> None:
        """Tell each module which of the calls it makes run a generator wrapper of the tree.

        See :func:`_wraps_its_iterable`; only module-level functions, each
        call resolved to the function it names.
        """
        wrappers: set[tuple[str, str]] = set()
        for name, module in self.modules.items():
            for function, defs in module.functions.items():
                if any(
                    module.parents.get(d) is module.tree and _wraps_its_iterable(d) for d in defs
                ):
                    wrappers.add((name, function))
        if not wrappers:
            return
        tails = {function for _, function in wrappers}
        for name, module in self.modules.items():
            found = {
                tail(call)
                for call in module.calls
                if tail(call) in tails and self.resolve(name, call) in wrappers
            }
            if found:
                module.cache["wrapper_functions"] = frozenset(found)

    def _mark_unsharded_calls(self) -> None:
        """Tell each module which of its calls skip every distributed sampler of the builder.

        ``get_data_loaders(name, batch_size)`` of a one-process script, whose
        builder shards only ``if is_distributed:`` (a parameter defaulting to
        ``False``): this call builds plain loaders, though the distributed
        script's ``get_data_loaders(..., is_distributed=True)`` builds sharded
        ones. What such a call returns carries no sampler (see ``Flow.carries``).
        """
        builders: dict[tuple[str, str], list[ast.Call]] = {}
        for name, module in self.modules.items():
            if "DistributedSampler" not in module.identifiers:
                continue
            for call in module.calls:
                func = module.function_of(call)
                if func is not None and is_distributed_sampler(module, call):
                    builders.setdefault((name, func.name), []).append(call)
        if not builders:
            return
        dispatchers = self._dispatchers(builders)
        tails = {function for _, function in (*builders, *dispatchers)}
        for name, module in self.modules.items():
            skipped: set[ast.Call] = set()
            for call in module.calls:
                if tail(call) not in tails:
                    continue
                where = self.resolve(name, call)
                evaluate = self._shipped_reader(module, call)
                if where in builders:
                    owner = self.modules[where[0]]
                    if all(
                        _skipped_at(owner, sampler, call, evaluate) for sampler in builders[where]
                    ):
                        skipped.add(call)
                elif where in dispatchers and all(
                    self._dispatch_skipped(where, inner, call, evaluate, builders)
                    for inner in dispatchers[where]
                ):
                    skipped.add(call)
            if skipped:
                module.cache["unsharded_calls"] = frozenset(skipped)

    def _dispatchers(
        self, builders: Mapping[tuple[str, str], list[ast.Call]]
    ) -> dict[tuple[str, str], list[ast.Call]]:
        """Functions that build no sampler themselves but call a builder: their calls of it.

        subdiff's ``build_pretrain_dataloader(..., distributed=False, backend=...)``
        hands its ``distributed`` on to ``_build_torch_pretrain``, whose sampler
        is built only ``if distributed:``.
        """
        found: dict[tuple[str, str], list[ast.Call]] = {}
        tails = {function for _, function in builders}
        for name, module in self.modules.items():
            for call in module.calls:
                func = module.function_of(call)
                if func is None or tail(call) not in tails or (name, func.name) in builders:
                    continue
                if self.resolve(name, call) in builders:
                    found.setdefault((name, func.name), []).append(call)
        return found

    def _dispatch_skipped(
        self,
        dispatcher: tuple[str, str],
        inner: ast.Call,
        call: ast.Call,
        evaluate: Callable[[ast.expr], bool | None] | None,
        builders: Mapping[tuple[str, str], list[ast.Call]],
    ) -> bool:
        """``call`` of the dispatcher skips every sampler its call ``inner`` of a builder reaches.

        Either ``call`` skips the branch of the dispatcher ``inner`` sits in, or
        for each sampler of the builder some requirement fails: on a literal
        ``inner`` passes, or on a parameter of the dispatcher that ``inner``
        hands on, with what ``call`` passes for it.
        """
        module = self.modules[dispatcher[0]]
        outer = module.function_of(inner)
        where = self.resolve(dispatcher[0], inner)
        if outer is None or where is None:
            return False
        if _skipped_at(module, inner, call, evaluate):
            return True  # the dispatcher's branch that holds ``inner`` is not taken
        owner = self.modules[where[0]]
        outer_params = set(parameters(outer))
        for sampler in builders[where]:
            func = owner.function_of(sampler)
            if func is None:
                return False
            skipped = False
            for param, need in _requirements(owner, sampler, func).items():
                given = passed_argument(func, inner, param)
                if isinstance(given, ast.Name) and given.id in outer_params:
                    given = passed_argument(outer, call, given.id)
                    skipped = _contradicts(need, given, param, evaluate)
                else:
                    skipped = _contradicts(need, given, param)
                if skipped:
                    break
            if not skipped:
                return False
        return True

    def _shipped_reader(
        self, module: Module, site: ast.Call
    ) -> Callable[[ast.expr], bool | None] | None:
        """How an argument of ``site`` reads on every shipped run (``distributed=args.n > 1``)."""
        read = self.shipped_value
        if read is None:
            return None
        scope = module.function_of(site)
        return lambda value: read(module, value, scope)

    def _imported_elements(self, name: str) -> dict[str, set[int]]:
        """Calls of module ``name`` to a function elsewhere that returns loaders in a tuple."""
        out: dict[str, set[int]] = {}
        for call, (module, function) in self._calls_elsewhere(name, self.element_producers):
            positions = self.element_producers.get(module, {}).get(function)
            if positions:
                out.setdefault(tail(call), set()).update(positions)
        return out

    def _carried_parameters(self, flowing: set[str]) -> dict[str, dict[str, set[str]]]:
        """Module -> function -> parameters that a call in another module hands a loader.

        ``train_loop(model, dataloader=train_dl)`` in ``train_ranker`` with
        ``train_loop`` imported from ``utils``: ``dataloader`` carries the
        loader inside ``utils.train_loop``, whose epoch loop is then checked.
        """
        out: dict[str, dict[str, set[str]]] = {}
        for name in sorted(flowing):
            module = self.modules[name]
            flow = flow_of(module)
            if not flow.has_carriers():
                continue
            for call in module.calls:
                if not (call.args or call.keywords):
                    continue
                where = self.resolve(name, call)
                if where is None or where[0] == name:
                    continue
                for func in self.modules[where[0]].functions.get(where[1], []):
                    params = carried_parameters(flow, call, func)
                    if params:
                        out.setdefault(where[0], {}).setdefault(where[1], set()).update(params)
        return out

    # ------------------------------------------------------------ resolving
    def find(self, dotted_name: str) -> str | None:
        """The module of the tree that ``dotted_name`` names (exactly, or by a unique suffix)."""
        if dotted_name in self.modules:
            return dotted_name
        if self._suffixes is None:
            self._suffixes = {}
            for name in self.modules:
                parts = name.split(".")
                for start in range(1, len(parts)):
                    self._suffixes.setdefault(".".join(parts[start:]), []).append(name)
        matches = self._suffixes.get(dotted_name, [])
        if not matches:
            head, _, rest = dotted_name.partition(".")
            if rest and head == self.folder_name and head not in self._suffixes:
                return self.find(rest)  # the tree is the package: mae_st.engine from mae_st/
        return matches[0] if len(matches) == 1 else None

    @cached_property
    def folder_name(self) -> str:
        """The walked folder's own name: a checkout of package ``mae_st`` imports itself by it.

        ``from mae_st.engine_finetune import evaluate`` in a tree linted from its
        root ``mae_st/`` (the package installed in development mode, or run
        from the folder above) names the tree's ``engine_finetune``.
        """
        return self.root.resolve().name if self.root is not None else ""

    def tree_path(self, mod: Module) -> Path | None:
        """Where ``mod``'s file lies below the walked folder (``None``: not in this tree)."""
        path = self.paths.get(mod.cache.get("module_name", ""))
        if self.root is None or not path:
            return None
        try:
            return Path(path).resolve().relative_to(self.root.resolve())
        except ValueError:
            return None

    def imports(self, name: str) -> dict[str, str]:
        """Local name -> dotted target, for every import of module ``name`` (relative resolved)."""
        cached = self._imports.get(name)
        if cached is not None:
            return cached
        out: dict[str, str] = {}
        package = name if name in self.packages else name.rpartition(".")[0]
        for node in self.modules[name].nodes:
            if isinstance(node, ast.Import):
                for alias in node.names:
                    out[alias.asname or alias.name.split(".")[0]] = (
                        alias.name if alias.asname else alias.name.split(".")[0]
                    )
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                sibling = f"{package}.{base}" if package and base else ""
                if not node.level and sibling in self.modules:
                    base = sibling  # a script's own folder comes first on sys.path
                if node.level:
                    parts = package.split(".") if package else []
                    keep = len(parts) - (node.level - 1)
                    head = ".".join(parts[: max(keep, 0)])
                    base = ".".join(p for p in (head, node.module or "") if p)
                for alias in node.names:
                    if alias.name == "*":
                        out[f"*{base}"] = base  # a star import: see star_sources
                        continue
                    out[alias.asname or alias.name] = f"{base}.{alias.name}" if base else alias.name
        self._imports[name] = out
        return out

    def star_sources(self, name: str) -> list[str]:
        """The modules that module ``name`` star-imports (``from util import *``)."""
        return [target for local, target in self.imports(name).items() if local.startswith("*")]

    def imports_module(self, name: str, target: str) -> bool:
        """Module ``name`` imports module ``target`` or a name from it, or loads it by name.

        A computed name counts (``importlib.import_module(f"pkg.tasks.{task}.expert")``:
        every module of the tree that the name can spell): a runner that loads
        its task modules by name is their importer.
        """
        if any(
            target in (self.find(dotted_name), self.find(dotted_name.rpartition(".")[0]))
            for dotted_name in self.imports(name).values()
        ):
            return True
        parts = target.split(".")
        return any(
            pattern.fullmatch(".".join(parts[start:]))
            for pattern in self.loaded_by_name(name)
            for start in range(len(parts))
        )

    def loaded_by_name(self, name: str) -> list[re.Pattern[str]]:
        """Patterns of the module names that module ``name`` imports by a computed name.

        ``import_module(f"s3prl.downstream.{name}.expert")`` (or ``__import__``, the
        name built with ``+`` or an f-string) matches ``s3prl.downstream.asr.expert``:
        each computed part stands for one or more dotted components. Names with no
        dotted literal part (``import_module(name)``) say nothing and give none.
        """
        cached = self._loaded.get(name)
        if cached is not None:
            return cached
        out: list[re.Pattern[str]] = []
        for call in self.modules[name].calls:
            if tail(call) not in ("import_module", "__import__") or not call.args:
                continue
            pieces = _name_pieces(call.args[0])
            literal = "".join(p for p in pieces or () if p is not None)
            if pieces is None or "." not in literal.strip("."):
                continue
            out.append(
                re.compile("".join(r"[\w.]+" if p is None else re.escape(p) for p in pieces))
            )
        self._loaded[name] = out
        return out

    def resolve(self, name: str, call: ast.Call) -> tuple[str, str] | None:
        """``(module, function)`` of the tree that ``call`` in module ``name`` calls, if any.

        A class of the tree resolves too (``(module, class)``): the call builds an instance.
        """
        return self.named(name, call.func)

    def named(self, name: str, func: ast.AST) -> tuple[str, str] | None:
        """Where the function or class that the expression ``func`` names is defined."""
        module = self.modules[name]
        if isinstance(func, ast.Name):
            if func.id in module.functions or func.id in module.classes:
                return name, func.id
            target = self.imports(name).get(func.id)
            if target is None:
                return self._starred(name, func.id)
            owner, _, function = target.rpartition(".")
            return self._defined(owner, function) if owner else None
        if isinstance(func, ast.Attribute):
            if isinstance(func.value, ast.Name) and func.value.id in ("self", "cls"):
                return _own_method(name, module, func)
            instance = self._instance_class(name, func.value)
            if instance is not None:
                return self._method(instance, func.attr)
            head = dotted(func.value)
            if head is None:
                return None
            first, _, rest = head.partition(".")
            target = self.imports(name).get(first)
            if target is None:
                return None
            return self._defined(f"{target}.{rest}" if rest else target, func.attr)
        return None

    def _instance_class(self, name: str, value: ast.expr) -> tuple[str, str] | None:
        """The tree class whose instance ``value`` is: ``Model(...)``, or a name bound to one.

        ``Model().get_data_loader(...)``, and ``model = Model(cfg)`` then
        ``model.get_data_loader(...)`` in the same function (its only binding
        there, ``None`` bindings aside), where ``Model`` is a class of the
        tree. A name bound to what a builder of the tree returns counts too,
        whole or as one element of a returned tuple (``trn_loader,
        val_loader, trainer = build_trainer(...)`` with ``return trn_loader,
        val_loader, EvalTrainer(...)``, or a name bound to that call in the
        builder): the builder's every return must give an instance of the
        same class.
        """
        module = self.modules[name]
        call = value if isinstance(value, ast.Call) else None
        position: int | None = None
        if isinstance(value, ast.Name):
            func = module.function_of(value)
            bound = self._plain_bindings(func if func is not None else module.tree)
            values = [  # a method called on the name runs on the instance, not on None
                v
                for v in bound.get(value.id, [])
                if not is_constant(v[0], None)
                # LANoire's ``video_encoder = video_encoder.VideoEncoder(...)``: on the
                # right, the name is still the module it was imported as
                and not any(n is value for n in ast.walk(v[0]))
            ]
            if len(values) == 1 and isinstance(values[0][0], ast.Call):
                call, position = values[0][0], values[0][1]
            elif not values and func is not None:
                return self._parameter_instance(name, func, value.id)
        # a constructor named by a plain or dotted name; bindings that lead back to a
        # name being resolved (``x = x.copy()``, ``a = b.f()`` with ``b = a.g()``) give none
        key = (name, id(value))
        if call is None or dotted(call.func) is None or key in self._resolving:
            return None
        self._resolving.add(key)
        try:
            where = self.named(name, call.func)
            if where is None:
                return None
            if where[1] in self.modules[where[0]].classes:
                return where if position is None else None
            return self._returned_instance(where, position)
        finally:
            self._resolving.discard(key)

    def _parameter_instance(self, name: str, func: Function, param: str) -> tuple[str, str] | None:
        """The one tree class whose instance every caller in the module passes for ``param``.

        DeepPlant's ``main(device, n_gpu, ..., data_class)``, started by
        ``mp.spawn(main, args=(n_gpu, ..., data_class))`` (the rank comes
        first) and called as ``main(device=..., data_class=data_class)`` on
        the CPU, both after ``data_class = load_dataset(...)``: inside
        ``main``, ``data_class.get_dataloader(...)`` is ``load_dataset``'s.
        Only a top-level function that ``mp.spawn`` starts is read (a worker,
        whose arguments its callers in its own module alone decide), and all
        of them must pass an instance of the same class. NOTE (measured): read
        for every function's parameters, this typing reached two evaluations
        of helpers no several-process run calls (gated-e2t's ``predict.py``,
        GenHPF's fairseq-style trainer, one process on every shipped config)
        and found nothing right beyond the spawned workers.
        """
        module = self.modules[name]
        params = parameters(func)
        key = (name, id(func))
        if (
            param not in params
            or not isinstance(module.parents.get(func), ast.Module)
            or key in self._resolving
        ):
            return None
        sites = [
            (call, passed)
            for call in module.calls
            if (passed := _passed_to(call, func, params, param)) is not None
        ]
        if not any(tail(call) == "spawn" for call, _ in sites):
            return None  # no worker: its callers' instances are not read (see above)
        self._resolving.add(key)
        try:
            found = {self._instance_class(name, passed) for _, passed in sites}
            return found.pop() if len(found) == 1 else None
        finally:
            self._resolving.discard(key)

    def _returned_instance(
        self, where: tuple[str, str], position: int | None
    ) -> tuple[str, str] | None:
        """The one tree class whose instance builder ``where`` returns (element ``position``)."""
        module = self.modules[where[0]]
        found: set[tuple[str, str] | None] = set()
        for func in module.functions.get(where[1], []):
            for node in ast.walk(func):
                if not isinstance(node, ast.Return) or module.function_of(node) is not func:
                    continue
                returned = node.value
                if position is not None:
                    if not isinstance(returned, ast.Tuple) or position >= len(returned.elts):
                        return None
                    returned = returned.elts[position]
                if returned is None or (
                    isinstance(returned, ast.Constant) and returned.value is None
                ):
                    continue
                found.add(self._instance_class(where[0], returned))
        if len(found) != 1:
            return None
        return found.pop()

    def _plain_bindings(self, scope: ast.AST) -> dict[str, list[tuple[ast.expr, int | None]]]:
        """``name = value`` assignments of one function (or module), by name; read once.

        An unpacked tuple target binds each name with its position in the value
        (``loader, trainer = build(...)``: ``trainer`` is element 1 of the call).
        """
        cached = self._bindings.get(id(scope))
        if cached is None:
            cached = {}
            for node in ast.walk(scope):
                if isinstance(node, ast.Assign):
                    for target in node.targets:
                        if isinstance(target, ast.Name):
                            cached.setdefault(target.id, []).append((node.value, None))
                        elif isinstance(target, ast.Tuple | ast.List) and not any(
                            isinstance(e, ast.Starred) for e in target.elts
                        ):
                            for index, element in enumerate(target.elts):
                                if isinstance(element, ast.Name):
                                    cached.setdefault(element.id, []).append((node.value, index))
            self._bindings[id(scope)] = cached
        return cached

    def _method(self, owner: tuple[str, str], method: str) -> tuple[str, str] | None:
        """``(module, method)`` where class ``owner`` defines ``method`` itself.

        A function imported into the class body is a method too
        (Discrete-Markov-Bridge's ``class DiscreteBridge:`` holds ``from
        .evaluate import evaluate``, a ``def evaluate(self, eval_dataLoader,
        ...)`` of another module): it is followed to where it is defined.
        """
        module = self.modules[owner[0]]
        for cls in module.classes.get(owner[1], []):
            for item in cls.body:
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) and item.name == method:
                    return owner[0], method
            for item in cls.body:
                if isinstance(item, ast.ImportFrom) and any(
                    (alias.asname or alias.name) == method for alias in item.names
                ):
                    target = self.imports(owner[0]).get(method)
                    where, _, name = (target or "").rpartition(".")
                    return self._defined(where, name) if where else None
        return None

    def _defined(self, owner: str, function: str, depth: int = 3) -> tuple[str, str] | None:
        """Where ``owner.function`` is defined, following re-exports up to ``depth`` hops.

        A package's ``__init__.py`` often re-exports (``from .loaders import
        make_data_loader``): the function is then followed to ``loaders``.
        """
        found = self.find(owner)
        if found is None:
            return None
        if function in self.modules[found].functions or function in self.modules[found].classes:
            return found, function
        target = self.imports(found).get(function)
        if depth == 0:
            return None
        if target is None:
            return self._starred(found, function, depth - 1)
        where, _, name = target.rpartition(".")
        return self._defined(where, name, depth - 1) if where else None

    def _starred(self, name: str, function: str, depth: int = 3) -> tuple[str, str] | None:
        """Where ``function``, a name module ``name`` gets from a star import, is defined.

        ``from util import *`` in ``main.py`` and ``from .engine import evaluate``
        in ``util/__init__.py``: ``evaluate(data_loader_val, ...)`` is
        ``util.engine.evaluate``. The first star source that defines or
        re-exports it wins, as Python's own binding would (the last import
        binds, but trees rarely star-import one name from two modules).
        """
        for source in self.star_sources(name):
            found = self._defined(source, function, depth)
            if found is not None:
                return found
        return None

    def _imported(self, name: str, facts: dict[str, set[str]]) -> set[str]:
        """Names module ``name`` calls that resolve to a function with the fact elsewhere."""
        return {
            tail(call)
            for call, (module, function) in self._calls_elsewhere(name, facts)
            if function in facts.get(module, ())
        }

    def _calls_elsewhere(
        self, name: str, facts: Mapping[str, Iterable[str]]
    ) -> Iterator[tuple[ast.Call, tuple[str, str]]]:
        """Calls of module ``name`` named like a function of ``facts`` that resolve elsewhere."""
        named = {function for functions in facts.values() for function in functions}
        if not named:
            return
        for call in self.modules[name].calls:
            for candidate in _branch_calls(self.modules[name], call):
                if tail(candidate) not in named:
                    continue
                where = self.resolve(name, candidate)
                if where is not None and where[0] != name:
                    yield candidate, where

    def calls_named(self, function: str) -> list[tuple[str, ast.Call]]:
        """Calls of the tree whose last name is ``function``, resolved or not (indexed once)."""
        if self._sites is None:
            self._sites = {}
            for owner, module in self.modules.items():
                for call in module.calls:
                    self._sites.setdefault(tail(call), []).append((owner, call))
        return self._sites.get(function, [])

    def called_only_on_other_classes(self, name: str, method: ast.AST) -> bool:
        """Every call of ``method``'s name in the tree is on an instance of another class.

        NOTE (the class): a tree of runner classes that share method names
        (``FrostRunner.wo_tar`` and ``FSRunner.wo_tar``) calls each name on
        one class only; a loop in the other's method runs on no shipped path.
        Each call is read by its receiver: ``self.m()`` inside a class that
        defines ``m`` itself, or an instance whose class the tree resolves
        (``runner = FrostRunner(...)``). Any call whose receiver cannot be
        read, or whose class inherits the method, may be this one: then
        ``False``; so is a name no call of the tree uses (a framework's hook).
        """
        module = self.modules[name]
        owner = module.parents.get(method)
        if not isinstance(method, ast.FunctionDef | ast.AsyncFunctionDef) or not isinstance(
            owner, ast.ClassDef
        ):
            return False
        calls = self.calls_named(method.name)
        if not calls:
            return False
        for home, call in calls:
            if not isinstance(call.func, ast.Attribute):
                return False
            receiver = call.func.value
            if isinstance(receiver, ast.Name) and receiver.id in ("self", "cls"):
                where = _enclosing_class(self.modules[home], call)
            else:
                where = self._instance_class(home, receiver)
            if where is None or where == (name, owner.name):
                return False
            if self._method(where, method.name) is None:
                return False  # inherited there: it may be this class's method
        return True

    def option_definition(self, option: str) -> ast.Call | None:
        """The tree's one ``add_argument`` call that defines ``option``.

        ``None`` where the tree defines the option more than once, or not at
        all, or is not read whole.
        """
        defined: list[ast.Call] = []
        for module in self.modules.values():
            for call in module.calls:
                if tail(call) != "add_argument":
                    continue
                flags = [
                    a.value
                    for a in call.args
                    if isinstance(a, ast.Constant) and isinstance(a.value, str)
                ]
                dests = {f.lstrip("-").replace("-", "_") for f in flags if f.startswith("--")}
                if option in dests:
                    defined.append(call)
        if len(defined) != 1 or self.root is None or not self.whole_tree:
            return None
        return defined[0]

    def option_default(self, option: str) -> ast.expr | None:
        """The default of the tree's one command-line option ``option``, where no run sets it.

        soseki's ``parser.add_argument("--val_use_multiple_key_dataset",
        action="store_true")`` in the model's own options, read back as
        ``self.hparams.val_use_multiple_key_dataset``: ``False`` when no
        launch file or README names the flag. ``None`` (unknown) where the
        tree defines the option more than once, or not at all, or a shipped
        text names it, or a notebook, config or Python line may set it
        (``option_setters``).
        """
        if option in self.option_defaults:
            return self.option_defaults[option]
        value: ast.expr | None = None
        call = self.option_definition(option)
        if (
            call is not None
            and self.root is not None
            and not launch_texts_name(self.root, option_flags(call))
            and not option_set_elsewhere(self.root, option, call)
        ):
            action = next((k.value for k in call.keywords if k.arg == "action"), None)
            default = next((k.value for k in call.keywords if k.arg == "default"), None)
            if default is not None:
                value = default
            elif isinstance(action, ast.Constant) and action.value in (
                "store_true",
                "store_false",
            ):
                value = ast.Constant(value=action.value == "store_false")
        self.option_defaults[option] = value
        return value

    def option_passed(self, option: str, values: Iterable[str]) -> bool:
        """A launch file or README of the tree passes one of ``values`` to ``option``.

        segmentation_distributed's README runs ``python train.py ... -p ddp``:
        the ``--parallel`` option is ``"ddp"`` on that run, whatever its default.
        """
        call = self.option_definition(option)
        if call is None or self.root is None:
            return False
        return launch_texts_pass(self.root, option_flags(call), list(values))

    def call_sites(self, name: str, function: str) -> list[tuple[str, ast.Call]]:
        """Every call in the tree that resolves to ``function`` of module ``name``."""
        return [
            (owner, call)
            for owner, call in self.calls_named(function)
            if self.resolve(owner, call) == (name, function)
        ]


def _name_pieces(node: ast.expr) -> list[str | None] | None:
    """A module name built from literals and computed parts: literals, ``None`` for the rest.

    ``f"pkg.{task}.expert"`` and ``"pkg." + task + ".expert"`` give ``["pkg.", None,
    ".expert"]``; anything else (a plain variable, a call) gives ``None``.
    """
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.JoinedStr):
        return [
            v.value if isinstance(v, ast.Constant) and isinstance(v.value, str) else None
            for v in node.values
        ]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _name_pieces(node.left), _name_pieces(node.right)
        return [*(left or [None]), *(right or [None])]
    return None


def _enclosing_class(module: Module, node: ast.AST) -> tuple[str, str] | None:
    """``(module, class)`` of the class whose method holds ``node``."""
    name = module.cache.get("module_name")
    for ancestor in module.ancestors(node):
        if isinstance(ancestor, ast.ClassDef):
            return (name, ancestor.name) if name is not None else None
    return None


def _own_method(name: str, module: Module, func: ast.Attribute) -> tuple[str, str] | None:
    """``self.build_dataloader``: the method of that name of the class the call sits in.

    A data provider's ``__init__`` often builds every split through one
    method (``self.valid = self.build_dataloader(val_dataset, ...)``): the
    call resolves to the method that the enclosing class itself defines
    (base classes and overrides in subclasses are not followed).
    """
    for ancestor in module.ancestors(func):
        if isinstance(ancestor, ast.ClassDef):
            for item in ancestor.body:
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) and (
                    item.name == func.attr
                ):
                    return name, func.attr
            return None
    return None


# ------------------------------------------------------------- reaching evaluation
#: ("in", ("Kind.DISTRIBUTED",)), ("notin", ("-1", "0")) (the body of ``rank not in (-1, 0)``
#: or the ``else`` of ``rank in (-1, 0)``), ("truthy", True)
Requirement = tuple[str, tuple[str, ...] | bool]
Function = ast.FunctionDef | ast.AsyncFunctionDef

_MEMBER = {ast.Eq: "in", ast.Is: "in", ast.In: "in", ast.NotEq: "notin", ast.IsNot: "notin"}
_MEMBER[ast.NotIn] = "notin"
#: Ordering tests of a parameter against a number (``world_size > 1``), as requirement kinds.
_ORDER = {ast.Gt: "gt", ast.GtE: "ge", ast.Lt: "lt", ast.LtE: "le"}
_ORDER_OPS = {kind: op for op, kind in _ORDER.items()}
_ORDER_NEGATED = {"gt": "le", "ge": "lt", "lt": "ge", "le": "gt"}
_ORDER_MIRRORED = {"gt": "lt", "ge": "le", "lt": "gt", "le": "ge"}  # ``1 < world_size``


def _values(node: ast.expr, op: ast.cmpop) -> tuple[str, ...] | None:
    """The literal values a comparison tests against (``-1``; ``(-1, 0)`` for ``in``)."""
    if isinstance(op, ast.In | ast.NotIn):
        if not isinstance(node, ast.Tuple | ast.List | ast.Set):
            return None
        items = node.elts
    else:
        items = [node]
    if not all(isinstance(i, ast.Constant | ast.UnaryOp | ast.Attribute) for i in items):
        return None
    return tuple(ast.unparse(i) for i in items)


def parameter_test(test: ast.expr, params: set[str]) -> tuple[str, Requirement] | None:
    """What ``test`` holding says of one parameter: every comparison form, negations too.

    ``rank == -1``, ``rank != -1``, ``-1 != rank``, ``rank is None``,
    ``local_rank in (-1, 0)``, ``rank not in [-1, 0]``, ``not (rank == 0)``,
    ``world_size > 1``, ``1 < world_size``,
    ``is_train``, ``not is_train``: ``(name, requirement)``, or ``None`` when
    the test reads no parameter in a form that can be bound to a call site.
    """
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = parameter_test(test.operand, params)
        return None if inner is None else (inner[0], _negated(inner[1]))
    if isinstance(test, ast.Name) and test.id in params:
        return test.id, ("truthy", True)
    if not isinstance(test, ast.Compare) or len(test.ops) != 1:
        return None
    op, left, right = test.ops[0], test.left, test.comparators[0]
    if type(op) in _ORDER:
        return _order_test(_ORDER[type(op)], left, right, params)
    kind = _MEMBER.get(type(op))
    if kind is None:
        return None
    swapped = isinstance(right, ast.Name) and right.id in params
    if swapped and not isinstance(op, ast.In | ast.NotIn):
        left, right = right, left  # ``-1 != rank``
    if not (isinstance(left, ast.Name) and left.id in params):
        return None
    values = _values(right, op)
    return None if values is None else (left.id, (kind, values))


def _order_test(
    kind: str, left: ast.expr, right: ast.expr, params: set[str]
) -> tuple[str, Requirement] | None:
    """``world_size > 1`` (or ``1 < world_size``): the parameter against a number."""
    if isinstance(right, ast.Name) and right.id in params:
        left, right, kind = right, left, _ORDER_MIRRORED[kind]
    if not (isinstance(left, ast.Name) and left.id in params) or _number(right) is None:
        return None
    return left.id, (kind, (ast.unparse(right),))


def _number(node: ast.AST | None) -> float | None:
    """An int or float literal (``1``, ``-1``, ``0.5``); not a bool."""
    try:
        value = ast.literal_eval(node) if node is not None else None
    except (ValueError, SyntaxError, TypeError):
        return None
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _order_holds(need: Requirement, given: ast.expr | None) -> bool | None:
    """Whether a number ``given`` meets an ordering requirement (``None``: not a number)."""
    kind, value = need
    number = _number(given)
    bound = _number(ast.parse(value[0], mode="eval").body) if isinstance(value, tuple) else None
    if number is None or bound is None:
        return None
    return compare_literals(_ORDER_OPS[kind](), number, bound)


def _negated(need: Requirement) -> Requirement:
    kind, value = need
    if kind in _ORDER_NEGATED:
        return _ORDER_NEGATED[kind], value
    if isinstance(value, bool):
        return kind, not value
    if kind in ("when", "unless"):
        return ("unless" if kind == "when" else "when"), value
    return ("notin" if kind == "in" else "in"), value


#: Built-in types an ``isinstance`` test of a parameter may name.
_SHAPE_TYPES = {"list": ast.List, "tuple": ast.Tuple, "dict": ast.Dict, "set": ast.Set}


def shape_test(test: ast.expr, params: set[str]) -> tuple[str, Requirement] | None:
    """A test of one parameter's container type and length: ``("when", (source,))``.

    genmorpho's ``if isinstance(batch_size, (list, tuple)) and len(batch_size) > 0:``
    with every caller passing ``[args.batch_size]``: the ``else`` never runs.
    Read only when the test names one parameter, through ``isinstance`` with
    built-in container types, ``len``, integer comparisons, ``and``, ``or``
    and ``not``; :func:`_shape_holds` evaluates it for a display a site passes.
    """
    names = {n.id for n in ast.walk(test) if isinstance(n, ast.Name) and n.id in params}
    if len(names) != 1:
        return None
    (param,) = names
    if _shape_value(test, param, None) is _UNREAD:
        return None
    return param, ("when", (ast.unparse(test),))


#: An evaluation :func:`_shape_value` cannot make.
_UNREAD = object()


def _shape_value(node: ast.AST, param: str, given: ast.expr | None) -> object:
    """``node``'s value with ``param`` bound to the display ``given`` (``None``: check only)."""
    if isinstance(node, ast.BoolOp):
        values = [_shape_value(v, param, given) for v in node.values]
        if any(v is _UNREAD for v in values):
            return _UNREAD
        if given is None:
            return True
        return all(values) if isinstance(node.op, ast.And) else any(values)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        inner = _shape_value(node.operand, param, given)
        return inner if inner is _UNREAD or given is None else not inner
    if isinstance(node, ast.Constant) and type(node.value) in (int, bool):
        return node.value
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
        args = node.args
        if node.func.id == "len" and len(args) == 1 and _is_param(args[0], param):
            if given is None:
                return 0
            return len(given.elts) if isinstance(given, ast.List | ast.Tuple | ast.Set) else _UNREAD
        if node.func.id == "isinstance" and len(args) == 2 and _is_param(args[0], param):
            kinds = args[1].elts if isinstance(args[1], ast.Tuple) else [args[1]]
            if not all(isinstance(k, ast.Name) and k.id in _SHAPE_TYPES for k in kinds):
                return _UNREAD
            if given is None:
                return True
            if isinstance(given, ast.Constant | ast.JoinedStr):
                return False  # a number, a string, None: no container
            known = isinstance(given, tuple(_SHAPE_TYPES.values()))
            if not known:
                return _UNREAD
            return any(
                isinstance(given, _SHAPE_TYPES[k.id]) for k in kinds if isinstance(k, ast.Name)
            )
        return _UNREAD
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        left = _shape_value(node.left, param, given)
        right = _shape_value(node.comparators[0], param, given)
        if left is _UNREAD or right is _UNREAD:
            return _UNREAD
        if given is None:
            return True
        ops = {ast.Gt: int.__gt__, ast.GtE: int.__ge__, ast.Lt: int.__lt__, ast.LtE: int.__le__}
        ops.update({ast.Eq: int.__eq__, ast.NotEq: int.__ne__})
        compare = ops.get(type(node.ops[0]))
        if compare is None or not isinstance(left, int) or not isinstance(right, int):
            return _UNREAD
        return compare(int(left), int(right))
    return _UNREAD


def _is_param(node: ast.AST, param: str) -> bool:
    return isinstance(node, ast.Name) and node.id == param


def _shape_holds(source: str, param: str, given: ast.expr | None) -> bool | None:
    """Whether the shape test ``source`` holds for the display ``given``; ``None``: unknown."""
    if given is None:
        return None
    value = _shape_value(ast.parse(source, mode="eval").body, param, given)
    return None if value is _UNREAD else bool(value)


def _requirements(mod: Module, node: ast.AST, func: Function) -> dict[str, Requirement]:
    """What ``func``'s parameters must be for ``node`` to run (``if kind == X:`` around it)."""
    params = set(parameters(func))
    out: dict[str, Requirement] = {}
    child: ast.AST = node
    for ancestor in mod.ancestors(node):
        for guard in _guards_before(ancestor, child):
            found = parameter_test(guard.test, params)
            if found is not None:
                out.setdefault(found[0], _negated(found[1]))
        if ancestor is func:
            break
        if isinstance(ancestor, ast.If | ast.IfExp) and child is not ancestor.test:
            if isinstance(ancestor, ast.If):
                in_body = child in ancestor.body
            else:
                in_body = child is ancestor.body
            test = ancestor.test
            if in_body and isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
                tests = test.values  # ``if is_train and cfg.sampler == "ra":``: each holds
            else:
                tests = [test]
            for part in tests:
                found = parameter_test(part, params) or shape_test(part, params)
                if found is not None:
                    name, need = found
                    out.setdefault(name, need if in_body else _negated(need))
        child = ancestor
    return out


def _guards_before(block: ast.AST, child: ast.AST) -> list[ast.If]:
    """``if test: return ...`` statements before ``child`` in ``block``: it runs when they fail."""
    for part in ("body", "orelse", "finalbody"):
        statements = getattr(block, part, None)
        if isinstance(statements, list) and child in statements:
            before = statements[: statements.index(child)]
            return [
                s
                for s in reversed(before)
                if isinstance(s, ast.If)
                and not s.orelse
                and isinstance(s.body[-1], ast.Return | ast.Raise)
            ]
    return []


def _same_value(text: str, given: ast.expr) -> bool:
    shown = ast.unparse(given)
    return shown == text or shown.rpartition(".")[2] == text.rpartition(".")[2] != ""


#: Names an option object goes by (``args.x``, ``self.hparams.x``, ``opt.x``).
_OPTION_HOLDERS = frozenset({"args", "hparams", "opt", "opts", "options", "flags"})


def _passed_to(call: ast.Call, func: Function, params: list[str], param: str) -> ast.expr | None:
    """What ``call`` passes for ``func``'s parameter ``param``, if it calls or spawns ``func``.

    ``main(..., data_class=data_class)`` passes it by keyword or position;
    ``mp.spawn(main, args=(n_gpu, data_class))`` passes the ``args`` tuple
    after the rank it puts first.
    """
    if isinstance(call.func, ast.Name) and call.func.id == func.name:
        return bound_argument(call, func, param)
    if not (tail(call) == "spawn" and call.args and isinstance(call.args[0], ast.Name)):
        return None
    if call.args[0].id != func.name:
        return None
    given = argument(call, "args", 1)
    index = params.index(param) - 1
    if not isinstance(given, ast.Tuple) or not 0 <= index < len(given.elts):
        return None
    return given.elts[index]


def _option_passed(project: Project, given: ast.expr, values: tuple[object, ...]) -> bool:
    """``args.parallel``, where a shipped line passes one of the string ``values`` for it."""
    if not isinstance(given, ast.Attribute):
        return False
    holder = (dotted(given.value) or "").rpartition(".")[2]
    if holder not in _OPTION_HOLDERS:
        return False
    texts: list[str] = []
    for value in values:
        try:
            literal = ast.literal_eval(value) if isinstance(value, str) else value
        except (ValueError, SyntaxError):
            return False
        if not isinstance(literal, str):
            return False
        texts.append(literal)
    return project.option_passed(given.attr, texts)


def _option_value(project: Project, given: ast.expr) -> ast.expr | None:
    """``self.hparams.flag`` read as its option's default, where no shipped run sets it."""
    if not isinstance(given, ast.Attribute):
        return None
    holder = (dotted(given.value) or "").rpartition(".")[2]
    if holder not in _OPTION_HOLDERS:
        return None
    return project.option_default(given.attr)


def _bind(
    func: Function,
    site: ast.Call,
    needs: dict[str, Requirement],
    outer: Function | None,
    project: Project | None = None,
) -> dict[str, Requirement] | None:
    """Whether the call site meets ``needs``; returns what it leaves to its own caller.

    ``None``: the site cannot reach the branch (it passes another value, or a
    value that cannot be read here). A requirement on a parameter the site
    passes straight through from its own function moves up to that function.
    An option the site passes (``use_keys=self.hparams.val_use_keys``) is
    read as its default where no shipped run sets it (``Project.option_default``).
    """
    params = parameters(func)
    outer_params = set(parameters(outer)) if outer is not None else set()
    defaults = defaults_of(func)
    left: dict[str, Requirement] = {}
    for param, (kind, value) in needs.items():
        given = bound_argument(site, func, param) if param in params else None
        if given is None:
            given = defaults.get(param)
        if given is not None and project is not None:
            given = _option_value(project, given) or given
        if given is None:
            if value == ONE_REPLICA and kind == "notin":
                continue  # a world size that cannot be read: assume several ranks
            return None
        if isinstance(given, ast.Name) and given.id in outer_params:
            left[given.id] = (kind, value)
        elif kind in _ORDER_OPS:
            if _order_holds((kind, value), given) is False:
                return None  # a number that fails the test; anything else may meet it
        elif kind in ("when", "unless"):
            assert isinstance(value, tuple)
            holds = _shape_holds(value[0], param, given)
            if holds is not None and holds != (kind == "when"):
                return None
        elif isinstance(value, tuple):
            if any(_same_value(v, given) for v in value) != (kind == "in") and not (
                kind == "in" and project is not None and _option_passed(project, given, value)
            ):
                return None  # another value, or an option no shipped line sets to one of them
        elif isinstance(given, ast.Constant):
            if bool(given.value) != value:
                return None
        elif not (value is True and asks_distributed(param)) and not (
            value is False and asks_single_process(param)
        ):
            return None  # a flag that cannot be read here: the branch counts as unreached
    return left


#: Words of a parameter that says whether the run is distributed (``distributed``, ``use_ddp``).
_DISTRIBUTED_WORDS = frozenset({"distributed", "ddp", "dist"})


def asks_distributed(param: str) -> bool:
    """The parameter says whether the run is distributed: ``if distributed:`` is the multi-GPU path.

    A call site that passes a value that cannot be read here
    (``build_dataloader(cfg, False, args.distributed)``) reaches that branch
    when the script runs on several GPUs, the only case the linter is about;
    any other flag that cannot be read leaves its branch unreached.
    """
    words = set(name_words(param))
    return bool(_DISTRIBUTED_WORDS & words) and not words & _NEGATIONS


#: Words that turn a distributed flag around (``not_distributed``, ``no_ddp``, ``non_dist``).
_NEGATIONS = frozenset({"not", "no", "non", "without", "disable", "disabled"})


def asks_single_process(param: str) -> bool:
    """The parameter says the run is *not* distributed: ``if not_distributed:`` is one process.

    Its ``else`` is the multi-GPU path, which a call site passing a value that
    cannot be read here (``_get_data_loader(cfg, val_set, bs, not_distributed)``
    with ``not_distributed`` computed from the config) reaches on several GPUs.
    """
    words = set(name_words(param))
    negated = bool(_DISTRIBUTED_WORDS & words and words & _NEGATIONS)
    return negated or bool({"single"} & words and {"gpu", "process", "proc", "device"} & words)


def evaluation_caller(
    project: Project,
    name: str,
    call: ast.Call,
    depth: int = MAX_CALLER_DEPTH,
    passed_over: Callable[[Module], bool] | None = None,
    needs: Mapping[str, Requirement] | None = None,
) -> str | None:
    """``path:line`` of an evaluation call site that reaches ``call`` through its callers.

    ``call`` sits in a function whose own names say neither training nor
    evaluation; its callers are searched (up to ``depth`` levels) for one
    whose names say evaluation (``val_loader = build_loader(...)``,
    ``def evaluate(...)``), passing arguments that reach ``call``'s branch
    (the branches of the functions in between too: a builder that dispatches
    on ``dataset_name == "cifar10"`` is followed where the call site passes a
    literal) and a world size other than a literal 1 (one replica pads
    nothing). :func:`evaluation_site` gives the site itself. A call site in a
    module that ``passed_over`` holds for is not taken (an entry script that
    every shipped line runs as one process: its evaluation pads nothing).
    ``needs`` adds what the caller must pass for ``call`` to matter
    (``{"drop_last": ("truthy", False)}``: a sampler that pads only then).
    """
    found = _caller_site(project, name, call, depth, "eval", passed_over, needs)
    if found is None:
        return None
    return f"{Path(project.paths[found[0]]).as_posix()}:{found[1].lineno}"


def evaluation_site(
    project: Project, name: str, call: ast.Call, depth: int = MAX_CALLER_DEPTH
) -> tuple[str, ast.Call] | None:
    """The module and the call site that :func:`evaluation_caller` names, or ``None``."""
    return _caller_site(project, name, call, depth, "eval")


def training_site(
    project: Project, name: str, call: ast.Call, depth: int = MAX_CALLER_DEPTH
) -> tuple[str, ast.Call] | None:
    """A call site whose names say training that reaches ``call`` through its callers.

    The counterpart of :func:`evaluation_site`: ``self.train_dataloader =
    get_dataset(...)`` reaches the sampler a neutral builder makes, on the
    same branch and world-size terms.
    """
    return _caller_site(project, name, call, depth, "train")


def _caller_site(
    project: Project,
    name: str,
    call: ast.Call,
    depth: int,
    want: str,
    passed_over: Callable[[Module], bool] | None = None,
    extra: Mapping[str, Requirement] | None = None,
) -> tuple[str, ast.Call] | None:
    mod = project.modules[name]
    func = mod.function_of(call)
    if func is None:
        return None
    needs = _requirements(mod, call, func)
    for param, need in (extra or {}).items():
        needs.setdefault(param, need)
    for param, need in _use_requirements(mod, call, func).items():
        needs.setdefault(param, need)
    world = replica_parameter(call, parameters(func))
    if world is not None:
        needs.setdefault(world, ("notin", ONE_REPLICA))
    return _search(project, name, func, needs, depth, call, want, passed_over)


def _use_requirements(mod: Module, call: ast.Call, func: Function) -> dict[str, Requirement]:
    """What ``func``'s parameters must be for the object ``call`` builds to be used at all.

    A builder may make its sampler for every split and hand it on only
    under a flag: ``DataLoader(..., sampler=sampler if train else None)``
    and ``if train: return loader, dataset, sampler``. Where every read of
    the name the call is assigned to sits under the same parameter test,
    a call site that fails the test builds the sampler for nothing: no
    loader of that call iterates it. Empty when the call is not assigned
    to a plain name, when the name is never read, or when its reads need
    different things.
    """
    statement = next((a for a in mod.ancestors(call) if isinstance(a, ast.stmt)), None)
    if not (
        isinstance(statement, ast.Assign)
        and len(statement.targets) == 1
        and isinstance(statement.targets[0], ast.Name)
    ):
        return {}
    name = statement.targets[0].id
    reads = [
        node
        for node in ast.walk(func)
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load)
    ]
    if not reads:
        return {}
    common = _requirements(mod, reads[0], func)
    for read in reads[1:]:
        found = _requirements(mod, read, func)
        common = {k: v for k, v in common.items() if found.get(k) == v}
    return common


def _search(
    project: Project,
    name: str,
    func: Function,
    needs: dict[str, Requirement],
    depth: int,
    origin: ast.AST,
    want: str = "eval",
    passed_over: Callable[[Module], bool] | None = None,
) -> tuple[str, ast.Call] | None:
    """A call site of ``func`` that reaches ``origin`` (in ``func``) for ``want``.

    ``want`` is ``"eval"`` or ``"train"``, as the names at the site say; sites
    in a module ``passed_over`` holds for are not taken.
    """
    for owner, site in project.call_sites(name, _called_as(project.modules[name], func)):
        module = project.modules[owner]
        if passed_over is not None and passed_over(module):
            continue
        outer = module.function_of(site)
        left = _bind(func, site, needs, outer, project)
        if left is None:
            continue
        verdict = context_of(module, site)
        if verdict is None:
            verdict = position_verdict(func, origin, module, site)
        if verdict is None and want == "eval" and evaluation_split_loop(module, site):
            verdict = "eval"
        if verdict == want:
            return owner, site
        if verdict is not None or outer is None or depth <= 1 or outer is func:
            continue
        for param, need in _requirements(module, site, outer).items():
            left.setdefault(param, need)  # the branch of ``outer`` the site sits in
        found = _search(project, owner, outer, left, depth - 1, site, want, passed_over)
        if found is not None:
            return found
    return None


def _called_as(mod: Module, func: Function) -> str:
    """The name a call of ``func`` is written with: its class's for a constructor.

    segmentation_distributed's ``ADE20KDataLoader.__init__`` builds its
    sampler; the tree calls it as ``ADE20KDataLoader(..., split='training')``,
    never as ``__init__``.
    """
    owner = mod.parents.get(func)
    if func.name == "__init__" and isinstance(owner, ast.ClassDef):
        return owner.name
    return func.name


def passed_argument(func: Function, site: ast.Call, param: str) -> ast.expr | None:
    """What ``site`` passes for ``param`` of ``func``.

    Its default where the site passes nothing and spreads no ``**kwargs``
    (which could carry it).
    """
    given = bound_argument(site, func, param) if param in parameters(func) else None
    if given is None and not any(k.arg is None for k in site.keywords):
        given = defaults_of(func).get(param)
    return given


def _contradicts(
    need: Requirement,
    given: ast.expr | None,
    param: str = "",
    evaluate: Callable[[ast.expr], bool | None] | None = None,
) -> bool:
    """``given`` is a literal that cannot meet ``need`` (anything else may).

    A truth requirement is also contradicted by a value ``evaluate`` reads
    as the other truth on every shipped run.
    """
    kind, value = need
    if kind in ("when", "unless") and isinstance(value, tuple):
        holds = _shape_holds(value[0], param, given)
        return holds is not None and holds != (kind == "when")
    if kind in _ORDER_OPS:
        return _order_holds(need, given) is False
    if given is not None and not isinstance(given, ast.Constant) and evaluate is not None:
        truth = evaluate(given) if isinstance(value, bool) else None
        return truth is not None and truth != value
    if not isinstance(given, ast.Constant):
        return False
    if isinstance(value, bool):
        return bool(given.value) != value
    return any(_same_value(v, given) for v in value) != (kind == "in")


def unreached_by_callers(project: Project, name: str, call: ast.Call) -> bool:
    """Every call site of ``call``'s function passes literals that skip its branch.

    ``create_loader(..., is_training)`` builds its evaluation sampler in the
    ``else`` of ``if is_training:``; where the tree calls it, and only with
    ``is_training=True``, that branch never runs. No call site in the tree,
    or one whose argument cannot be read, leaves the branch reachable.
    """
    mod = project.modules[name]
    func = mod.function_of(call)
    if func is None or _handed_on(project, func.name):
        return False
    sites = project.call_sites(name, func.name)
    return bool(sites) and all(_skipped_at(mod, call, site) for _, site in sites)


def _handed_on(project: Project, function: str) -> bool:
    """Some module names ``function`` other than to call it: its callers are not all seen.

    llm_fsdp's ``main`` calls ``fsdp_main(0, 1, cfg)`` on one GPU and hands
    ``fsdp_main`` to ``mp.spawn`` with the GPU count on several: the literal
    call alone does not say that ``if world_size > 1:`` is never taken.
    """
    for module in project.modules.values():
        for node in module.nodes:
            named = (isinstance(node, ast.Name) and node.id == function) or (
                isinstance(node, ast.Attribute) and node.attr == function
            )
            if not named or not isinstance(getattr(node, "ctx", None), ast.Load):
                continue
            parent = module.parents.get(node)
            if not (isinstance(parent, ast.Call) and parent.func is node):
                return True
    return False


def _skipped_at(
    mod: Module,
    node: ast.AST,
    site: ast.Call,
    evaluate: Callable[[ast.expr], bool | None] | None = None,
) -> bool:
    """``site``, a call of ``node``'s function, passes literals (or leaves defaults) that skip it.

    ``get_data_loaders(name, bs)`` with ``is_distributed=False`` by default never
    builds the sampler under ``if is_distributed:``. ``evaluate`` reads an
    argument that is no literal on every shipped run, where it can: NLPLab's
    ``distributed=(args.n_gpu > 1)``, whose one shipped line passes ``--n_gpu 1``.
    """
    func = mod.function_of(node)
    if func is None:
        return False
    needs = _requirements(mod, node, func)
    return any(
        _contradicts(need, passed_argument(func, site, param), param, evaluate)
        for param, need in needs.items()
    )


def imported_modules(mod: Module) -> list[Module]:
    """The modules of ``mod``'s linted tree that it imports (none outside a project).

    SUEF's ``train_ddp.py`` imports ``utils.ddp_utils``, whose
    ``init_distributed_mode`` calls ``torch.cuda.set_device(config.rank)``.
    """
    project: Project | None = mod.cache.get("project")
    if project is None:
        return []
    found: list[Module] = []
    for target in project.imports(mod.cache["module_name"]).values():
        for candidate in (target, target.rpartition(".")[0]):
            name = project.find(candidate) if candidate else None
            if name is not None and name != mod.cache["module_name"]:
                found.append(project.modules[name])
                break
    return found


def importers(mod: Module) -> list[Module]:
    """The modules of ``mod``'s linted tree that import it (none outside a project)."""
    project: Project | None = mod.cache.get("project")
    if project is None:
        return []
    name = mod.cache["module_name"]
    return [
        other
        for owner, other in project.modules.items()
        if owner != name and project.imports_module(owner, name)
    ]


def entry_scripts(mod: Module) -> list[Module]:
    """The modules of the tree that import ``mod`` (through any chain) and that nothing imports.

    The scripts a helper runs in: TASA's ``TASA.py`` for ``model/evaluator.py``;
    CMC_Mol's ``pretrain_lightning.py``, through its data module, for the
    ``split_dataset`` of ``utils.py``. Empty for a module nothing imports (or
    one imported only in a cycle).
    """
    seen = {id(mod)}
    todo = [mod]
    entries: list[Module] = []
    while todo:
        for other in importers(todo.pop()):
            if id(other) in seen:
                continue
            seen.add(id(other))
            if importers(other):
                todo.append(other)
            else:
                entries.append(other)
    return entries
