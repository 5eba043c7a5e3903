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

from .launch_counts import launch_texts_name
from .names import Module, argument, is_constant, tail
from .project import Project

__all__ = ["UNKNOWN", "shipped_default"]

#: What :func:`shipped_default` gives when the shipped runs may set the option.
UNKNOWN = ast.Constant(value=...)


def shipped_default(mod: Module, option: str) -> ast.expr:
    """The default of ``mod``'s option ``option`` if every shipped run leaves it so.

    ``ast.Constant(None)`` for an option with no ``default=``; :data:`UNKNOWN`
    where the file defines no such option, no shipped line runs it, or a
    launch file or README names the flag.
    """
    project = mod.cache.get("project")
    if not isinstance(project, Project) or project.root is None or not project.whole_tree:
        return UNKNOWN
    path = project.tree_path(mod)
    if path is None or path.as_posix() not in project.run_scripts:
        return UNKNOWN
    for call in mod.calls:
        if tail(call) != "add_argument":
            continue
        flags = [
            a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)
        ]
        dests = {f.lstrip("-").replace("-", "_") for f in flags if f.startswith("--")}
        if option not in dests and not is_constant(argument(call, "dest"), option):
            continue
        options = [f for f in flags if f.startswith("-")]
        key = "launch texts name " + " ".join(options)  # read once per tree and option
        if key not in project.facts:
            project.facts[key] = launch_texts_name(project.root, options)
        if project.facts[key]:
            return UNKNOWN
        default = argument(call, "default")
        return default if default is not None else ast.Constant(value=None)
    return UNKNOWN
