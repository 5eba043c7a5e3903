"""``fairshard lint DIR`` follows imports inside the folder (rules FS101 and FS109).

Each folder of ``lint_projects/`` is a small tree whose loader, sampler or
training function is built in one module and used in another; every
finding it must produce is marked ``# expect: CODE`` on its line, and a
finding without a mark is a false positive. The same files linted one by
one (no project) miss the cross-module findings: that is what the project
adds.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from fairshard_lint import lint_paths

PROJECTS = Path(__file__).parent / "lint_projects"
_EXPECT = re.compile(r"#\s*expect:\s*(?P<codes>FS\d+(?:\s*,\s*FS\d+)*)")
NAMES = sorted(p.name for p in PROJECTS.iterdir() if p.is_dir() and not p.name.startswith("_"))


def _expected(root: Path) -> set[tuple[str, int, str]]:
    marks = set()
    for path in sorted(root.rglob("*.py")):
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            match = _EXPECT.search(line)
            if match:
                for code in re.split(r"\s*,\s*", match.group("codes")):
                    marks.add((path.relative_to(root).as_posix(), number, code))
    return marks


def _found(root: Path, paths: list[Path]) -> set[tuple[str, int, str]]:
    findings, _ = lint_paths(paths)
    return {(Path(f.path).relative_to(root).as_posix(), f.line, f.code) for f in findings}


@pytest.mark.parametrize("name", NAMES)
def test_project_findings_are_exactly_the_marked_ones(name: str) -> None:
    root = PROJECTS / name
    expected = _expected(root)
    assert bool(expected) != name.endswith("_good"), "a _good project marks nothing"
    assert _found(root, [root]) == expected


@pytest.mark.parametrize("name", [n for n in NAMES if not n.endswith("_good")])
def test_the_cross_module_finding_needs_the_project(name: str) -> None:
    root = PROJECTS / name
    files = sorted(root.rglob("*.py"))
    alone = _found(root, files)  # each file named on its own: no project
    assert alone < _expected(root) or name == "train_branch"


def test_evaluation_reached_from_another_module_is_named() -> None:
    root = PROJECTS / "enum_factory"
    findings, _ = lint_paths([root])
    (finding,) = findings
    assert "reached from" in finding.message and "eval.py:5" in finding.message


def test_imported_set_epoch_is_seen_only_in_the_project() -> None:
    root = PROJECTS / "imported_train_sets_epoch_good"
    assert _found(root, [root]) == set()
    assert _found(root, sorted(root.rglob("*.py"))) == {("main.py", 9, "FS101")}
