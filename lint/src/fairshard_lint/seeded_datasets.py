"""A dataset that orders its items from a generator each rank seeded its own way (FS104).

``set_seed(42 + rank)`` and then ``DistributedSampler(train_dataset)``: the
sampler's own seed is shared, but the dataset it splits was built after the
per-rank seed, and its constructor shuffles the file list from the global
generator (``random.shuffle(self.data_list)``). Every rank holds the items
in another order, so the sampler's equal index ranges cover overlapping
items and miss others (VAE_AIGC_detection: ``train_ddp.py`` seeds, its
``data`` package's factory builds the dataset class whose ``__init__``
shuffles).

Followed: the dataset name bound in the sampler's function to a call of the
tree (a class, or a factory function whose body builds a class of its
module), and that class's ``__init__``. A draw counts when it comes from the
generator the seed reached (a project's or a framework's seeding function
reaches them all; ``random.seed`` only Python's) and reorders an attribute
of the instance.
"""

from __future__ import annotations

import ast

from .flow import (
    bound_argument,
    defaults_of,
    distributed_script,
    is_distributed_sampler,
    parameters,
)
from .hand_splits import generator_family, seeds_own_generator
from .names import (
    Module,
    argument,
    bound_calls,
    compare_literals,
    dotted,
    mentions_rank,
    tail,
)
from .project import Project, importers

__all__ = ["per_rank_seed", "shuffled_by_its_constructor", "unseeded_constructor_orders"]

#: In-place shuffles and permutations of the global generators, by package.
_DRAWS = {
    "random.shuffle": "random",
    "random.sample": "random",
    "numpy.random.shuffle": "numpy",
    "numpy.random.permutation": "numpy",
    "torch.randperm": "torch",
}


def per_rank_seed(mod: Module, call: ast.Call, rank_names: set[str]) -> str | None:
    """The generator family ``call`` seeds per rank (``"any"`` for a project's seeder), or None.

    ``set_seed(42 + rank)``, ``random.seed(rank)``, ``np.random.seed(seed + rank)``.
    """
    name = tail(call).lower()
    if "seed" not in name or name in {"seed_worker", "worker_init_fn"} or not call.args:
        return None
    if not mentions_rank(call.args[0], rank_names):
        return None
    family = generator_family(mod, call) or "any"
    if family == "torch" and "cuda" in (mod.qualified(call.func) or ""):
        return None  # the GPU generators: no dataset draws its order there
    return family


def shuffled_by_its_constructor(
    project: Project, owner: str, sampler: ast.Call, family: str
) -> ast.Call | None:
    """The draw in the constructor of the dataset ``sampler`` splits that reorders its items."""
    mod = project.modules[owner]
    data = argument(sampler, "dataset", 0)
    built = _built_by(mod, sampler, data)
    if built is None:
        return None
    where = project.resolve(owner, built)
    if where is None:
        return None
    there, name = where
    other = project.modules[there]
    classes = [(other, cls) for cls in other.classes.get(name, [])]
    if not classes:  # a factory: the classes of the tree its body builds
        for func in other.functions.get(name, []):
            for call in (n for n in ast.walk(func) if isinstance(n, ast.Call)):
                found = project.resolve(there, call)
                if found is not None:
                    home = project.modules[found[0]]
                    classes += [(home, cls) for cls in home.classes.get(found[1], [])]
    for home, cls in classes:
        methods = {f.name: f for f in cls.body if isinstance(f, ast.FunctionDef)}
        init = methods.get("__init__")
        if init is None:
            continue
        site = built if name == cls.name else None  # its arguments fill __init__'s
        paths: list[tuple[ast.FunctionDef, ast.Call | None]] = [(init, None)]
        for call in (n for n in ast.walk(init) if isinstance(n, ast.Call)):
            if isinstance(call.func, ast.Attribute) and dotted(call.func.value) == "self":
                helper = methods.get(call.func.attr)  # self._shuffle_data() from __init__
                if helper is not None and helper is not init:
                    paths.append((helper, call))
        for func, via in paths:
            draw = _reorders_itself(home, func, family)
            if draw is None or _reseeded_before(home, func, draw, family):
                continue  # transformer_tts: random.seed(hparams.seed) first, alike on every rank
            guards = _guards(home, draw, func) + (_guards(home, via, init) if via else [])
            if via is not None and _reseeded_before(home, init, via, family):
                continue
            if all(_taken(test, init, site) for test in guards):
                return draw
    return None


def _guards(mod: Module, node: ast.AST, func: ast.FunctionDef) -> list[ast.expr]:
    """The tests of the ``if`` blocks around ``node`` in ``func`` (an ``else`` arm: unknown)."""
    tests: list[ast.expr] = []
    child = node
    for parent in mod.ancestors(node):
        if parent is func:
            break
        if isinstance(parent, ast.If):
            if child in parent.body:
                tests.append(parent.test)
            elif child is not parent.test:
                tests.append(ast.Constant(value=None))  # the else arm: read as not known
        child = parent
    return tests


def _taken(test: ast.expr, init: ast.FunctionDef, site: ast.Call | None) -> bool:
    """``if shuffle:`` (``if fraction < 1.0:``, ``if not test_mode:``) holds for ``site``'s literal.

    What the site passes, or the parameter's default where it passes nothing
    (DiT_Sequential's ``shuffle=True``); a value the site does not write
    (bartali's ``fraction=configs.fraction``, 1 in every config) or any
    other test is not known to hold.
    """
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        # ``if not test_mode:`` (View-GCN-DDP) holds where the site gives a false value
        inner = test.operand
        if not isinstance(inner, ast.Name) or inner.id not in parameters(init):
            return False
        value = _given_literal(init, site, inner.id)
        return value is not None and not value.value
    operator: ast.cmpop | None = None
    literal: object = None
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        operator, right = test.ops[0], test.comparators[0]
        if not isinstance(right, ast.Constant):
            return False
        literal, test = right.value, test.left
    if not isinstance(test, ast.Name) or test.id not in parameters(init):
        return False
    given = _given_literal(init, site, test.id)
    if given is None:
        return False
    if operator is None:
        return bool(given.value)
    return bool(compare_literals(operator, given.value, literal))


def _given_literal(init: ast.FunctionDef, site: ast.Call | None, param: str) -> ast.Constant | None:
    """The literal ``site`` gives ``init``'s parameter ``param`` (or its default), if one."""
    given = bound_argument(site, init, param) if site is not None else None
    if given is None and site is not None and not any(k.arg is None for k in site.keywords):
        given = defaults_of(init).get(param)
    return given if isinstance(given, ast.Constant) else None


def _reseeded_before(mod: Module, func: ast.FunctionDef, node: ast.AST, family: str) -> bool:
    """``func`` seeds ``family``'s global generator (or all of them) before ``node``."""
    line = getattr(node, "lineno", 0)
    for call in (n for n in ast.walk(func) if isinstance(n, ast.Call)):
        if call.lineno > line:
            continue
        seeds = _seeds(mod, call)
        if seeds is not None and seeds in (family, "any"):
            return True
    return False


#: Cuts of a dataset that keep the order of the dataset they cut (its first argument).
_CUTS = frozenset({"random_split", "Subset"})


def _built_by(
    mod: Module, sampler: ast.Call, data: ast.expr | None, hops: int = 2
) -> ast.Call | None:
    """The call the sampler's dataset name was last bound to before it, in its function.

    A cut of another dataset (``train, val = random_split(dataset, ...)``,
    ``Subset(dataset, idx)``) is followed to the dataset it cuts: a cut keeps
    the order its dataset's constructor drew.
    """
    bound = bound_calls(mod, data) if data is not None else None
    if bound is None and isinstance(data, ast.Name):
        bound = _unpacked_cuts(mod, data)
    before = [c for c in bound or [] if c is data or c.lineno <= sampler.lineno]
    built = max(before, key=lambda c: c.lineno) if before else None
    if built is not None and hops and tail(built) in _CUTS and built.args:
        return _built_by(mod, built, built.args[0], hops - 1)
    return built


def _unpacked_cuts(mod: Module, data: ast.Name) -> list[ast.Call] | None:
    """``train, val = random_split(dataset, ...)``: the cut ``data`` is unpacked from."""
    scope = mod.function_of(data) or mod.tree
    found = [
        node.value
        for node in ast.walk(scope)
        if isinstance(node, ast.Assign)
        and isinstance(node.value, ast.Call)
        and tail(node.value) in _CUTS
        and any(
            isinstance(t, ast.Tuple | ast.List)
            and any(isinstance(e, ast.Name) and e.id == data.id for e in t.elts)
            for t in node.targets
        )
    ]
    return [c for c in found if isinstance(c, ast.Call)] or None


def _reorders_itself(mod: Module, init: ast.FunctionDef, family: str) -> ast.Call | None:
    """A global draw in ``init`` that shuffles an attribute of ``self`` (or is stored in one).

    Or one that shuffles a local order the attributes are then indexed by
    (DiT_Sequential's ``np.random.shuffle(indices)`` and
    ``self.node_features = self.node_features[indices]``).
    """
    for node in ast.walk(init):
        if not isinstance(node, ast.Call):
            continue
        drawn = _DRAWS.get(mod.qualified(node.func) or "")
        if drawn is None or (family != "any" and drawn != family):
            continue
        if argument(node, "generator") is not None or argument(node, "random") is not None:
            continue
        target = node.args[0] if node.args else None
        if target is not None and (dotted(target) or "").startswith("self."):
            return node  # random.shuffle(self.data_list)
        parent = mod.parents.get(node)
        if isinstance(parent, ast.Assign) and any(
            (dotted(t) or "").startswith("self.") for t in parent.targets
        ):
            return node  # self.order = np.random.permutation(n)
        local = target if isinstance(target, ast.Name) else None
        if isinstance(parent, ast.Assign) and len(parent.targets) == 1:
            local = parent.targets[0] if isinstance(parent.targets[0], ast.Name) else local
        if local is not None and _indexes_an_attribute(init, local.id):
            return node
    return None


def _indexes_an_attribute(func: ast.FunctionDef, order: str) -> bool:
    """``self.x = self.x[order]``, or ``self.x`` rebuilt from a list the order fills.

    View-GCN-DDP's ``rand_idx = np.random.permutation(n)``, then ``for i in
    range(len(rand_idx)): idx = rand_idx[i]; ...; filepaths_shuffled.extend(
    self.filepaths[start:end])`` and ``self.filepaths = filepaths_shuffled``:
    the names the order reaches (assigned from it, a loop's variable over it,
    a list extended or appended with it) are followed, and an attribute of
    ``self`` set to one of them (or indexed by one) is reordered.
    """
    reached = {order}
    for _ in range(4):
        before = len(reached)
        for node in ast.walk(func):
            if isinstance(node, ast.Assign) and _reads_order(node.value, reached):
                reached.update(
                    n.id for t in node.targets for n in ast.walk(t) if isinstance(n, ast.Name)
                )
            elif isinstance(node, ast.For) and _reads_order(node.iter, reached):
                reached.update(n.id for n in ast.walk(node.target) if isinstance(n, ast.Name))
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("append", "extend", "insert")
                and isinstance(node.func.value, ast.Name)
                and any(_reads_order(a, reached) for a in node.args)
            ):
                reached.add(node.func.value.id)
        if len(reached) == before:
            break
    for node in ast.walk(func):
        if not (
            isinstance(node, ast.Assign)
            and any((dotted(t) or "").startswith("self.") for t in node.targets)
        ):
            continue
        value = node.value
        if isinstance(value, ast.Name) and value.id in reached and value.id != order:
            return True  # self.filepaths = filepaths_shuffled
        if (
            isinstance(value, ast.Subscript)
            and isinstance(value.slice, ast.Name)
            and value.slice.id in reached
        ):
            return True  # self.x = self.x[order]
    return False


def _reads_order(node: ast.AST, reached: set[str]) -> bool:
    """``node`` reads a name the order reached, other than through ``len()`` (a count)."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len":
        return False
    if isinstance(node, ast.Name):
        return node.id in reached
    return any(_reads_order(child, reached) for child in ast.iter_child_nodes(node))


#: Seeding calls that name ``seed`` but seed no global generator.
_NOT_GLOBAL_SEEDS = frozenset({"seed_worker", "worker_init_fn"})
#: The global seeders of one generator family each.
_FAMILY_SEEDS = {
    "random.seed": "random",
    "numpy.random.seed": "numpy",
    "torch.manual_seed": "torch",
    "torch.random.manual_seed": "torch",
}


def _seeds(mod: Module, call: ast.Call) -> str | None:
    """The generator family ``call`` seeds globally: a family, ``"any"``, or ``None``.

    ``np.random.seed(s)`` seeds NumPy's; ``torch.manual_seed(s)`` torch's only
    (and ``torch.cuda.manual_seed`` or a ``Generator``'s ``manual_seed``
    none); any other ``*seed*`` call (``set_seed``, ``seed_everything``) is
    read as seeding them all.
    """
    name = tail(call)
    if "seed" not in name.lower() or name in _NOT_GLOBAL_SEEDS:
        return None
    qualified = mod.qualified(call.func) or ""
    if qualified in _FAMILY_SEEDS:
        return _FAMILY_SEEDS[qualified]
    if seeds_own_generator(mod, call) or "cuda" in qualified:
        return None  # a generator of its own, or the GPU's
    return "any"


def _seeded_in(project: Project, owner: str, scope: ast.AST, family: str, depth: int = 2) -> bool:
    """A call in ``scope`` may seed ``family``'s global generator (see :func:`_seeds`).

    A seeding function of the tree is read in its body (``depth`` calls down).
    """
    mod = project.modules[owner]
    for call in (n for n in ast.walk(scope) if isinstance(n, ast.Call)):
        seeds = _seeds(mod, call)
        if seeds is None or (seeds != "any" and seeds != family):
            continue
        if seeds == family:
            return True
        where = project.resolve(owner, call) if depth else None
        if where is None:
            return True
        home = project.modules[where[0]]
        if any(
            _seeded_in(project, where[0], func, family, depth - 1)
            for func in home.functions.get(where[1], [])
        ):
            return True
    return False


def unseeded_constructor_orders(mod: Module) -> list[tuple[ast.Call, ast.Call]]:
    """Distributed samplers over a dataset whose constructor draws its order, never seeded.

    DiT_Sequential's ``DiffusionDataset.__init__`` runs ``np.random.shuffle(indices)``
    and reindexes its arrays; nothing in the script seeds NumPy, so each process
    holds the items in its own order, and the ``DistributedSampler`` (seeded
    alike) hands each rank index ranges that point at other items on every
    rank: shares overlap and miss items. Gives ``(sampler, draw)`` pairs. A
    script that may seed the draw's generator anywhere (before or after, in
    its own functions) is left alone: a per-rank seed is rule FS104's.

    A helper module's sampler counts where the module imports no seeding and
    every file importing it that runs ranks seeds nothing either
    (building-damage-assessment's ``dataset.py`` builds the sampler over an
    ``xviewDataset`` whose ``__init__`` runs ``random.sample(keys,
    len(keys))``, for the ``torch.distributed.launch`` script ``train.py``).
    """
    project = mod.cache.get("project")
    if not isinstance(project, Project):
        return []
    runners = (
        [mod] if distributed_script(mod) else [m for m in importers(mod) if distributed_script(m)]
    )
    if not runners:
        return []
    owner = mod.cache["module_name"]
    found: list[tuple[ast.Call, ast.Call]] = []
    for call in mod.calls:
        if not is_distributed_sampler(mod, call):
            continue
        for family in ("random", "numpy", "torch"):
            draw = shuffled_by_its_constructor(project, owner, call, family)
            if draw is not None and not any(
                _seeded_in(project, m.cache["module_name"], m.tree, family)
                for m in {id(m): m for m in [mod, *runners]}.values()
            ):
                found.append((call, draw))
                break
    return found
