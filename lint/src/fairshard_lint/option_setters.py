"""Whether anything in a tree besides a launch line may set a command-line option.

An option's default holds on every run only where nothing gives the option
another value. Launch files and READMEs are read for the flag
(``launch_counts``); this module reads the rest of what a tree ships: its
notebooks and configs, which may pass the flag or hold a key of the same
name that the script loads over its options, and its Python code, which may
write the option (``args.h5_file = ...``), build the namespace by hand
(``Namespace(h5_file=...)``) or reach it by a string (``getattr(args,
"h5_file")``). Copies of the option (``self.h5_file = args.h5_file``,
``Dataset(h5_file=args.h5_file)``) give it no new value.

MaskedProteinEnT's ``--h5_file_afsc`` (``default=''``) is named nowhere but
in its definition and in the reads ``if not args.h5_file_afsc == '':``: no
shipped run builds the loader under that branch.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from .names import option_flags
from .tree_texts import TooManyFiles, tree_texts

__all__ = ["option_set_elsewhere"]

#: Non-Python files that may run a script with a flag or hold a value for an option.
_SETTING_FILES = ("*.ipynb", "*.yaml", "*.yml", "*.json", "*.toml", "*.cfg", "*.ini", "*.conf")


def option_set_elsewhere(root: Path, option: str, definition: ast.Call) -> bool:
    """Some notebook, config or Python line of the tree may give ``option`` a value.

    ``definition`` is the option's one ``add_argument`` call; its own strings
    are not counted. Too many files to read them all: ``True``.
    """
    words = {option, *option_flags(definition)}
    pattern = re.compile("|".join(rf"(?<![\w-]){re.escape(w)}(?![\w-])" for w in words))
    try:
        if any(pattern.search(text) for text in tree_texts(root, _SETTING_FILES)):
            return True
        # every Python file, parsed or not by the linter: a helper with no data word
        # may still write the option
        return any(
            _written(text, option, words, definition)
            for text in tree_texts(root, ("*.py",))
            if pattern.search(text)
        )
    except TooManyFiles:
        return True


def _written(text: str, option: str, words: set[str], definition: ast.Call) -> bool:
    """``text`` writes ``option`` as an attribute or keyword, or names it in a string.

    A file that does not parse may do anything: ``True``.
    """
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return True
    own = {
        id(part)
        for node in ast.walk(tree)
        if _same_call(node, definition)
        for part in ast.walk(node)
    }
    for node in ast.walk(tree):
        if id(node) in own:
            continue
        if isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(_holder_store(t, option) for t in targets) and not _copies(node.value, option):
                return True
        elif isinstance(node, ast.keyword) and node.arg == option:
            if not _copies(node.value, option):
                return True
        elif isinstance(node, ast.Constant) and node.value in words:
            return True
    return False


def _holder_store(target: ast.expr, option: str) -> bool:
    """``args.x = ...`` (any receiver but the instance's own ``self.x``)."""
    return (
        isinstance(target, ast.Attribute)
        and target.attr == option
        and not (isinstance(target.value, ast.Name) and target.value.id in ("self", "cls"))
    )


def _copies(value: ast.expr | None, option: str) -> bool:
    """``value`` reads the option itself (``x=args.x``): a copy, not a new value."""
    return isinstance(value, ast.Attribute) and value.attr == option


def _same_call(node: ast.AST, definition: ast.Call) -> bool:
    """``node`` is the option's own definition (parsed again from its file's text)."""
    return (
        isinstance(node, ast.Call)
        and node.lineno == definition.lineno
        and node.col_offset == definition.col_offset
        and ast.dump(node) == ast.dump(definition)
    )
