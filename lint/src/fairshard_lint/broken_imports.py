"""A file that imports a module its own tree does not have: it stops at the import.

``from gnn.models import GNN`` in a tree whose ``gnn/`` package has no
``models.py`` (gnn-paper's training scripts, beside the ``_models.py`` the
package kept) raises ``ModuleNotFoundError`` before any loader is built: a
finding in that file describes a run that never happens. Only the tree's own
packages are read: the first part of the import must be a folder of the
linted tree (at its root, or beside the file, as a script's own folder comes
first on ``sys.path``) holding Python files, so an installed package of the
same name is no concern; an import inside ``try:`` is optional and left
alone. So is a file that imports from the tree's own module a name that
module never binds (``ImportError``).
"""

from __future__ import annotations

import ast
from pathlib import Path

from .names import Module, dotted
from .project import Project

__all__ = ["imports_a_missing_module"]


def imports_a_missing_module(mod: Module) -> bool:
    """The module imports, at its top level, a module that its tree's own package lacks."""
    cached = mod.cache.get("missing_import")
    if isinstance(cached, bool):
        return cached
    found = False
    project = mod.cache.get("project")
    if isinstance(project, Project) and project.whole_tree and project.root is not None:
        path = project.tree_path(mod)
        if path is not None:
            root = project.root.resolve()
            here = (root / path).parent
            found = any(_missing(name, [root, here]) for name in _top_level_imports(mod)) or any(
                _lacks_name(module, name, [here, root]) for module, name in _imported_names(mod)
            )
    mod.cache["missing_import"] = found
    return found


def _imported_names(mod: Module) -> list[tuple[str, str]]:
    """``(module, name)`` for each ``from module import name`` at the top level, outside ``try``."""
    return [
        (node.module, alias.name)
        for node in mod.tree.body
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0
        for alias in node.names
        if alias.name != "*"
    ]


def _lacks_name(module: str, name: str, bases: list[Path]) -> bool:
    """The tree's file for ``module`` (beside the script, or at the root) binds no ``name``.

    bert-race-nvidia's ``run_race.py`` imports ``parse_args`` from
    ``helpers.arg_parser``, whose file defines only ``get_parser``: the import
    raises ``ImportError`` and nothing after it runs. A file with a star
    import or a module ``__getattr__`` may bind anything; a submodule of that
    name (``from pkg import sub``) is no binding to look for.
    """
    parts = module.split(".")
    for base in bases:
        target = base.joinpath(*parts)
        if (target.is_dir() and (target / name).is_dir()) or (target / f"{name}.py").is_file():
            return False
        file = target / "__init__.py" if target.is_dir() else target.with_suffix(".py")
        if not file.is_file():
            continue
        try:
            tree = ast.parse(file.read_text(encoding="utf-8", errors="replace"))
        except (SyntaxError, ValueError, RecursionError, MemoryError, OSError):
            return False
        bound = _top_level_bindings(tree)
        return bound is not None and name not in bound
    return False


def _top_level_bindings(tree: ast.Module) -> set[str] | None:
    """The names a module binds at its top level (also in ``if``/``try``/``with`` blocks).

    ``None`` where it may bind any name: ``from x import *``, ``def __getattr__``,
    ``globals()`` written to.
    """
    bound: set[str] = set()
    todo: list[ast.stmt] = list(tree.body)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            if node.name == "__getattr__":
                return None
            bound.add(node.name)
            continue
        if isinstance(node, ast.Import | ast.ImportFrom):
            for alias in node.names:
                if alias.name == "*":
                    return None
                bound.add(alias.asname or alias.name.split(".")[0])
            continue
        for child in ast.walk(node):
            if isinstance(child, ast.Name) and isinstance(child.ctx, ast.Store):
                bound.add(child.id)
            elif isinstance(child, ast.Call) and (dotted(child.func) or "").endswith("globals"):
                return None
        for part in ("body", "orelse", "finalbody", "handlers"):
            block = getattr(node, part, None)
            if isinstance(block, list):
                todo.extend(b for b in block if isinstance(b, ast.stmt))
        for handler in getattr(node, "handlers", []):
            todo.extend(handler.body)
    return bound


def _top_level_imports(mod: Module) -> list[str]:
    """Absolute module paths the file imports outside functions, classes and ``try``."""
    names: list[str] = []
    for node in mod.tree.body:
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
        elif isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
    return [n for n in names if "." in n]


def _missing(name: str, bases: list[Path]) -> bool:
    """``a.b.c``: a package folder ``a`` of the tree exists where ``a.b.c`` does not.

    Every base is looked in first: the tinystories tree's
    ``model/gpt/train_gpt_accelerate.py`` imports ``model.gpt.model.dataloader``
    from the root, where ``model/`` holds no ``.py`` of its own (a namespace
    package), while a ``model/`` package beside the script lacks it; the import
    resolves at the root. The package that lacks it may be a folder below
    the top one: AnotherLLMFromScratch's ``src/`` holds only folders, and its
    ``src/trainer/`` package has no ``trainer.py``.
    """
    head, *rest = name.split(".")
    package_seen = False
    for base in bases:
        package = base / head
        if not package.is_dir():
            continue
        target = package.joinpath(*rest)
        if target.with_suffix(".py").is_file() or (target.is_dir() and any(target.glob("*.py"))):
            return False
        # a compiled extension built in place is there too
        if target.with_suffix(".so").exists() or any(target.parent.glob(f"{target.name}.*.so")):
            return False
        # the package that should hold it: the top folder, or (AnotherLLMFromScratch's
        # src.trainer.trainer under a src/ of folders only) the deepest one named
        parent = package.joinpath(*rest[:-1]) if rest else package
        package_seen = (
            package_seen
            or any(package.glob("*.py"))
            or (parent.is_dir() and any(parent.glob("*.py")))
        )
    return package_seen
