"""A class or function that no code of the linted tree uses: its body never runs.

sainfoin_seed_effdet's ``src/trainer.py`` holds a ``SupervisedTrainer``
beside the ``EffdetTrainer`` its launcher builds; nothing makes one,
subclasses it or names it, so the epoch loop of its ``train`` describes no
run. ionosphere_diffusion's ``get_ionosphere_rae_dataloaders`` builds a
loader that no caller ever asks for. A finding inside a top-level class or
undecorated function that no file of the tree names (outside comments and
docstrings) is left out; a decorated function is used by its decorator.

Only application trees are read this way: trees that ship a script (a
file with an ``if __name__ == "__main__":`` block). A tree that packages itself
(``setup.py``, ``pyproject.toml`` or ``setup.cfg`` at its root) is a library
whose users make its classes, and is left alone; so is a class named by a
config, script or README of the tree (a registry entry, a documented
recipe), and every class of a tree that looks names up at run time
(``getattr(module, name)``, ``import_module``, or ``globals()`` and
``eval`` in a file with a star import). ``globals()[name]`` in a file
without one reaches only what that file binds, which names it there:
pFedMARL's config module looks its dataset classes up so, and its
``DCASE202XT2DataModule``, named nowhere, is never made.
Too many files to read: nothing is left out.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from .names import Module
from .project import Project
from .tree_texts import TooManyFiles, tree_files, tree_texts

__all__ = ["in_overridden_method", "in_redefined_function", "in_unused_class"]

_PACKAGING = ("setup.py", "pyproject.toml", "setup.cfg")
_OTHER_TEXTS = ("*.yaml", "*.yml", "*.json", "*.toml", "*.cfg", "*.sh", "*.md", "*.txt")
#: Run-time lookups by name: a class may be made without its name in the code.
_DYNAMIC = re.compile(r"(?<![.\w])__import__\(|\bimport_module\(|\bFire\(\s*\)")
#: Lookups in the file's own namespace: they reach what the file binds, so a class
#: the file never names is out of their reach unless a star import brings it.
_OWN_NAMESPACE = re.compile(r"(?<![.\w])(?:globals\(\)|eval\()")
_STAR_IMPORT = re.compile(r"^\s*from\s+\S+\s+import\s+\*", re.M)
#: Top-level definitions whose body runs only when something uses them.
_DEFINITIONS = (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)


def in_unused_class(mod: Module, node: ast.AST) -> bool:
    """``node`` sits in a top-level class or function of an application tree nothing names."""
    project = mod.cache.get("project")
    if not isinstance(project, Project) or not project.whole_tree or project.root is None:
        return False
    chain = [node, *mod.ancestors(node)]
    outer = chain[-2] if len(chain) > 1 else node
    if not isinstance(outer, _DEFINITIONS) or outer not in mod.tree.body:
        return False
    if isinstance(outer, ast.FunctionDef | ast.AsyncFunctionDef) and outer.decorator_list:
        return False  # @app.command, @hydra.main, @register(...): the decorator uses it
    key = f"unused: {outer.name}"
    if key not in project.facts:
        project.facts[key] = _unused(project.root, outer)
    return project.facts[key]


#: How many definitions deep a chain of users that are themselves unused is followed.
_USER_DEPTH = 3

Definition = ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef


def _unused(root: Path, cls: Definition, depth: int = _USER_DEPTH) -> bool:
    """No code of the tree uses ``cls``, or only code inside definitions nothing uses.

    optvq-gen's ``maybe_get_subset`` is called only by ``setup_dataset``,
    which nothing calls: neither body runs. Users are followed
    ``_USER_DEPTH`` definitions up (a top-level function or class of another
    file, undecorated); a use anywhere else keeps ``cls``.
    """
    if any((root / name).is_file() for name in _PACKAGING):
        return False
    word = re.compile(rf"\b{re.escape(cls.name)}\b")
    entry = False
    try:
        for _, text in tree_files(root, ("*.py",)):
            if _DYNAMIC.search(text) or ("getattr(" in text and _looks_up_in_tree(text, root)):
                return False
            if _OWN_NAMESPACE.search(text) and _STAR_IMPORT.search(text):
                return False  # globals()[name] over names a star import brought
            if word.search(text):
                users = _users(text, cls)
                if users is None or (
                    users
                    and not (
                        depth > 1
                        and all(u.name != cls.name and _unused(root, u, depth - 1) for u in users)
                    )
                ):
                    return False
            entry = entry or "__main__" in text
        if not entry:
            return False  # no script: a tree of modules for code elsewhere to use
        if any(word.search(text) for text in tree_texts(root, _OTHER_TEXTS)):
            return False
    except TooManyFiles:
        return False
    return True


def _users(text: str, cls: Definition) -> list[Definition] | None:
    """The top-level definitions of the source that name ``cls`` in code, or ``None``.

    ``None``: a use outside any such definition (module-level code, a
    decorated function, a string naming it, an unreadable file), which runs
    or may. An import of the name is no use by itself.
    """
    tree = _parsed(text)
    if tree is None:
        return None  # unreadable: it may
    users: list[Definition] = []
    for stmt in tree.body:
        if isinstance(stmt, ast.Import | ast.ImportFrom):
            if any(
                alias.asname not in (None, cls.name) and alias.name.rpartition(".")[2] == cls.name
                for alias in stmt.names
            ):
                return None  # imported under another name: its uses are not followed
            continue
        if not any(_names(node, cls.name) for node in ast.walk(stmt)):
            continue
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef) and stmt.decorator_list:
            return None
        if not isinstance(stmt, _DEFINITIONS) or any(
            isinstance(node, ast.Constant) and node.value == cls.name for node in ast.walk(stmt)
        ):
            return None
        users.append(stmt)
    return users


def _parsed(text: str) -> ast.Module | None:
    """The syntax tree of a file's text; ``None`` where it does not parse."""
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _names(node: ast.AST, name: str) -> bool:
    """``node`` names ``name``: a plain name, an attribute, an import alias or a string."""
    return (
        (isinstance(node, ast.Name) and node.id == name)
        or (isinstance(node, ast.Attribute) and node.attr == name)
        or (isinstance(node, ast.alias) and name in (node.name.rpartition(".")[2], node.asname))
        or (isinstance(node, ast.Constant) and node.value == name)
    )


def _looks_up_in_tree(text: str, root: Path) -> bool:
    """``getattr(trainers, cfg.name)`` on a module of the tree: a class made by name.

    ``getattr(torch.optim, name)`` looks up another package, and
    ``getattr(self, name)`` a method: neither makes a class of the tree.
    """
    tree = _parsed(text)
    if tree is None:
        return True
    modules: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if _in_tree(root, alias.name):
                    modules.add(alias.asname or alias.name.partition(".")[0])
        elif isinstance(node, ast.ImportFrom) and (node.level or _in_tree(root, node.module or "")):
            modules.update(alias.asname or alias.name for alias in node.names)
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "getattr"
            and len(node.args) >= 2
            and not isinstance(node.args[1], ast.Constant)
        ):
            base = node.args[0]
            while isinstance(base, ast.Attribute):
                base = base.value
            if isinstance(base, ast.Name) and base.id in modules:
                return True
    return False


def _in_tree(root: Path, dotted: str) -> bool:
    """``src.trainer``: its first part is a folder or a module at the tree's root."""
    head = dotted.partition(".")[0]
    return bool(head) and ((root / head).is_dir() or (root / f"{head}.py").is_file())


def in_overridden_method(mod: Module, node: ast.AST) -> bool:
    """``node`` sits in a method that every subclass overrides, of a class nothing builds.

    DR-FWL-2's ``PlPyGDataModule.val_dataloader``: its one script builds
    ``PlPyGDataTestonValModule``, which overrides ``val_dataloader``; nothing
    makes a ``PlPyGDataModule`` itself. The method never runs. In an
    application tree (as :func:`in_unused_class`): a top-level class named in
    the tree's code only as a base of classes (and in imports), each of which
    defines the method and none of which reaches the base's own
    (``super().val_dataloader()``, ``Base.val_dataloader(self)``). Any other
    use of the class's name, a string naming it, or a run-time lookup keeps
    the method.
    """
    project = mod.cache.get("project")
    if not isinstance(project, Project) or not project.whole_tree or project.root is None:
        return False
    chain = [node, *mod.ancestors(node)]
    if len(chain) < 3:
        return False
    cls, method = chain[-2], chain[-3]
    if not (
        isinstance(cls, ast.ClassDef)
        and cls in mod.tree.body
        and isinstance(method, ast.FunctionDef | ast.AsyncFunctionDef)
        and method in cls.body
    ):
        return False
    key = f"overridden: {cls.name}.{method.name}"
    if key not in project.facts:
        project.facts[key] = _overridden_everywhere(project.root, cls.name, method.name)
    return project.facts[key]


def _overridden_everywhere(root: Path, name: str, method: str) -> bool:
    """Every use of class ``name`` in the tree's code is as a base of a class that overrides."""
    if any((root / packaging).is_file() for packaging in _PACKAGING):
        return False
    word = re.compile(rf"\b{re.escape(name)}\b")
    subclasses = 0
    try:
        for _, text in tree_files(root, ("*.py",)):
            if not word.search(text):
                continue
            if _DYNAMIC.search(text) or _OWN_NAMESPACE.search(text):
                return False  # a file that names the class may make it by name
            tree = _parsed(text)
            if tree is None:
                return False
            bases: set[int] = set()
            for stmt in ast.walk(tree):
                if isinstance(stmt, ast.ClassDef) and stmt.name == name:
                    # its own body (``super(Base, self).__init__()``) is no use from outside
                    bases.update(id(inner) for inner in ast.walk(stmt))
                if isinstance(stmt, ast.ClassDef) and any(
                    (isinstance(b, ast.Name) and b.id == name)
                    or (isinstance(b, ast.Attribute) and b.attr == name)
                    for b in stmt.bases
                ):
                    if not _overrides_alone(stmt, name, method):
                        return False
                    subclasses += 1
                    bases.update(id(b) for b in stmt.bases)
            for other in ast.walk(tree):
                if id(other) in bases or isinstance(other, ast.ClassDef | ast.alias):
                    continue
                if isinstance(other, ast.Name | ast.Attribute | ast.Constant) and _names(
                    other, name
                ):
                    if isinstance(other, ast.Attribute) and id(other.value) in bases:
                        continue
                    return False  # built, passed or named elsewhere: the method may run
        if any(word.search(text) for text in tree_texts(root, _OTHER_TEXTS)):
            return False
    except TooManyFiles:
        return False
    return subclasses > 0


def _overrides_alone(cls: ast.ClassDef, base: str, method: str) -> bool:
    """``cls`` defines ``method`` and never reaches the base's own (``super().method``)."""
    own = [
        item
        for item in cls.body
        if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) and item.name == method
    ]
    if not own:
        return False
    for node in ast.walk(cls):
        if isinstance(node, ast.Attribute) and node.attr == method:
            holder = node.value
            if (
                isinstance(holder, ast.Call)
                and isinstance(holder.func, ast.Name)
                and holder.func.id == "super"
            ):
                return False
            if isinstance(holder, ast.Name) and holder.id == base:
                return False
    return True


def in_redefined_function(mod: Module, node: ast.AST) -> bool:
    """``node`` sits in a function (or method) that a later ``def`` of its block replaces.

    cmgan_denoiser's ``dataloader.py`` defines ``load_data(ds_dir, ...)`` and,
    further down, ``load_data(is_train, data_dir, ...)``: Python binds the
    name to the second when the module runs, so the first never runs and the
    sampler it builds is never built. Only undecorated definitions of one
    block (the module's, or one class body), with no statement between the
    two that names the function (a module-level call, a registration, an
    alias) and no reading of the block's names by string.
    """
    for ancestor in [node, *mod.ancestors(node)]:
        if not isinstance(ancestor, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        block = mod.parents.get(ancestor)
        if not isinstance(block, ast.Module | ast.ClassDef) or ancestor.decorator_list:
            continue
        body = block.body
        start = body.index(ancestor)
        for stmt in body[start + 1 :]:
            if (
                isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef)
                and stmt.name == ancestor.name
                and not stmt.decorator_list
            ):
                return True
            if any(
                (isinstance(n, ast.Name) and n.id == ancestor.name)
                or (isinstance(n, ast.Attribute) and n.attr == ancestor.name)
                or (isinstance(n, ast.Constant) and n.value == ancestor.name)
                for n in ast.walk(stmt)
            ):
                break  # named before the second definition: the first may be used
    return False
