"""Output of ``fairshard lint``: text lines, JSON, GitHub annotations, SARIF, rule list.

``text`` is ``path:line:col: CODE message``; ``json`` is this project's
schema (docs/pitfalls.md); ``github`` prints workflow commands that GitHub
Actions turns into annotations on the pull request; ``sarif`` is SARIF 2.1.0,
which code-scanning tools (GitHub code scanning and others) ingest.
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path

from ._version import __version__
from .engine import PARSE_ERROR, Finding
from .rules import RULES

__all__ = [
    "FORMATS",
    "SCHEMA",
    "format_findings",
    "format_github",
    "format_json",
    "format_rules",
    "format_sarif",
    "format_text",
]

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


_OPT_IN = " (opt-in: --select ALL or --extend-select to run it)"


def format_rules() -> str:
    """Every rule: code and name (marked when opt-in), then what goes wrong and the fix."""
    lines: list[str] = []
    for code, rule in sorted(RULES.items()):
        lines.append(f"{code} {rule.name}" + ("" if rule.default else _OPT_IN))
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


def _rule_name(code: str) -> str:
    rule = RULES.get(code)
    return rule.name if rule else "parse-error"


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def format_github(findings: Sequence[Finding]) -> str:
    """GitHub Actions workflow commands, one ``::error`` annotation per finding.

    Example:
        >>> print(format_github([Finding("a.py", 3, 5, "FS101", "no set_epoch")]))
        ::error file=a.py,line=3,col=5,title=FS101 set-epoch-missing::no set_epoch
    """
    return "\n".join(
        f"::error file={_escape_property(f.path)},line={f.line},col={f.col},"
        f"title={_escape_property(f'{f.code} {_rule_name(f.code)}')}::{_escape_data(f.message)}"
        for f in findings
    )


_SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def format_sarif(findings: Sequence[Finding]) -> str:
    """SARIF 2.1.0: one run, every rule described, one result per finding."""
    rules = [
        {
            "id": code,
            "name": rule.name,
            "shortDescription": {"text": rule.problem.split(":")[0]},
            "fullDescription": {"text": rule.problem},
            "help": {"text": f"Fix: {rule.fix}"},
            # an opt-in rule is off unless selected (SARIF's reportingConfiguration.enabled)
            "defaultConfiguration": {"level": "error", "enabled": rule.default},
        }
        for code, rule in sorted(RULES.items())
    ]
    rules.append(
        {
            "id": PARSE_ERROR,
            "name": "parse-error",
            "shortDescription": {"text": "the file could not be read or parsed"},
            "fullDescription": {"text": "the file could not be read or parsed: nothing checked"},
            "help": {"text": "Fix: make the file valid Python in a declared encoding"},
            "defaultConfiguration": {"level": "error"},
        }
    )
    index = {rule["id"]: position for position, rule in enumerate(rules)}
    results = [
        {
            "ruleId": f.code,
            "ruleIndex": index[f.code],
            "level": "error",
            "message": {"text": f.message},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": Path(f.path).as_posix()},
                        "region": {"startLine": f.line, "startColumn": f.col},
                    }
                }
            ],
        }
        for f in findings
    ]
    log = {
        "$schema": _SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "fairshard-lint",
                        "version": __version__,
                        "rules": rules,
                    }
                },
                "results": results,
            }
        ],
    }
    return json.dumps(log, indent=2)


#: Output formats of ``fairshard lint --format``.
FORMATS = ("text", "json", "github", "sarif")


def format_findings(kind: str, findings: Sequence[Finding], files: int) -> str:
    """The findings in format ``kind`` (one of :data:`FORMATS`); ``""`` for none in text."""
    if kind == "json":
        return format_json(findings, files)
    if kind == "sarif":
        return format_sarif(findings)
    if kind == "github":
        return format_github(findings)
    return format_text(findings)
