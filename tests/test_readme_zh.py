"""README.zh-CN.md stays in sync with README.md.

The Chinese README translates the prose but must show the same commands and
code: its ``bash``/``python`` blocks equal the English README's, the same
blocks in the same order; its tables name the same samplers and lint rules;
and every relative link points at a file that exists. Everything is read from
both files at test time, so an edit to README.md that the Chinese page does
not follow fails here, saying what to copy.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENGLISH = ROOT / "README.md"
CHINESE = ROOT / "README.zh-CN.md"
FENCE = re.compile(r"^```(\w+)[^\n]*\n(.*?)^```", re.M | re.S)
CODE_LANGS = {"bash", "sh", "shell", "console", "python"}
TABLE_NAME = re.compile(r"^\| `([A-Za-z][\w.]*)` \|", re.M)  # first cell: one name
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def code_blocks(page: Path) -> list[tuple[str, str]]:
    """``(language, code)`` of the page's shell and python blocks, in order."""
    return [
        (m.group(1), m.group(2))
        for m in FENCE.finditer(page.read_text(encoding="utf-8"))
        if m.group(1) in CODE_LANGS
    ]


def test_same_commands_and_code_blocks_in_the_same_order() -> None:
    english, chinese = code_blocks(ENGLISH), code_blocks(CHINESE)
    assert english, "README.md has no code blocks: the extraction is broken"
    for number, (en, zh) in enumerate(zip(english, chinese, strict=False), 1):
        assert en == zh, (
            f"code block {number} differs: README.md has\n```{en[0]}\n{en[1]}```\n"
            f"but README.zh-CN.md has\n```{zh[0]}\n{zh[1]}```\ncopy the English block"
        )
    assert len(english) == len(chinese), (
        f"README.md has {len(english)} code blocks, README.zh-CN.md {len(chinese)}; "
        f"{'add' if len(english) > len(chinese) else 'remove'} blocks "
        f"{min(len(english), len(chinese)) + 1}.. in README.zh-CN.md to match"
    )


def test_tables_name_the_same_samplers_and_rules() -> None:
    english = TABLE_NAME.findall(ENGLISH.read_text(encoding="utf-8"))
    chinese = TABLE_NAME.findall(CHINESE.read_text(encoding="utf-8"))
    assert any(name.startswith("FS1") for name in english), "no lint table found"
    assert any(name.endswith("Sampler") for name in english), "no sampler table found"
    assert chinese == english, (
        f"table rows differ; only in README.md: {sorted(set(english) - set(chinese))}, "
        f"only in README.zh-CN.md: {sorted(set(chinese) - set(english))}"
    )


def test_relative_links_resolve() -> None:
    text = CHINESE.read_text(encoding="utf-8")
    targets = [t for t in LINK.findall(text) if "://" not in t]
    assert "README.md" in targets and "docs/recipes.md" in targets
    missing = [t for t in targets if not (ROOT / t).exists()]
    assert not missing, f"README.zh-CN.md links to missing files: {missing}"


def test_the_check_would_catch_a_drift(tmp_path: Path) -> None:
    """The extraction sees a one-character change in a block."""
    page = tmp_path / "page.md"
    page.write_text(CHINESE.read_text(encoding="utf-8").replace("-n 1003", "-n 1004", 1))
    assert code_blocks(page) != code_blocks(CHINESE)
