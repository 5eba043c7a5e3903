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

Python 3.12 also reads f-strings whose replacement fields reuse the outer
quote (``f"{os.environ["WANDB_PROJECT"]}"``, PEP 701), a syntax error on
3.11; a repository written for 3.12 had its training script reported as
``FS100`` and unread. :func:`with_inner_quotes_swapped` gives each such
inner string the other quote character (same length: positions stay), where
that is all the field needs.
"""

from __future__ import annotations

import io
import re
import sys
import tokenize

__all__ = ["NEEDS_FALLBACK", "with_inner_quotes_swapped", "without_type_parameters"]

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


#: A string literal's start: its prefix (not part of a longer name) and its quote.
_STRING_START = re.compile(r"(?<![\w])([rRbBuUfF]{0,2})(\'\'\'|\"\"\"|\'|\")")
_OTHER = {"'": '"', '"': "'"}


class _Unreadable(Exception):
    """Text this small scanner does not follow: the original error stands."""


def with_inner_quotes_swapped(source: str) -> str | None:
    """``source`` with f-string fields' inner strings quoted apart from their f-string.

    A nested f-string on the same quote is requoted too, where its own text
    and fields then hold neither quote of the strings around it. Returns
    ``None`` when nothing needs it or the text cannot be followed (an inner
    string holding the other quote, a backslash in a field), so the caller
    keeps the original error.
    """
    chars = list(source)
    changed = False
    i = 0
    try:
        while i < len(source):
            c = source[i]
            if c == "#":
                i = _line_end(source, i)
                continue
            start = _STRING_START.match(source, i) if c in "'\"rRbBuUfF" else None
            if start is None:
                i += 1
                continue
            quote = start.group(2)
            if "f" in start.group(1).lower():
                i, swapped = _fstring(source, start.end(), quote, chars, (quote,))
                changed = changed or swapped
            else:
                i = _plain_end(source, start.end(), quote)
    except _Unreadable:
        return None
    return "".join(chars) if changed else None


def _line_end(source: str, i: int) -> int:
    end = source.find("\n", i)
    return len(source) if end < 0 else end


def _plain_end(source: str, i: int, quote: str) -> int:
    """Index after the closing ``quote`` of a string whose body starts at ``i``."""
    while i < len(source):
        if source[i] == "\\":
            i += 2
        elif source.startswith(quote, i):
            return i + len(quote)
        elif source[i] == "\n" and len(quote) == 1:
            raise _Unreadable
        else:
            i += 1
    raise _Unreadable


def _fstring(
    source: str, i: int, quote: str, chars: list[str], enclosing: tuple[str, ...]
) -> tuple[int, bool]:
    """Scan an f-string body from ``i``: (index after its close, whether a field changed).

    ``quote`` closes it in the source; ``enclosing`` holds the delimiters it
    and the f-strings around it have once requoted, which no string of its
    fields may reuse on 3.11.
    """
    swapped = False
    while i < len(source):
        if source[i] == "\\" or source.startswith("{{", i):
            i += 2
        elif source[i] == "{":
            i, changed = _field(source, i + 1, quote, chars, enclosing)
            swapped = swapped or changed
        elif source.startswith(quote, i):
            return i + len(quote), swapped
        elif source[i] == "\n" and len(quote) == 1:
            raise _Unreadable
        else:
            i += 1
    raise _Unreadable


def _clashes(delimiter: str, enclosing: tuple[str, ...]) -> bool:
    """A string opened by ``delimiter`` would close one of ``enclosing`` on 3.11."""
    return any(delimiter[0] == q[0] and (len(q) == 1 or delimiter == q) for q in enclosing)


def _field(
    source: str, i: int, quote: str, chars: list[str], enclosing: tuple[str, ...]
) -> tuple[int, bool]:
    """Scan a replacement field from ``i`` to its ``}``; requote inner strings that clash."""
    depth = 0
    swapped = False
    while i < len(source):
        c = source[i]
        if c == "\\" or c == "#":
            raise _Unreadable
        start = _STRING_START.match(source, i) if c in "'\"rRbBuUfF" else None
        if start is not None:
            i = _inner_string(source, start, chars, enclosing)
            swapped = swapped or any(
                chars[k] != source[k] for k in range(start.start(2), start.end(2))
            )
            continue
        if c in "([{":
            depth += 1
        elif c in ")]" or (c == "}" and depth > 0):
            depth -= 1
        elif c == "}":
            return i + 1, swapped
        elif c == ":" and depth == 0 and not source.startswith(":=", i):
            return _spec(source, i + 1, quote, chars, enclosing, swapped)
        elif c == "\n" and any(len(q) == 1 for q in enclosing):
            raise _Unreadable
        i += 1
    raise _Unreadable


def _inner_string(
    source: str, start: re.Match[str], chars: list[str], enclosing: tuple[str, ...]
) -> int:
    """Scan a string inside a field, requoting it where its quote clashes; its end."""
    inner, body = start.group(2), start.end()
    effective = inner
    if _clashes(inner, enclosing):
        effective = _OTHER[inner[0]] * len(inner)
        if _clashes(effective, enclosing):
            raise _Unreadable
    if "f" in start.group(1).lower():
        end, _ = _fstring(source, body, inner, chars, (*enclosing, effective))
    else:
        end = _plain_end(source, body, inner)
        if "\\" in source[body : end - len(inner)]:
            raise _Unreadable  # 3.11 reads no backslash inside a field
    if effective != inner:
        if any(chars[k] == effective[0] for k in range(body, end - len(inner))):
            raise _Unreadable  # the other quote inside: it would close the string
        for k in (*range(start.start(2), body), *range(end - len(inner), end)):
            chars[k] = effective[0]
    return end


def _spec(
    source: str,
    i: int,
    quote: str,
    chars: list[str],
    enclosing: tuple[str, ...],
    swapped: bool,
) -> tuple[int, bool]:
    """Scan a format spec (``:>{width}``) to the field's ``}``."""
    while i < len(source):
        if source[i] == "{":
            i, changed = _field(source, i + 1, quote, chars, enclosing)
            swapped = swapped or changed
        elif source[i] == "}":
            return i + 1, swapped
        elif source.startswith(quote, i) or source[i] == "\n":
            raise _Unreadable
        else:
            i += 1
    raise _Unreadable
