"""Output of ``fairshard lint``: ``path:line:col: CODE message`` lines, JSON, rule list."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Sequence
from dataclasses import asdict

from .engine import PARSE_ERROR, Finding
from .rules import RULES

__all__ = ["SCHEMA", "format_json", "format_rules", "format_text"]

SCHEMA = "fairshard.lint"


def format_text(findings: Sequence[Finding]) -> str:
    """One ``path:line:col: CODE message`` line per finding."""
    return "\n".join(str(f) for f in findings)


def format_json(findings: Sequence[Finding], files: int) -> str:
    """The findings as JSON (schema in docs/pitfalls.md).

    ``{"schema", "version", "files", "count", "findings": [{path, line, col,
    code, message, rule}]}``.
    """
    items = []
    for finding in findings:
        entry = asdict(finding)
        rule = RULES.get(finding.code)
        entry["rule"] = rule.name if rule else "parse-error"
        items.append(entry)
    return json.dumps(
        {"schema": SCHEMA, "version": 1, "files": files, "count": len(items), "findings": items},
        indent=2,
    )


def format_rules() -> str:
    """Every rule: code and name, then what goes wrong and the fix, wrapped."""
    lines: list[str] = []
    for code, rule in sorted(RULES.items()):
        lines.append(f"{code} {rule.name}")
        lines.extend(
            textwrap.wrap(
                rule.problem, 88, initial_indent="    problem: ", subsequent_indent="      "
            )
        )
        lines.extend(
            textwrap.wrap(rule.fix, 88, initial_indent="    fix: ", subsequent_indent="      ")
        )
    lines.append(f"{PARSE_ERROR} parse-error")
    lines.append("    problem: the file is not valid Python, so nothing else was checked")
    return "\n".join(lines)
