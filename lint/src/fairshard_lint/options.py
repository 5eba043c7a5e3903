"""Command-line options a script's every shipped run leaves at their default.

A script reads ``args.devices`` or ``args.seed``; its ``argparse`` option
says what the value is when no one passes the flag. Where some shipped line
runs the script (``launch_counts``) and no launch file or README of the tree
names the flag, every shipped run has the default: KLETech-CEVI-Nighttime-
Dehazing's ``--devices`` (``default=1``: one device), gptanomaly's ``--seed``
(no default: ``None``, so ``if args.seed is not None: set_seed(args.seed)``
seeds nothing). A script no shipped line runs says nothing of how it is run.
"""

from __future__ import annotations

import ast
from pathlib import Path

from .launch_counts import launch_texts_name
from .names import Module, argument, is_constant, option_flags, tail
from .project import Project

__all__ = ["UNKNOWN", "defines_option", "shipped_default", "shipped_script"]

#: What :func:`shipped_default` gives when the shipped runs may set the option.
UNKNOWN = ast.Constant(value=...)


def shipped_script(mod: Module) -> tuple[Project, Path] | None:
    """The project and tree path of ``mod`` where some shipped line runs it as a script."""
    project = mod.cache.get("project")
    if not isinstance(project, Project) or project.root is None or not project.whole_tree:
        return None
    path = project.tree_path(mod)
    if path is None or path.as_posix() not in project.run_scripts:
        return None
    return project, path


def defines_option(call: ast.Call, option: str) -> bool:
    """``add_argument("--is-distributed", ...)`` (or ``dest="option"``) defines ``option``."""
    if tail(call) != "add_argument":
        return False
    flags = [a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
    dests = {f.lstrip("-").replace("-", "_") for f in flags if f.startswith("--")}
    return option in dests or is_constant(argument(call, "dest"), option)


def shipped_default(mod: Module, option: str) -> ast.expr:
    """The default of ``mod``'s option ``option`` if every shipped run leaves it so.

    ``ast.Constant(None)`` for an option with no ``default=``; :data:`UNKNOWN`
    where the file defines no such option, no shipped line runs it, or a
    launch file or README names the flag.
    """
    shipped = shipped_script(mod)
    if shipped is None:
        return UNKNOWN
    project, _ = shipped
    for call in mod.calls:
        if not defines_option(call, option):
            continue
        options = option_flags(call)
        key = "launch texts name " + " ".join(options)  # read once per tree and option
        if key not in project.facts:
            project.facts[key] = launch_texts_name(project.root or Path("."), options)
        if project.facts[key]:
            return UNKNOWN
        default = argument(call, "default")
        return default if default is not None else ast.Constant(value=None)
    return UNKNOWN
