"""The documentation site builds strictly: no broken link, no missing reference, no warning.

``mkdocs build --strict`` (what ``make docs`` runs) over ``mkdocs.yml``: the
guides in ``docs/``, the README and its Chinese translation, the changelog,
CONTRIBUTING.md and the API pages that ``docsite/hooks.py`` generates from
``tests/golden/exports.json``. Every pinned public name must have its entry.
"""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_MISSING = [
    name
    for name in ("mkdocs", "material", "mkdocstrings", "mkdocstrings_handlers")
    if importlib.util.find_spec(name) is None
]
pytestmark = pytest.mark.skipif(
    bool(_MISSING),
    reason=f"the [docs] extra is not installed (no {', '.join(_MISSING)}): "
    "`pip install -e '.[docs]'` (make install does)",
)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
        env={**__import__("os").environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "WARNING" not in done.stderr, done.stderr
    return out


def test_the_site_builds_strictly_with_every_page(site: Path) -> None:
    guides = {p.stem for p in (ROOT / "docs").glob("*.md")}
    pages = {p.relative_to(site).as_posix() for p in site.rglob("*.html")}
    assert {f"{g}.html" for g in guides} <= pages
    assert {"index.html", "README.zh-CN.html", "CHANGELOG.html", "CONTRIBUTING.html"} <= pages
    assert (site / "search" / "search_index.json").is_file()
    index = json.loads((site / "search" / "search_index.json").read_text())
    assert "zh" in index["config"]["lang"]
    assert any("为什么需要它" in doc["title"] for doc in index["docs"])  # the zh page is searchable


def test_every_pinned_public_name_has_its_api_entry(site: Path) -> None:
    pinned = json.loads((ROOT / "tests" / "golden" / "exports.json").read_text())
    ids: set[str] = set()
    for page in (site / "api").glob("*.html"):
        ids |= set(re.findall(r'id="(fairshard[\w.]*)"', page.read_text()))
    namespaced = {n for module, names in pinned.items() if module != "fairshard" for n in names}
    want = {
        f"{module}.{name}"
        for module, names in pinned.items()
        for name in names
        if module != "fairshard" or name not in namespaced
    }
    assert want - ids == set()


class _Files:
    """The two questions the link rewriter asks of mkdocs' ``Files``."""

    def __init__(self, uris: set[str], excluded: set[str] | frozenset[str] = frozenset()) -> None:
        self.uris, self.excluded = uris, excluded

    def get_file_from_path(self, uri: str) -> object | None:
        if uri not in self.uris:
            return None
        excluded = uri in self.excluded
        return type("F", (), {"inclusion": type("I", (), {"is_excluded": lambda s: excluded})()})()


def test_links_written_for_the_repository_lead_to_the_site_pages() -> None:
    from docsite.hooks import rewrite_links

    files = _Files(
        {"resume.md", "README.md", "img/x.png", "anneal_curves.py"}, {"anneal_curves.py"}
    )
    readme = (
        "[r](docs/resume.md#a) ![p](docs/img/x.png) [e](examples/train_mesh.py) [z](https://x.org)"
    )
    assert rewrite_links(readme, "README.md", files) == (
        "[r](resume.md#a) ![p](img/x.png) e [z](https://x.org)"
    )
    guide = "[h](../README.md#benchmarks) [s](anneal_curves.py) [t](#top)\n```\n[k](../x.md)\n```\n"
    assert rewrite_links(guide, "steps.md", files) == (
        "[h](README.md#benchmarks) s [t](#top)\n```\n[k](../x.md)\n```\n"
    )
    # a link to nothing stays a link, so that the strict build names it
    broken = "[m](missing.md) [g](../examples/gone.py) [o](../README.md#x)"
    assert rewrite_links(broken, "demo.md", files) == (
        "[m](missing.md) [g](../examples/gone.py) [o](README.md#x)"
    )
