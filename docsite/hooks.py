"""mkdocs hooks for the documentation site: the repository's pages as they are, and the API pages.

* The README, its Chinese translation, the changelog and CONTRIBUTING.md live
  at the repository's root, outside ``docs/``: they join the site under their
  own names, unchanged but for their links.
* Links are written for the repository (``docs/resume.md`` from the README,
  ``../README.md`` from a guide): each is resolved against the page's place
  in the repository and rewritten to the page of the site; a link to a file
  the site does not hold (an example, a benchmark, a test) becomes its text.
* The API reference is generated: one page per public module, one
  mkdocstrings entry per name that ``tests/golden/exports.json`` pins (the
  top level grouped by the layer that defines each name), so a new public
  name cannot miss its page.
"""

from __future__ import annotations

import ast
import json
import posixpath
import re
from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parents[1]
#: Pages at the repository's root that the site holds, under the same names.
ROOT_PAGES = ("README.md", "README.zh-CN.md", "CHANGELOG.md", "CONTRIBUTING.md")
NAMESPACES = ("distributed", "diagnostics", "formats")
#: The top-level page's sections: the layer a name is defined in (``_EXPORTS``).
GROUPS = {
    "_samplers": "Index samplers",
    "_batching": "Batch samplers, packing and costs",
    "_streams": "Streams and splits",
    "_core": "Steps and partitions",
    "_evaluation": "Evaluation",
    "_random": "Randomness",
    "_errors": "Errors and warnings",
}
_LINK = re.compile(r"(!?)\[((?:[^\[\]]|\[[^\]]*\])*)\]\(([^)\s]+)\)")
_FENCE = re.compile(r"^(```|~~~).*?^\1[ \t]*$", re.S | re.M)


def _exports_table() -> dict[str, str]:
    tree = ast.parse((ROOT / "src" / "fairshard" / "__init__.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.AnnAssign) and getattr(node.target, "id", "") == "_EXPORTS":
            return dict(ast.literal_eval(node.value))  # type: ignore[arg-type]
    raise RuntimeError("src/fairshard/__init__.py has no _EXPORTS table")


def api_pages() -> dict[str, str]:
    """The API reference's pages (site path -> Markdown), from the pinned public names."""
    pinned: dict[str, Any] = json.loads((ROOT / "tests/golden/exports.json").read_text())
    table = _exports_table()
    homes = {name: ns for ns in NAMESPACES for name in pinned[f"fairshard.{ns}"]}
    pages: dict[str, str] = {}
    index = [
        "# API reference",
        "",
        "Generated from the docstrings of every public name (the names that",
        "`tests/golden/exports.json` pins; [the compatibility policy](../compatibility.md)",
        "covers them). Four public modules:",
        "",
        "- [`fairshard`](fairshard.md): the samplers, batch samplers, streams, "
        "evaluation and errors; it re-exports every name of the three namespaces "
        "as the same object.",
        "- [`fairshard.distributed`](distributed.md): the job tools.",
        "- [`fairshard.diagnostics`](diagnostics.md): the simulator and the checks.",
        "- [`fairshard.formats`](formats.md): sharded formats as datasets.",
        "",
    ]
    pages["api/index.md"] = "\n".join(index)
    top = [
        "# fairshard",
        "",
        "::: fairshard",
        "    options:",
        "      members: false",
        "      show_root_heading: false",
        "",
    ]
    grouped: dict[str, list[str]] = {}
    for name in sorted(pinned["fairshard"]):
        if name in homes:
            continue
        layer = table[name].lstrip(".").split(".")[0]
        grouped.setdefault(GROUPS.get(layer, "Other"), []).append(name)
    for title in [*GROUPS.values(), "Other"]:
        if title not in grouped:
            continue
        top += [f"## {title}", ""]
        for name in grouped[title]:
            top += [f"::: fairshard.{name}", "    options:", "      heading_level: 3", ""]
    top += [
        "## From the namespaces",
        "",
        "The same objects as the namespaces' names, importable from `fairshard`:",
        "",
    ]
    for name in sorted(homes):
        top.append(f"- `fairshard.{name}`: [fairshard.{homes[name]}.{name}][]")
    pages["api/fairshard.md"] = "\n".join([*top, ""])
    for ns in NAMESPACES:
        body = [
            f"# fairshard.{ns}",
            "",
            f"::: fairshard.{ns}",
            "    options:",
            "      members: false",
            "      show_root_heading: false",
            "",
        ]
        for name in sorted(pinned[f"fairshard.{ns}"]):
            body += [f"::: fairshard.{ns}.{name}", ""]
        pages[f"api/{ns}.md"] = "\n".join(body)
    return pages


def on_files(files: Files, config: Any) -> Files:
    """Add the root pages and the generated API pages to the site."""
    for name in ROOT_PAGES:
        files.append(File.generated(config, name, abs_src_path=str(ROOT / name)))
    for uri, text in api_pages().items():
        files.append(File.generated(config, uri, content=text))
    return files


def _repository_path(page_uri: str) -> str:
    """Where the page at site path ``page_uri`` lives in the repository."""
    if page_uri in ROOT_PAGES:
        return page_uri
    return f"docs/{page_uri}"


def _site_target(target: str, page_uri: str, files: Files) -> str | None:
    """The site link for repository link ``target`` on page ``page_uri``.

    None for a file of the repository the site does not hold (its text is
    kept); a link to a page or file that does not exist is kept as a link,
    so that the strict build reports it.
    """
    path, _, anchor = target.partition("#")
    if not path:
        return target
    here = posixpath.dirname(_repository_path(page_uri))
    resolved = posixpath.normpath(posixpath.join(here, path))
    if resolved in ROOT_PAGES:
        uri = resolved
    elif resolved.startswith("docs/"):
        uri = resolved.removeprefix("docs/")
        file = files.get_file_from_path(uri)
        if file is not None and file.inclusion.is_excluded():
            return None  # a script beside the guides (docs/*.py): shown as its name
    else:
        return None if (ROOT / resolved).exists() else target
    link = posixpath.relpath(uri, posixpath.dirname(page_uri) or ".")
    return f"{link}#{anchor}" if anchor else link


def rewrite_links(markdown: str, page_uri: str, files: Files) -> str:
    """Rewrite the page's repository links for the site (code blocks untouched)."""

    def one(match: re.Match[str]) -> str:
        bang, text, target = match.groups()
        if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith(("#", "/")):
            return match.group(0)
        site = _site_target(target, page_uri, files)
        if site is None:
            return text if not bang else f"`{target}`"
        return f"{bang}[{text}]({site})"

    out, last = [], 0
    for fence in _FENCE.finditer(markdown):
        out.append(_LINK.sub(one, markdown[last : fence.start()]))
        out.append(fence.group(0))
        last = fence.end()
    out.append(_LINK.sub(one, markdown[last:]))
    return "".join(out)


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    """Every page's links, rewritten from the repository's layout to the site's."""
    if page.file.src_uri.startswith("api/"):
        return markdown
    return rewrite_links(markdown, page.file.src_uri, files)
