"""A file that imports a module its own tree does not have: it stops at the import.

``from gnn.models import GNN`` in a tree whose ``gnn/`` package has no
``models.py`` (gnn-paper's training scripts, beside the ``_models.py`` the
package kept) raises ``ModuleNotFoundError`` before any loader is built: a
finding in that file describes a run that never happens. Only the tree's own
packages are read: the first part of the import must be a folder of the
linted tree (at its root, or beside the file, as a script's own folder comes
first on ``sys.path``) holding Python files, so an installed package of the
same name is no concern; an import inside ``try:`` is optional and left
alone.
"""

from __future__ import annotations

import ast
from pathlib import Path

from .names import Module
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
            found = any(_missing(name, [root, here]) for name in _top_level_imports(mod))
    mod.cache["missing_import"] = found
    return found


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
    """``a.b.c``: a package folder ``a`` of the tree exists where ``a.b.c`` does not."""
    head, *rest = name.split(".")
    for base in bases:
        package = base / head
        if not package.is_dir() or not any(package.glob("*.py")):
            continue
        target = package.joinpath(*rest)
        if target.with_suffix(".py").is_file() or (target.is_dir() and any(target.glob("*.py"))):
            return False
        # a compiled extension built in place is there too
        return not (
            target.with_suffix(".so").exists() or any(target.parent.glob(f"{target.name}.*.so"))
        )
    return False
