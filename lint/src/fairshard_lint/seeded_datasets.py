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

from .hand_splits import generator_family
from .names import Module, argument, bound_calls, dotted, mentions_rank, tail
from .project import Project

__all__ = ["per_rank_seed", "shuffled_by_its_constructor"]

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
        for item in cls.body:
            if isinstance(item, ast.FunctionDef) and item.name == "__init__":
                draw = _reorders_itself(home, item, family)
                if draw is not None:
                    return draw
    return None


def _built_by(mod: Module, sampler: ast.Call, data: ast.expr | None) -> ast.Call | None:
    """The call the sampler's dataset name was last bound to before it, in its function."""
    bound = bound_calls(mod, data) if data is not None else None
    before = [c for c in bound or [] if c is data or c.lineno <= sampler.lineno]
    return max(before, key=lambda c: c.lineno) if before else None


def _reorders_itself(mod: Module, init: ast.FunctionDef, family: str) -> ast.Call | None:
    """A global draw in ``init`` that shuffles an attribute of ``self`` (or is stored in one)."""
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
    return None
