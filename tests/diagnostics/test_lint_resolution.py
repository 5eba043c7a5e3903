"""What a call of the tree resolves to (``Project.resolve``), where names are rebound or handed on.

The rules follow a loader from the builder that makes it to the loop or the
evaluation that reads it; each step resolves a call to the function or class
of the tree it runs. These pin two readings that decide findings: a module's
name rebound to an instance of one of its classes, and an instance handed to
a worker through ``mp.spawn``'s arguments.
"""

from __future__ import annotations

import ast
from pathlib import Path

from fairshard_lint.engine import _project_of

MODELS = (
    "import torch\nfrom torch.utils.data import DataLoader\n\n\n"
    "class LocalModel(torch.nn.Module):\n    pass\n"
)
FACTORY = (
    "from torch.utils.data import DataLoader\n\n\n"
    "class Factory:\n    def get_loader(self, split):\n        return DataLoader([split])\n"
)


def _resolved(tmp_path: Path, script: str, attribute: str) -> tuple[str, str] | None:
    """What the first call of ``.attribute(...)`` in ``script.py`` resolves to."""
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "__init__.py").write_text("")
    (tmp_path / "models" / "local.py").write_text(MODELS)
    (tmp_path / "models" / "factory.py").write_text(FACTORY)
    (tmp_path / "script.py").write_text(script)
    project, _ = _project_of(tmp_path, sorted(tmp_path.rglob("*.py")))
    module = project.modules["script"]
    call = next(
        c for c in module.calls if isinstance(c.func, ast.Attribute) and c.func.attr == attribute
    )
    return project.resolve("script", call)


def test_a_module_name_rebound_to_an_instance_still_names_its_class(tmp_path: Path) -> None:
    """``local = local.LocalModel()``: on the right, ``local`` is still the module."""
    script = (
        "from torch.utils.data import DataLoader\n"
        "from models import local\n\n"
        'if __name__ == "__main__":\n'
        "    local = local.LocalModel()\n"
    )
    assert _resolved(tmp_path, script, "LocalModel") == ("models.local", "LocalModel")


SPAWNED = """\
import torch.multiprocessing as mp
from torch.utils.data import DataLoader
from models.factory import Factory


def main(rank, world, factory):
    return factory.get_loader("train")


if __name__ == "__main__":
    factory = Factory()
    mp.spawn(main, args=(4, factory), nprocs=4)
    main(0, 1, factory=factory)
"""


def test_an_instance_handed_through_spawn_types_the_workers_parameter(tmp_path: Path) -> None:
    """``mp.spawn(main, args=(4, factory))``: ``main``'s ``factory`` is a ``Factory``."""
    assert _resolved(tmp_path, SPAWNED, "get_loader") == ("models.factory", "get_loader")


def test_a_parameter_of_a_function_nothing_spawns_stays_untyped(tmp_path: Path) -> None:
    """Plain calls alone do not type a parameter (see ``Project._parameter_instance``)."""
    script = SPAWNED.replace("    mp.spawn(main, args=(4, factory), nprocs=4)\n", "")
    assert _resolved(tmp_path, script, "get_loader") is None


def test_callers_that_disagree_leave_the_parameter_untyped(tmp_path: Path) -> None:
    """The spawn hands a ``Factory``, the direct call something else: no one class."""
    script = SPAWNED.replace("main(0, 1, factory=factory)", "main(0, 1, factory=object())")
    assert _resolved(tmp_path, script, "get_loader") is None
