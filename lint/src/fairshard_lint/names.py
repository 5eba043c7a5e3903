"""AST helpers shared by the lint rules: names, arguments and rank-dependence.

Everything here reads the syntax tree only; nothing is imported or run.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .newer_syntax import NEEDS_FALLBACK, with_inner_quotes_swapped, without_type_parameters

__all__ = [
    "conditional_arms",
    "fails_to_bind",
    "misses_an_argument",
    "Module",
    "argument",
    "calls",
    "dotted",
    "config_entry",
    "env_key",
    "is_config_lookup",
    "is_constant",
    "is_eval_name",
    "is_main_guard",
    "is_train_name",
    "keyed_path",
    "loader_shuffles",
    "mentions_local_rank",
    "mentions_rank",
    "name_words",
    "option_flags",
    "tail",
]

#: Names (variables or attributes) that hold a process's rank.
RANK_NAMES = frozenset(
    {
        "rank",
        "local_rank",
        "global_rank",
        "world_rank",
        "node_rank",
        "process_index",
        "local_process_index",
        "proc_id",
        "gpu_id",
    }
)
#: Functions that return a rank.
RANK_FUNCTIONS = frozenset({"get_rank", "get_local_rank", "get_node_local_rank"})
#: Environment variables that hold a rank.
RANK_VARIABLES = frozenset(
    {
        "RANK",
        "LOCAL_RANK",
        "GROUP_RANK",
        "NODE_RANK",
        "SLURM_PROCID",
        "SLURM_LOCALID",
        "OMPI_COMM_WORLD_RANK",
    }
)


#: Names, functions and environment variables that hold a rank *within one node*.
LOCAL_RANK_NAMES = frozenset({"local_rank", "local_process_index", "gpu", "gpu_id", "local_id"})
LOCAL_RANK_FUNCTIONS = frozenset({"get_local_rank", "get_node_local_rank"})
LOCAL_RANK_VARIABLES = frozenset({"LOCAL_RANK", "SLURM_LOCALID", "OMPI_COMM_WORLD_LOCAL_RANK"})

#: Words that mark a name as evaluation (a loader, sampler, dataset or function).
EVAL_WORDS = frozenset(
    {
        "eval",
        "evaluate",
        "evaluation",
        "val",
        "valid",
        "validate",
        "validation",
        "test",
        "testing",
        "infer",
        "inference",
        "predict",
        "prediction",
        "dev",
        "holdout",
    }
)

_WORD_SPLIT = re.compile(r"[^A-Za-z0-9]+|(?<=[a-z0-9])(?=[A-Z])")


def name_words(name: str) -> list[str]:
    """Lower-case words of an identifier: ``valLoader.x_test`` -> ``[val, loader, x, test]``."""
    return [w.lower() for w in _WORD_SPLIT.split(name) if w]


#: Words that mark a name as training (``train_loader``, ``is_train``, ``dataset_train``).
TRAIN_WORDS = frozenset({"train", "training", "trn"})


#: What a run-together name puts after its split (``validloader``, ``testdataset``).
_DATA_TAILS = ("dataloader", "loader", "dataset", "data", "set", "sampler", "queue", "iter")


def _compound(word: str, heads: frozenset[str]) -> bool:
    """``validloader``, ``trainset``: a split word run together with a data word."""
    return any(word.endswith(tail_) and word[: -len(tail_)] in heads for tail_ in _DATA_TAILS)


def is_train_name(name: str) -> bool:
    """The identifier names training: ``train_sampler``, ``dataset_train``, ``trainloader``."""
    return any(word in TRAIN_WORDS or _compound(word, TRAIN_WORDS) for word in name_words(name))


def is_eval_name(name: str) -> bool:
    """The identifier names evaluation: ``val_loader``, ``dataset_test``, ``testdataset``.

    Whole words only, or a split word run together with a data word
    (``validloader``), so ``interval`` or ``latest`` do not count.
    """
    return any(word in EVAL_WORDS or _compound(word, EVAL_WORDS) for word in name_words(name))


def source_position(node: ast.AST) -> tuple[int, int]:
    """``(line, column)`` of a node, to order calls and statements in one file."""
    return (getattr(node, "lineno", 0), getattr(node, "col_offset", 0))


def dotted(node: ast.AST) -> str | None:
    """``a.b.c`` for a chain of names and attributes, else ``None``."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def tail(call: ast.Call) -> str:
    """The last name of the called function: ``DataLoader`` in ``data.DataLoader(...)``."""
    func = call.func
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return ""


def option_flags(call: ast.Call) -> list[str]:
    """The flags an ``add_argument`` call defines (``-p``, ``--parallel``)."""
    return [
        a.value
        for a in call.args
        if isinstance(a, ast.Constant) and isinstance(a.value, str) and a.value[:1] == "-"
    ]


def argument(call: ast.Call, name: str, position: int | None = None) -> ast.expr | None:
    """The argument bound to parameter ``name`` (keyword, or positional ``position``)."""
    for keyword in call.keywords:
        if keyword.arg == name:
            return keyword.value
    if position is not None and position < len(call.args):
        candidate = call.args[position]
        if not any(isinstance(a, ast.Starred) for a in call.args[: position + 1]):
            return candidate
    return None


def is_constant(node: ast.AST | None, value: object) -> bool:
    """``node`` is the literal ``value`` (``True``, ``False``, ``None``...)."""
    return isinstance(node, ast.Constant) and node.value is value


def loader_shuffles(call: ast.Call) -> bool:
    """A ``DataLoader(...)`` call passes ``shuffle=True`` (keyword or third positional)."""
    return is_constant(argument(call, "shuffle", 2), True)


def _get_key(node: ast.AST) -> str | None:
    """``d.get("seed", ...)``: the constant string key it reads, else ``None``."""
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "get"
        and node.args
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
    ):
        return node.args[0].value
    return None


#: Built-in conversions a configuration value is read through (``int(cfg.trainer.devices)``).
_CONVERSIONS = frozenset({"int", "bool", "str", "float"})


def config_entry(node: ast.AST | None) -> tuple[tuple[str, ...], ast.expr | None] | None:
    """The key path a configuration lookup reads, and the default its ``.get`` gives.

    ``config["training"].get("devices", 1)`` is ``(("training", "devices"), 1)``,
    ``cfg.trainer.gpus`` is ``(("trainer", "gpus"), None)``: the keys under the
    root name (and under ``self.<holder>`` for ``self.config[...]``), through
    a built-in conversion (SeismoNN's ``devices=int(config.trainer.devices)``).
    ``None`` for anything else (a call, a non-constant key).
    """
    if node is None:
        return None
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in _CONVERSIONS
        and len(node.args) == 1
        and not node.keywords
    ):
        node = node.args[0]  # int(config.trainer.devices) reads the same entry
    default: ast.expr | None = None
    keys: list[str] = []
    got = _get_key(node)
    if got is not None:
        assert isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
        default = node.args[1] if len(node.args) > 1 else None
        keys.append(got)
        node = node.func.value
    while True:
        if isinstance(node, ast.Subscript):
            key = node.slice
            if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
                return None
            keys.append(key.value)
            node = node.value
        elif isinstance(node, ast.Attribute):
            keys.append(node.attr)
            node = node.value
        else:
            break
    if not isinstance(node, ast.Name) or not keys:
        return None
    if node.id == "self":
        keys.pop()  # self.config["training"]: the holder is no key
    return tuple(reversed(keys)), default


def _key_words(node: ast.AST) -> list[str]:
    """The words of the last key of a lookup: ``"shuffle"`` in ``cfg["loader"]["shuffle"]``."""
    if isinstance(node, ast.Subscript):
        key = node.slice
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            return name_words(key.value)
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name | ast.Attribute):
        return name_words(node.attr)
    got = _get_key(node)
    return [] if got is None else name_words(got)


def is_config_lookup(node: ast.AST | None, word: str) -> bool:
    """A value read from a configuration under a key that says ``word``.

    ``hparams["dataloader_options"]["shuffle"]``, ``cfg.get("shuffle", False)``,
    ``config.data.train.shuffle``: what the flag is lives in a YAML file or on
    the command line, so the script alone cannot say it is ``False`` (a plain
    name such as a function's ``shuffle`` parameter is not a lookup).
    """
    return node is not None and word in _key_words(node)


def env_key(node: ast.AST) -> str | None:
    """The variable name in ``os.environ["X"]``, ``os.environ.get("X")``, ``os.getenv("X")``."""
    if isinstance(node, ast.Subscript) and (dotted(node.value) or "").endswith("environ"):
        key = node.slice
        return key.value if isinstance(key, ast.Constant) and isinstance(key.value, str) else None
    if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
        name = dotted(node.func) or ""
        if name.endswith(("environ.get", "getenv")) and isinstance(node.args[0].value, str):
            return node.args[0].value
    return None


def keyed_path(node: ast.AST) -> str | None:
    """``a.b['k']['j']`` for a chain of constant string keys over a dotted name, else ``None``.

    The names of dict entries that :func:`mentions_rank` tracks one by one
    (``self.config["cmd"]["seed"]`` apart from ``self.config["cmd"]["timestamp_id"]``).
    """
    keys: list[str] = []
    while isinstance(node, ast.Subscript):
        if not (isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str)):
            return None
        keys.append(repr(node.slice.value))
        node = node.value
    base = dotted(node)
    if base is None or not keys:
        return None
    return base + "".join(f"[{key}]" for key in reversed(keys))


def _got_entry(node: ast.AST) -> str | None:
    """``cfg["cmd"].get("seed", 0)``: the entry ``cfg['cmd']['seed']`` it reads, else ``None``."""
    key = _get_key(node)
    if key is None or not isinstance(node, ast.Call) or node.keywords:
        return None
    assert isinstance(node.func, ast.Attribute)  # _get_key checked it
    owner = node.func.value
    base = keyed_path(owner) if isinstance(owner, ast.Subscript) else dotted(owner)
    return None if base is None else f"{base}[{key!r}]"


def _keyed_hit(path: str, names: frozenset[str] | set[str]) -> bool:
    """The entry ``path`` (``d['a']['b']``) holds a rank: it, a dict holding it, or an entry in it.

    ``d`` or ``d['a']`` tainted whole taints ``d['a']['b']``; a tainted
    ``d['a']['b']['c']`` taints the sub-dict read here; a sibling entry
    (``d['a']['x']``) does not.
    """
    if path in names:
        return True
    prefix = path
    while "[" in prefix:
        prefix = prefix[: prefix.rindex("[")]
        if prefix in names:
            return True
    return any(name.startswith(path + "[") for name in names)


def mentions_rank(node: ast.AST, names: frozenset[str] | set[str] = frozenset()) -> bool:
    """The expression reads a rank.

    ``rank``, ``args.local_rank``, ``dist.get_rank()``, ``os.environ["RANK"]``...;
    ``names`` adds variables known to hold one (``seed = base + rank``), and
    dict entries by constant key (``cfg['cmd']['stamp']``, see :func:`keyed_path`):
    reading ``cfg['cmd']['seed']`` is clean when only its sibling holds a rank,
    reading ``cfg`` whole (or by a key that is not a constant) is not.
    """
    keyed = {name.partition("[")[0] for name in names if "[" in name}
    stack: list[ast.AST] = [node]
    while stack:
        sub = stack.pop()
        if env_key(sub) in RANK_VARIABLES:
            return True
        if keyed and isinstance(sub, ast.Subscript) and (path := keyed_path(sub)) is not None:
            if _keyed_hit(path, names):
                return True
            continue  # constant keys over a dotted name: nothing else to read in the chain
        if keyed and (path := _got_entry(sub)) is not None:
            if _keyed_hit(path, names):
                return True
            assert isinstance(sub, ast.Call)
            stack.extend(sub.args[1:])  # the default, read too
            continue
        if isinstance(sub, ast.Name) and (
            sub.id in RANK_NAMES or sub.id in names or sub.id in keyed
        ):
            return True
        if isinstance(sub, ast.Attribute) and (
            sub.attr in RANK_NAMES or (name := dotted(sub)) in names or name in keyed
        ):
            return True
        if isinstance(sub, ast.Call) and tail(sub) in RANK_FUNCTIONS:
            return True
        stack.extend(ast.iter_child_nodes(sub))
    return False


def mentions_local_rank(node: ast.AST, names: frozenset[str] | set[str] = frozenset()) -> bool:
    """The expression reads a node-local rank (``args.local_rank``, ``LOCAL_RANK``...).

    ``names`` adds variables known to hold one (assigned from such an expression).
    """
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and (sub.id in LOCAL_RANK_NAMES or sub.id in names):
            return True
        if isinstance(sub, ast.Attribute) and (
            sub.attr in LOCAL_RANK_NAMES or dotted(sub) in names
        ):
            return True
        if isinstance(sub, ast.Call) and tail(sub) in LOCAL_RANK_FUNCTIONS:
            return True
        if env_key(sub) in LOCAL_RANK_VARIABLES:
            return True
    return False


def calls(node: ast.AST) -> list[ast.Call]:
    """Every call under ``node``, in source order."""
    found = [n for n in ast.walk(node) if isinstance(n, ast.Call)]
    return sorted(found, key=lambda c: (c.lineno, c.col_offset))


@dataclass
class Module:
    """One parsed file plus what several rules need: import aliases and parents."""

    tree: ast.Module
    aliases: dict[str, str] = field(default_factory=dict)
    parents: dict[ast.AST, ast.AST] = field(default_factory=dict)
    #: Every node of the tree (depth first).
    nodes: list[ast.AST] = field(default_factory=list)
    #: Every name and attribute name used in the file.
    identifiers: set[str] = field(default_factory=set)
    #: Every call in the file, in source order.
    calls: list[ast.Call] = field(default_factory=list)
    #: Function (and method) definitions by name.
    functions: dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]] = field(default_factory=dict)
    #: Class definitions by name.
    classes: dict[str, list[ast.ClassDef]] = field(default_factory=dict)
    #: Per-file results shared by several rules (see ``flow.flow_of``).
    cache: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def parse(cls, source: str | bytes, path: str = "<string>") -> Module:
        """Parse ``source`` (raises ``SyntaxError``; bytes honour a PEP 263 declaration).

        Python 3.12's type parameters and f-strings that reuse their quotes
        parse on older interpreters too (see ``newer_syntax``): they are
        blanked out or requoted, and the text parsed again.
        """
        try:
            tree = ast.parse(source, filename=path)
        except SyntaxError:
            plain = None
            if NEEDS_FALLBACK and isinstance(source, str):
                blanked = without_type_parameters(source)
                swapped = with_inner_quotes_swapped(blanked or source)
                plain = swapped or blanked
            if plain is None:
                raise
            # an error left in the blanked text is the file's real one (the 3.12 syntax
            # before it is valid); its line is the file's line
            module = cls._from_tree(ast.parse(plain, filename=path))
            module.cache["newer_syntax"] = True  # read from rewritten text (reach)
            return module
        return cls._from_tree(tree)

    @classmethod
    def _from_tree(cls, tree: ast.Module) -> Module:
        """Index a parsed tree: nodes, parents, calls, functions, classes, names."""
        module = cls(tree)
        found: list[ast.Call] = []
        parents = module.parents
        nodes = module.nodes
        identifiers = module.identifiers
        stack: list[ast.AST] = [tree]
        # one pass, by hand: ast.walk plus iter_child_nodes would visit every node twice
        while stack:
            node = stack.pop()
            nodes.append(node)
            for name in node._fields:
                value = getattr(node, name, None)
                if isinstance(value, list):
                    for item in value:
                        if isinstance(item, ast.AST):
                            parents[item] = node
                            stack.append(item)
                elif isinstance(value, ast.AST):
                    parents[value] = node
                    stack.append(value)
            kind = type(node)
            if kind is ast.Name:
                identifiers.add(node.id)  # type: ignore[attr-defined]
            elif kind is ast.Attribute:
                identifiers.add(node.attr)  # type: ignore[attr-defined]
            elif kind is ast.Call:
                found.append(node)  # type: ignore[arg-type]
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                module.functions.setdefault(node.name, []).append(node)
            elif isinstance(node, ast.ClassDef):
                module.classes.setdefault(node.name, []).append(node)
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    local = alias.asname or alias.name.split(".")[0]
                    module.aliases[local] = alias.name if alias.asname else local
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for alias in node.names:
                    module.aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        module.calls = sorted(found, key=lambda c: (c.lineno, c.col_offset))
        return module

    def qualified(self, node: ast.AST) -> str | None:
        """The dotted name with its first part resolved through the imports.

        ``np.random.shuffle`` -> ``numpy.random.shuffle`` after ``import numpy as np``;
        ``shuffle`` -> ``random.shuffle`` after ``from random import shuffle``.
        """
        name = dotted(node)
        if name is None:
            return None
        head, _, rest = name.partition(".")
        base = self.aliases.get(head, head)
        return f"{base}.{rest}" if rest else base

    def ancestors(self, node: ast.AST) -> list[ast.AST]:
        """Enclosing nodes, innermost first."""
        out: list[ast.AST] = []
        while node in self.parents:
            node = self.parents[node]
            out.append(node)
        return out

    def function_of(self, node: ast.AST) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        """The innermost function that contains ``node`` (``None`` at module level)."""
        while node in self.parents:
            node = self.parents[node]
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                return node
        return None

    def loop_of(self, node: ast.AST) -> ast.For | ast.AsyncFor | ast.While | None:
        """The innermost loop around ``node`` within its own function, or ``None``."""
        while node in self.parents:
            node = self.parents[node]
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                return None
            if isinstance(node, ast.For | ast.AsyncFor | ast.While):
                return node
        return None

    def imports_any(self, roots: frozenset[str]) -> bool:
        """The file imports a module whose top-level package is one of ``roots``."""
        return any(target.split(".")[0] in roots for target in self.aliases.values())


#: Words of a flag or a query that says the run is distributed.
_DISTRIBUTED_WORDS = frozenset({"distributed", "ddp", "initialized", "multi", "parallel"})


def _last_words(node: ast.expr) -> set[str]:
    """The words of the last part of a name, or of the function a call calls."""
    target = node.func if isinstance(node, ast.Call) else node
    return set(name_words((dotted(target) or "").rpartition(".")[2]))


def _world_comparison(test: ast.expr) -> tuple[ast.cmpop, object] | None:
    """``(op, constant)`` of ``world_size <op> constant``; ``None`` for any other test."""
    if not isinstance(test, ast.Compare) or len(test.ops) != 1:
        return None
    right = test.comparators[0]
    if "world" not in _last_words(test.left) or not isinstance(right, ast.Constant):
        return None
    return test.ops[0], right.value


def single_process_test(test: ast.expr) -> bool:
    """``not args.distributed``, ``not dist.is_initialized()``, ``world_size == 1``."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return bool(_last_words(test.operand) & _DISTRIBUTED_WORDS)
    found = _world_comparison(test)
    if found is None:
        return False
    op, value = found
    return (isinstance(op, ast.Eq | ast.LtE) and value == 1) or (
        isinstance(op, ast.Lt) and value == 2
    )


def distributed_test(test: ast.expr) -> bool:
    """``args.distributed``, ``dist.is_initialized()``, ``world_size > 1``: distributed runs."""
    if isinstance(test, ast.Name | ast.Attribute | ast.Call):
        words = _last_words(test)
        return bool(words & _DISTRIBUTED_WORDS) and not words & {"not", "non", "single"}
    found = _world_comparison(test)
    if found is None:
        return False
    op, value = found
    return (isinstance(op, ast.Gt) and value == 1) or (isinstance(op, ast.GtE) and value == 2)


def calls_bound_to(scope: ast.AST, name: str | None) -> list[ast.Call]:
    """The calls ``scope`` assigns to ``name`` (``trainer = Trainer(...)``, ``model = Lit(x)``).

    An annotated binding counts alike (``eval_trainer: Trainer = instantiate(...)``).
    """
    return [
        node.value
        for node in ast.walk(scope)
        if isinstance(node, ast.Assign | ast.AnnAssign)
        and isinstance(node.value, ast.Call)
        and name is not None
        and any(
            dotted(t) == name
            for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
        )
    ]


#: Comparisons of two literals read by hand (guards on a parameter or an asserted value).
_COMPARISONS: dict[type[ast.cmpop], Callable[[Any, Any], bool]] = {
    ast.Lt: lambda a, b: a < b,
    ast.LtE: lambda a, b: a <= b,
    ast.Gt: lambda a, b: a > b,
    ast.GtE: lambda a, b: a >= b,
    ast.Eq: lambda a, b: a == b,
    ast.NotEq: lambda a, b: a != b,
}


def compare_literals(op: ast.cmpop, left: object, right: object) -> bool | None:
    """``left <op> right`` for two literal values; ``None`` where it cannot be read."""
    operation = _COMPARISONS.get(type(op))
    if operation is None:
        return None
    try:
        return bool(operation(left, right))
    except TypeError:
        return None


def values_bound_before(mod: Module, scope: ast.AST, name: str | None, line: int) -> list[ast.expr]:
    """What ``name = value`` statements of ``scope`` itself bind ``name`` to before ``line``.

    Statements of functions nested in ``scope`` are another scope's, left out.
    """
    if name is None:
        return []
    home = scope if isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef) else None
    return [
        a.value
        for a in ast.walk(scope)
        if isinstance(a, ast.Assign)
        and a.lineno < line
        and mod.function_of(a) is home
        and any(dotted(t) == name for t in a.targets)
    ]


def bound_calls(mod: Module, value: ast.expr) -> list[ast.Call] | None:
    """The calls that build ``value``, where each binding in its function is a call.

    ``dm = V1DataModule(...)`` in one branch and ``dm = V2DataModule(...)`` in
    the other give both (an annotated ``dm: DataModule = DataModule(...)``
    too); ``None`` where a binding is not a call (a parameter, a factory's
    result read from a dict).
    """
    if isinstance(value, ast.Call):
        return [value]
    name = dotted(value)
    if name is None:
        return None
    scope = mod.function_of(value) or mod.tree
    values = [
        node.value
        for node in ast.walk(scope)
        if (isinstance(node, ast.Assign) and any(dotted(t) == name for t in node.targets))
        or (isinstance(node, ast.AnnAssign) and node.value and dotted(node.target) == name)
    ]
    if not values or not all(isinstance(v, ast.Call) for v in values):
        return None
    return [v for v in values if isinstance(v, ast.Call)]


def is_main_guard(test: ast.expr) -> bool:
    """``__name__ == "__main__"`` (either side)."""
    if not isinstance(test, ast.Compare) or len(test.ops) != 1:
        return False
    sides = {ast.unparse(test.left), ast.unparse(test.comparators[0])}
    return isinstance(test.ops[0], ast.Eq) and sides in (
        {"__name__", "'__main__'"},
        {"__name__", '"__main__"'},
    )


def conditional_arms(value: ast.expr) -> list[ast.expr]:
    """``value``, or the arms of a conditional expression, at any depth.

    ERC's ``DataLoader(val_ds, sampler=DistributedSampler(val_ds, shuffle=False)
    if world_size > 1 else None)``: the loader is built on the sampler where
    the test holds.
    """
    if isinstance(value, ast.IfExp):
        return [*conditional_arms(value.body), *conditional_arms(value.orelse)]
    return [value]


def misses_an_argument(
    call: ast.Call, func: ast.FunctionDef | ast.AsyncFunctionDef, bound_self: bool = False
) -> bool:
    """``call`` binds nothing to a parameter of ``func`` that has no default: ``TypeError``.

    ConFit's ``Mutation_Set(data=..., fname=..., tokenizer=...)`` for ``def
    __init__(self, wt_path, data, fname, tokenizer, sep_len=1024)``: no
    ``wt_path``. ``bound_self``: the first parameter is the instance (a
    constructor's or a method's). Calls that unpack (``*a``, ``**kw``) may
    bind: ``False``.
    """
    if any(isinstance(a, ast.Starred) for a in call.args) or any(
        k.arg is None for k in call.keywords
    ):
        return False
    args = func.args
    positional = [*args.posonlyargs, *args.args][1 if bound_self else 0 :]
    required = positional[: len(positional) - len(args.defaults)] if args.defaults else positional
    given = {k.arg for k in call.keywords}
    if any(a.arg not in given for a in required[len(call.args) :]):
        return True
    return any(
        default is None and a.arg not in given
        for a, default in zip(args.kwonlyargs, args.kw_defaults, strict=True)
    )


def fails_to_bind(
    call: ast.Call, func: ast.FunctionDef | ast.AsyncFunctionDef, bound_self: bool = False
) -> bool:
    """``call`` cannot bind to ``func``'s parameters: Python raises ``TypeError``.

    A keyword ``func`` does not take (and no ``**kwargs``), a keyword for a
    parameter a positional argument already fills, or more positional
    arguments than it has (and no ``*args``; ``bound_self``: the first
    parameter is the instance). Calls that unpack (``*a``, ``**kw``) may
    bind: ``False``.
    """
    if any(isinstance(a, ast.Starred) for a in call.args) or any(
        k.arg is None for k in call.keywords
    ):
        return False
    args = func.args
    names = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]}
    if args.kwarg is None and any(k.arg not in names for k in call.keywords):
        return True
    positional = [*args.posonlyargs, *args.args][1 if bound_self else 0 :]
    filled = {a.arg for a in positional[: len(call.args)]}
    if any(k.arg in filled for k in call.keywords):
        return True  # given by position and by keyword: "multiple values"
    return args.vararg is None and len(call.args) > len(positional)
