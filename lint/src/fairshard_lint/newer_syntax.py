"""Parse files written for a newer Python than the one running the linter.

NOTE (why): the linter reads files with the running interpreter's ``ast``.
Python 3.12's type parameters (``class Buffer[T]:``, ``def first[T](xs):``)
and ``type`` aliases (``type Batch = dict[str, Tensor]``) are syntax errors
on 3.11, so a repository that requires 3.12 would have those files reported
as ``FS100`` and left unchecked. None of that syntax bears on data loading,
so :func:`without_type_parameters` blanks it out, keeping every other
character where it was (line and column numbers stay right), and the file
is parsed again. Only used after a ``SyntaxError``, and only on interpreters
older than 3.12; a file that still does not parse reports the error left
in the blanked text, on its own line (the 3.12 syntax before it is valid).
"""

from __future__ import annotations

import io
import sys
import tokenize

__all__ = ["NEEDS_FALLBACK", "without_type_parameters"]

#: The running interpreter cannot parse PEP 695 syntax itself.
NEEDS_FALLBACK = sys.version_info < (3, 12)


def without_type_parameters(source: str) -> str | None:
    """``source`` with PEP 695 type parameters blanked and ``type`` aliases made assignments.

    Returns ``None`` when there is nothing to change, so the caller keeps the
    original error.
    """
    tokens: list[tokenize.TokenInfo] = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            tokens.append(token)
    except (tokenize.TokenError, SyntaxError):
        pass  # an unclosed bracket further on: the tokens before it still count
    lines = source.splitlines(keepends=True)
    blanks: list[tuple[tuple[int, int], tuple[int, int]]] = []  # spaces in place
    cuts: list[tuple[int, int, int]] = []  # (row, col0, col1): removed, the line padded
    statement_starts = True
    for i, tok in enumerate(tokens):
        after = tokens[i + 1] if i + 1 < len(tokens) else None
        third = tokens[i + 2] if i + 2 < len(tokens) else None
        named = tok.type == tokenize.NAME and after is not None and after.type == tokenize.NAME
        opens = third is not None and third.string == "["
        if named and tok.string in ("class", "def") and opens:
            close = _matching(tokens, i + 2)
            if close is not None:
                blanks.append((tokens[i + 2].start, tokens[close].end))
        elif (
            named
            and after is not None
            and statement_starts
            and tok.string == "type"
            and third is not None
            and third.string in ("=", "[")
        ):
            cuts.append((tok.start[0], tok.start[1], after.start[1]))  # type X = v -> X = v
            if opens and (close := _matching(tokens, i + 2)) is not None:
                blanks.append((tokens[i + 2].start, tokens[close].end))
        statement_starts = tok.type in _STATEMENT_BREAKS or tok.string == ";"
    if not blanks and not cuts:
        return None
    for (row0, col0), (row1, col1) in blanks:
        if row0 != row1:
            return None  # brackets over several lines: leave the error as it is
        line = lines[row0 - 1]
        lines[row0 - 1] = line[:col0] + " " * (col1 - col0) + line[col1:]
    for row, col0, col1 in cuts:
        line = lines[row - 1]
        body, newline = line.rstrip("\r\n"), line[len(line.rstrip("\r\n")) :]
        lines[row - 1] = body[:col0] + body[col1:] + " " * (col1 - col0) + newline
    return "".join(lines)


_STATEMENT_BREAKS = frozenset(
    {tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.NL, tokenize.COMMENT}
)


def _matching(tokens: list[tokenize.TokenInfo], opening: int) -> int | None:
    """Index of the ``]`` closing the ``[`` at ``opening``."""
    depth = 0
    for j in range(opening, len(tokens)):
        if tokens[j].type != tokenize.OP:
            continue
        if tokens[j].string in "([{":
            depth += 1
        elif tokens[j].string in ")]}":
            depth -= 1
            if depth == 0:
                return j
    return None
