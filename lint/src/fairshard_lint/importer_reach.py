"""What a script that imports a module runs of it.

A distributed script that imports a helper module runs the helper's
module-level code, and the functions and classes it takes by name; it never
runs the helper's own ``if __name__ == "__main__":`` block, nor a function
only that block calls. Rules that judge a helper by its importers (FS103's
loaders, FS110's splits) read the helper's line through this.
"""

from __future__ import annotations

import ast

from .names import Module, fails_to_bind, is_main_guard, tail
from .project import Project

__all__ = ["reached_from"]


def reached_from(runner: Module, mod: Module, call: ast.AST) -> bool:
    """The distributed script ``runner``, which imports ``mod``, can run ``call``.

    Code at module level runs on import. A function must be imported by name
    (or read as an attribute of the module), a method must belong to a class the
    runner names and be named there too (dunder methods run with the class, and
    so does every method of a class that calls its own by a computed name); a
    function of ``mod`` called by another of its functions is followed up. A
    module the runner loads by a computed name (``import_module(f"tasks.{t}")``)
    is the runner's whole. A loader built in a single-process experiment that
    only the module's own ``if __name__ == "__main__":`` runs is not the
    runner's (dat's ``jointspar.main``, beside the ``JointSpar`` class its
    runner imports).
    """
    project = mod.cache.get("project")
    if project is None:
        return True
    imported = _imported_names(project, runner, mod)
    if imported is None:
        return True  # loaded by a computed name: what it runs is not written here
    func = mod.function_of(call)
    for _ in range(4):
        if func is None:
            return not _under_main_guard(mod, call)  # module level runs on import, but not this
        owner = mod.parents.get(func)
        if isinstance(owner, ast.ClassDef):
            if owner.name in imported and (
                func.name.startswith("__")
                or func.name in runner.identifiers
                or _dispatches_by_name(owner)
            ):
                return True
        elif func.name in imported:
            return not _every_call_fails(runner, func)
        callers = [
            c for c in mod.calls if tail(c) == func.name and mod.function_of(c) not in (None, func)
        ]
        if not callers:
            return False
        func = mod.function_of(callers[0])
    return True


def _every_call_fails(runner: Module, func: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Each call of ``func`` by name in ``runner`` raises ``TypeError`` before it runs.

    diffusion-model's ``train_dist.py`` calls ``get_data(args,
    is_distributed=True)``, but the tree's ``def get_data(args)`` takes no such
    keyword: the distributed run stops there, and the loader ``get_data``
    builds is never read by a rank.
    """
    calls = [c for c in runner.calls if isinstance(c.func, ast.Name) and c.func.id == func.name]
    return bool(calls) and all(fails_to_bind(c, func) for c in calls)


def _under_main_guard(mod: Module, node: ast.AST) -> bool:
    """``node`` sits in the body of ``if __name__ == "__main__":``: it runs when the file is run.

    An importer never runs it (Mammary_Gland_Involution's ``dataset.py`` and
    Deep_Object_Pose's ``utils_dope.py`` try their loaders out there, in one process).
    """
    child = node
    for up in mod.ancestors(node):
        if isinstance(up, ast.If) and is_main_guard(up.test) and child in up.body:
            return True
        child = up
    return False


def _imported_names(project: Project, runner: Module, mod: Module) -> set[str] | None:
    """The names of ``mod`` that ``runner`` can read.

    ``None`` where it imports ``mod`` by no static import (loaded by a computed
    name); ``from mod import *`` and ``import mod`` give every name the runner uses.
    A name imported but never read (``from linear_eval import main as
    linear_eval`` in a script that calls only ``linear_eval_ddp``) runs nothing.
    """
    target_module = mod.cache["module_name"]
    names: set[str] = set()
    static = False
    read = {n.id for n in runner.nodes if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    for local, target in project.imports(runner.cache["module_name"]).items():
        base, _, leaf = target.rpartition(".")
        if base and project.find(base) == target_module:
            static = True
            if local.startswith("*"):
                names.update(runner.identifiers)
            elif local in read:
                names.add(leaf)  # imported and used (Trip-ROMA's unused `linear_eval` is not)
        elif project.find(target) == target_module:
            static = True
            names.update(runner.identifiers)
    return names if static else None


def _dispatches_by_name(cls: ast.ClassDef) -> bool:
    """The class calls its own methods by a computed name.

    ``eval(f"self.get_{mode}_dataloader")()``, ``getattr(self, name)()``: a
    method no line names may still run (s3prl's experts).
    """
    for node in ast.walk(cls):
        if isinstance(node, ast.Call) and tail(node) in ("eval", "getattr"):
            named = node.args[1:2] if tail(node) == "getattr" else node.args[:1]
            if not all(isinstance(a, ast.Constant) for a in named):
                return True
    return False
