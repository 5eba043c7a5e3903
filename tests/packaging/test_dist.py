"""The release: one version, both distributions' wheels hold what they must, and they install.

The fast checks build the two wheels with the installed setuptools (no
registry, a few seconds) and read them; the clean-venv install (a venv,
torch, the wheels, the commands run outside the checkout: one to two
minutes) runs in ``make test-dist``, as the pre-commit hook test runs in
``make test-hook``. ``make dist`` builds, checks and installs the same way
(``tests/packaging/dist.py``).
"""

from __future__ import annotations

import importlib.metadata
import os
import re
import zipfile
from pathlib import Path

import pytest

import fairshard
import fairshard_lint

from . import dist

ROOT = dist.ROOT


def _setuptools_major() -> int:
    try:
        return int(importlib.metadata.version("setuptools").split(".")[0])
    except importlib.metadata.PackageNotFoundError:
        return 0


@pytest.fixture(scope="module")
def wheels(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    if _setuptools_major() < 77:  # e.g. the floors venv's: pyproject's build needs >= 77
        pytest.skip(
            "the installed setuptools is older than the build's setuptools>=77 "
            "([build-system]); make dist builds in an isolated environment"
        )
    return dist.build(tmp_path_factory.mktemp("wheels"), wheel_only=True)


def test_one_version_for_both_distributions_and_the_changelog() -> None:
    link = ROOT / "lint" / "src" / "fairshard_lint" / "_version.py"
    assert link.is_symlink(), "the linter's _version.py is a link to fairshard's, one number"
    assert link.resolve() == (ROOT / "src" / "fairshard" / "_version.py").resolve()
    assert fairshard.__version__ == fairshard_lint.__version__ == dist.version()
    changelog = (ROOT / "CHANGELOG.md").read_text()
    released = re.findall(r"^## (\d+\.\d+\.\d+) \((\d{4}-\d\d-\d\d)\)$", changelog, re.M)
    assert released, "CHANGELOG.md: every release heading is '## X.Y.Z (YYYY-MM-DD)'"
    assert released[0][0] == fairshard.__version__, "the newest released section is this version"
    headings = re.findall(r"^## (.+)$", changelog, re.M)
    unreleased = [h for h in headings if h.startswith("Unreleased")]
    assert len(headings) == len(released) + len(unreleased), headings
    dates = [date for _version, date in released]
    assert dates == sorted(dates, reverse=True), "releases newest first"


def test_the_wheels_hold_the_packages_and_nothing_else(wheels: list[Path]) -> None:
    assert sorted(w.name for w in wheels) == [
        f"fairshard-{dist.version()}-py3-none-any.whl",
        f"fairshard_lint-{dist.version()}-py3-none-any.whl",
    ]
    for wheel in wheels:
        assert dist.check_wheel(wheel) == []
    with zipfile.ZipFile(wheels[0]) as archive:
        names = set(archive.namelist())
    assert dist.lazy_table_modules() <= names  # what `import fairshard` resolves lazily
    assert {"fairshard/py.typed", "fairshard_lint/py.typed"} <= names
    assert f"fairshard-{dist.version()}.dist-info/licenses/LICENSE" in names


def test_the_check_names_what_a_wheel_lacks_or_should_not_ship(
    wheels: list[Path], tmp_path: Path
) -> None:
    """The checker itself: a wheel without py.typed or a lazy module, or with tests, fails it."""
    good = wheels[0]
    bad = tmp_path / good.name
    with zipfile.ZipFile(good) as source, zipfile.ZipFile(bad, "w") as target:
        for item in source.infolist():
            if item.filename not in ("fairshard/py.typed", "fairshard/_batching/costs.py"):
                target.writestr(item, source.read(item))
        target.writestr("tests/test_x.py", "")
        target.writestr("fairshard/__pycache__/x.cpython-311.pyc", "")
    problems = "\n".join(dist.check_wheel(bad))
    assert "fairshard/py.typed is missing" in problems
    assert "fairshard/_batching/costs.py is missing" in problems
    assert "tests/test_x.py should not be shipped" in problems
    assert "x.cpython-311.pyc should not be shipped" in problems


def test_the_long_descriptions_render(wheels: list[Path]) -> None:
    if not (dist._importable("twine") or dist._importable("readme_renderer")):
        pytest.skip("neither twine nor readme_renderer is installed ([dev] installs twine)")
    problems, _how = dist.render_problems(wheels)
    assert problems == []


@pytest.mark.skipif(
    os.environ.get("FAIRSHARD_DIST_TEST") != "1",
    reason="builds both sdists and wheels, then installs torch and them in clean venvs "
    "(one to two minutes on a quiet machine): run by `make test-dist`",
)
@pytest.mark.timeout(1200)
def test_sdists_and_wheels_install_and_run_in_a_clean_venv(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    out = tmp_path_factory.mktemp("dist")
    paths = dist.build(out)
    assert sorted(p.name for p in paths) == sorted(
        f"{name}-{dist.version()}{suffix}"
        for name in ("fairshard", "fairshard_lint")
        for suffix in (".tar.gz", "-py3-none-any.whl")
    )
    assert dist.check(paths) == []
    wheels = [p for p in paths if p.suffix == ".whl"]
    log = dist.install_and_run(wheels, tmp_path_factory.mktemp("venv"))
    print(log)
    text = str(log)
    assert f"fairshard {dist.version()}" in text
    assert "FS101" in text
    assert "public names imported" in text and "no torch" in text
