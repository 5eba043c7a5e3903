"""A loader's ``shuffle`` taken as a parameter of the function that builds it.

Loader factories are common: calico-confident-al's ``create_dataloader(self,
dataset, shuffle: bool = True, ...)`` returns ``DataLoader(dataset,
shuffle=shuffle)``, and its training loaders are the calls that pass
nothing. The flag is then written at the calls, not at the loader: a call
that passes ``True``, or passes nothing over a ``True`` default, builds a
shuffling loader. The rules read the loader through those calls: where each
lands (handed to ``accelerator.prepare``, named for evaluation) decides, not
the factory.
"""

from __future__ import annotations

import ast

from .flow import Function, parameters
from .names import Module, argument, is_constant
from .project import Project, passed_argument

__all__ = ["function_sites", "passed_flags", "shuffling_sites"]


def function_sites(mod: Module, func: Function) -> list[tuple[Module, ast.Call]]:
    """The calls of ``func`` that the linter can place.

    A nested function: calls by its plain name in the function that defines
    it. A module-level function: every call of the tree that resolves to it.
    A method: ``self.<name>(...)`` calls inside its own class (a data module
    building every split through one method); calls from outside the class
    are not followed, so a method called from elsewhere has no sites.
    """
    outer = mod.parents.get(func)
    if isinstance(outer, ast.FunctionDef | ast.AsyncFunctionDef):
        return [
            (mod, node)
            for node in ast.walk(outer)
            if isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == func.name
        ]
    if isinstance(outer, ast.ClassDef):
        return [
            (mod, node)
            for node in ast.walk(outer)
            if isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "self"
            and node.func.attr == func.name
        ]
    project = mod.cache.get("project")
    if outer is not mod.tree or not isinstance(project, Project):
        return []
    return [
        (project.modules[owner], site)
        for owner, site in project.call_sites(mod.cache["module_name"], func.name)
    ]


def passed_flags(
    mod: Module, call: ast.Call, keyword: str, position: int
) -> list[tuple[Module, ast.Call, ast.expr | None]]:
    """Each placeable call of ``call``'s function, with what it passes for ``call``'s flag.

    The flag is ``call``'s argument ``keyword`` (or at ``position``), read
    where it is a parameter of the enclosing function that the function
    never binds again. Empty where it is not, or where the function has no
    placeable call (nothing says what it is given).
    """
    flag = argument(call, keyword, position)
    func = mod.function_of(call)
    if not isinstance(flag, ast.Name) or func is None or flag.id not in parameters(func):
        return []
    if any(
        isinstance(node, ast.Name) and node.id == flag.id and isinstance(node.ctx, ast.Store)
        for node in ast.walk(func)
    ):
        return []
    return [
        (owner, site, passed_argument(func, site, flag.id))
        for owner, site in function_sites(mod, func)
    ]


def shuffling_sites(mod: Module, call: ast.Call) -> list[tuple[Module, ast.Call]]:
    """The calls of ``call``'s function that make it shuffle, where ``shuffle=`` is a parameter.

    Empty where the flag is no parameter of the enclosing function, where the
    function binds the name again, where any call's value cannot be read (a
    name, ``**kwargs``): an unknown flag is not read as ``True`` here, since a
    factory's flag is as often the evaluation's ``False``. Also empty where
    the function has no placeable call (nothing says what it is given).
    """
    found: list[tuple[Module, ast.Call]] = []
    for owner, site, given in passed_flags(mod, call, "shuffle", 2):
        if is_constant(given, True):
            found.append((owner, site))
        elif not is_constant(given, False):
            return []
    return found
