"""The tree's command-line options read back at their default (``Project.option_default``).

A helper's branch is reached or not by the value a caller passes; where the
caller passes ``self.hparams.flag``, the flag's default decides on every run
no shipped text changes. The reading must agree with what ``argparse``
itself gives when the flag is left out, and must give up (``None``) where a
launch text names the flag or the tree defines it twice.
"""

from __future__ import annotations

import argparse
import ast
from pathlib import Path

import pytest

from fairshard_lint.engine import _project_of

OPTIONS = [
    ('"--keyed", action="store_true"', "keyed"),
    ('"--plain", action="store_false"', "plain"),
    ('"--batch-size", type=int, default=64', "batch_size"),
    ('"--mode", default="eval"', "mode"),
    ('"-r", "--ratio", type=float, default=0.5', "ratio"),
]


def _project(tmp_path: Path, options: str, readme: str = "") -> object:
    source = (
        "import argparse\nfrom torch.utils.data import DataLoader\n"
        "parser = argparse.ArgumentParser()\n"
        + "".join(f"parser.add_argument({o})\n" for o in options.split("|"))
    )
    (tmp_path / "train.py").write_text(source)
    if readme:
        (tmp_path / "README.md").write_text(readme)
    project, _ = _project_of(tmp_path, sorted(tmp_path.rglob("*.py")))
    return project


@pytest.mark.parametrize(("option", "dest"), OPTIONS)
def test_a_default_agrees_with_argparse(tmp_path: Path, option: str, dest: str) -> None:
    project = _project(tmp_path, option)
    parser = argparse.ArgumentParser()
    exec(f"parser.add_argument({option})", {"parser": parser})
    expected = getattr(parser.parse_args([]), dest)
    found = project.option_default(dest)  # type: ignore[attr-defined]
    assert isinstance(found, ast.Constant)
    assert found.value == expected


@pytest.mark.parametrize(("option", "dest"), OPTIONS)
def test_a_flag_a_launch_text_names_is_unknown(tmp_path: Path, option: str, dest: str) -> None:
    flag = next(part.strip('" ') for part in option.split(",") if part.strip().startswith('"--'))
    project = _project(tmp_path, option, readme=f"```bash\npython train.py {flag} 1\n```\n")
    assert project.option_default(dest) is None  # type: ignore[attr-defined]


#: Each way a tree may give ``--keyed`` a value besides a launch line (file, text).
SETTERS = [
    ("run.ipynb", '{"cells": [{"source": ["!python train.py --keyed"]}]}'),
    ("configs/base.yaml", "keyed: true\n"),
    ("configs/base.json", '{"keyed": true}'),
    ("setup.cfg", "[train]\nkeyed = 1\n"),
    ("notebook_args.py", "from argparse import Namespace\nargs = Namespace(keyed=True)\n"),
    ("override.py", "def force(args):\n    args.keyed = True\n"),
    ("by_name.py", "def force(args):\n    setattr(args, 'keyed', True)\n"),
    ("other_holder.py", "def force(opts):\n    opts.keyed = not opts.plain\n"),
]


@pytest.mark.parametrize(("name", "text"), SETTERS, ids=[n for n, _ in SETTERS])
def test_a_flag_something_else_may_set_is_unknown(tmp_path: Path, name: str, text: str) -> None:
    (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / name).write_text(text)
    project = _project(tmp_path, '"--keyed", action="store_true"')
    assert project.option_default("keyed") is None  # type: ignore[attr-defined]


def test_reads_of_a_flag_leave_its_default(tmp_path: Path) -> None:
    (tmp_path / "data.py").write_text(
        "class Data:\n    def __init__(self, args):\n        self.keyed = args.keyed\n"
        "        self.other = dict(keyed=args.keyed)\n"
        "        args.plain = True\n"
        "    def build(self, args):\n        return 1 if args.keyed else 0\n"
    )
    (tmp_path / "notes.yaml").write_text("keyed_other: true\n")
    project = _project(tmp_path, '"--keyed", action="store_true"')
    found = project.option_default("keyed")  # type: ignore[attr-defined]
    assert isinstance(found, ast.Constant)
    assert found.value is False


def test_an_option_defined_twice_is_unknown(tmp_path: Path) -> None:
    project = _project(tmp_path, '"--keyed", action="store_true"|"--keyed", default=True')
    assert project.option_default("keyed") is None  # type: ignore[attr-defined]


def test_an_option_the_tree_never_defines_is_unknown(tmp_path: Path) -> None:
    project = _project(tmp_path, '"--keyed", action="store_true"')
    assert project.option_default("other") is None  # type: ignore[attr-defined]


def test_launch_values_follow_a_shell_variable_of_the_same_file(tmp_path: Path) -> None:
    from fairshard_lint.launch_counts import launch_flag_values

    (tmp_path / "run.sh").write_text("seed=-1\npython train.py --seed $seed --lr 1e-4\n")
    (tmp_path / "other.sh").write_text("python predict.py --seed=7\n")
    assert launch_flag_values(tmp_path, ["--seed"], "train.py") == ["-1"]
    assert launch_flag_values(tmp_path, ["--seed"], "predict.py") == ["7"]
    assert launch_flag_values(tmp_path, ["--seed"], "eval.py") == []


def test_launch_values_a_loop_or_a_second_assignment_makes_unknown(tmp_path: Path) -> None:
    from fairshard_lint.launch_counts import launch_flag_values

    (tmp_path / "sweep.sh").write_text(
        "for seed in 1 2 3; do\n  python train.py --seed $seed\ndone\n"
    )
    assert launch_flag_values(tmp_path, ["--seed"], "train.py") is None
    (tmp_path / "sweep.sh").write_text("s=1\ns=2\npython train.py --seed $s\n")
    assert launch_flag_values(tmp_path, ["--seed"], "train.py") is None
    (tmp_path / "sweep.sh").write_text("seed=$RANDOM\npython train.py --seed $seed\n")
    assert launch_flag_values(tmp_path, ["--seed"], "train.py") is None
