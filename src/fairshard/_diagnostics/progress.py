"""A small progress bar on stderr, without a dependency.

Drawn only when the stream is a terminal (so logs and pipes stay clean) and
redrawn at most every ``interval`` seconds, so it costs nothing measurable
in a loop.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

__all__ = ["ProgressBar"]


class ProgressBar:
    """Count work done out of ``total`` and draw ``label [#####-----] 52%``.

    Args:
        total: Units of work in the whole run.
        label: Text before the bar.
        stream: Where to draw (default ``sys.stderr``).
        enabled: Force on or off; ``None`` draws only on a terminal.
        interval: Minimum seconds between redraws.

    Example:
        >>> import io
        >>> bar = ProgressBar(4, "demo", stream=io.StringIO(), enabled=True, interval=0)
        >>> bar.advance(2)
        >>> bar.stream.getvalue().rstrip().endswith("50%")
        True
    """

    width = 30

    def __init__(
        self,
        total: int,
        label: str = "",
        *,
        stream: TextIO | None = None,
        enabled: bool | None = None,
        interval: float = 0.1,
    ) -> None:
        self.total = max(int(total), 0)
        self.label = label
        self.stream: TextIO = sys.stderr if stream is None else stream
        if enabled is None:
            isatty = getattr(self.stream, "isatty", None)
            enabled = bool(isatty()) if callable(isatty) else False
        self.enabled = enabled
        self.interval = interval
        self.done = 0
        self._last = float("-inf")
        self._drawn = False

    def advance(self, amount: int = 1) -> None:
        """Record ``amount`` more units of work; redraw when due."""
        self.done = min(self.total, self.done + amount)
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self._last >= self.interval or self.done == self.total:
            self._last = now
            self._draw()

    def _draw(self) -> None:
        fraction = self.done / self.total if self.total else 1.0
        filled = round(fraction * self.width)
        bar = "#" * filled + "-" * (self.width - filled)
        self.stream.write(f"\r{self.label} [{bar}] {fraction:4.0%}")
        self.stream.flush()
        self._drawn = True

    def close(self) -> None:
        """Finish the line (only if something was drawn)."""
        if self.enabled and self._drawn:
            self.stream.write("\n")
            self.stream.flush()
