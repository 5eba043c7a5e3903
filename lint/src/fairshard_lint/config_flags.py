"""A sampler's ``shuffle`` read from the tree's configuration files.

A config-driven script writes ``DistributedSampler(data_train,
shuffle=shuffle)`` in its builder and passes ``shuffle=args.data.shuffle``,
an entry of its YAML config (StruCloze's ``data: shuffle: False``). Where
every value the tree's configs and launch lines give that entry reads false,
and no code of the tree writes it, the sampler never shuffles: its order is
the same every epoch whatever ``set_epoch`` does, so no epoch repeats an
order it was meant to change (FS101). A value that cannot be read (no config
gives one, a launch line may set it, the code writes it) keeps the sampler
shuffling, as its default says.
"""

from __future__ import annotations

import ast

from .caller_flags import passed_flags
from .cli_configs import read_config_entry
from .flow import is_distributed_sampler
from .names import Module, argument, config_entry, is_constant
from .project import Project

__all__ = ["FALSE_VALUES", "entry_values", "unshuffled_samplers", "written_in_the_tree"]

#: Config values that read as false (YAML's spellings, an unset entry, an empty list).
FALSE_VALUES = frozenset({"", "null", "none", "~", "0", "false", "[]"})


def written_in_the_tree(project: Project, keys: tuple[str, ...]) -> bool:
    """Some module of the tree assigns the config entry ``keys`` (``cfg["a"]["b"] = ...``)."""
    for other in project.modules.values():
        if keys[-1] not in other.identifiers and not any(
            isinstance(n, ast.Constant) and n.value == keys[-1] for n in other.nodes
        ):
            continue
        for node in other.nodes:
            targets = node.targets if isinstance(node, ast.Assign) else []
            if isinstance(node, ast.AugAssign | ast.AnnAssign):
                targets = [node.target]
            for target in targets:
                entry = config_entry(target)
                if entry is not None and entry[0][-len(keys) :] == keys:
                    return True
    return False


def entry_values(project: Project, keys: tuple[str, ...], default: ast.expr | None) -> list[str]:
    """Every value the tree's configs and launch lines give the entry ``keys``.

    Read once per tree (``Project.config_values``): ``["?"]`` where code of the
    tree writes the entry; for ``cfg.trainer.devices`` the trainer configs'
    counts (a Hydra trainer group file's, a ``trainer:`` block's). An unset
    entry (``""``) reads as the lookup's literal ``default``.
    """
    fact = "entry " + ".".join(keys)
    if fact not in project.config_values:
        if written_in_the_tree(project, keys):
            project.config_values[fact] = ["?"]
        elif len(keys) == 2 and keys[0] == "trainer" and keys[1] in ("devices", "gpus"):
            project.config_values[fact] = list(project.trainer_devices)
        else:
            root = project.root
            project.config_values[fact] = read_config_entry(root, keys) if root else ["?"]
    values = list(project.config_values[fact])
    if default is not None and isinstance(default, ast.Constant):
        values = [str(default.value) if v == "" else v for v in values]
    return values


def _config_false(project: Project, node: ast.expr | None) -> bool:
    """``node`` reads a nested config entry that every shipped value sets false."""
    entry = config_entry(node)
    if entry is None or project.root is None or not project.whole_tree:
        return False
    keys, default = entry
    if len(keys) < 2:
        return False  # args.shuffle: an option's, left to the option readers
    values = entry_values(project, keys, default)
    return bool(values) and all(v.strip().strip("\"'").lower() in FALSE_VALUES for v in values)


def unshuffled_samplers(mod: Module) -> frozenset[ast.Call]:
    """Distributed samplers whose ``shuffle`` every shipped config sets false.

    The flag read straight from a config entry, or a parameter of the
    builder that every call of it in the tree fills from one (or with
    ``False``).
    """
    project = mod.cache.get("project")
    if not isinstance(project, Project) or project.root is None:
        return frozenset()
    found: set[ast.Call] = set()
    for call in mod.calls:
        if not is_distributed_sampler(mod, call):
            continue
        if _config_false(project, argument(call, "shuffle", 3)):
            found.add(call)
            continue
        sites = passed_flags(mod, call, "shuffle", 3)  # a builder's parameter, filled at its calls
        if sites and all(
            is_constant(given, False) or _config_false(project, given) for _, _, given in sites
        ):
            found.add(call)
    return frozenset(found)
