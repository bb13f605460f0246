"""Progress for long runs, on stderr: a bar on a terminal, a line at most every ``every`` seconds
in a log (CI captures stderr to a file; a run must never sit silent for minutes there).

A log line reads ``progress: 12000/54797 claims (21.9%), 1650 per s, 7.3 s elapsed, at path``.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

__all__ = ["LOG_EVERY", "Progress"]

LOG_EVERY = 10.0  # seconds between progress lines off a terminal


class Progress:
    """Counts ``done`` of ``total`` items (``unit``: "cases", "claims", ...).

    Args:
        total: how many items the run will step through.
        enabled: True forces the terminal bar, False silences the progress altogether; None
            (default) shows the bar on a terminal and log lines elsewhere.
        log: off a terminal, print a progress line at most every ``every`` seconds (default
            True; a caller that shows its own progress passes False).
        stream: where to write (default ``sys.stderr``).
    """

    def __init__(self, total: int, enabled: bool | None = None, *, unit: str = "items", log: bool = True,
                 every: float = LOG_EVERY, stream: TextIO | None = None, clock=time.monotonic):
        self.stream = stream if stream is not None else sys.stderr
        self.total = max(total, 1)
        self.done = 0
        self.unit = unit
        self.bar = self.stream.isatty() if enabled is None else enabled
        self.log = log and enabled is None and not self.bar
        self.every = every
        self.clock = clock
        self.t0 = self.last = clock()

    def step(self, label: str, n: int = 1) -> None:
        self.done += n
        if self.bar:
            frac = min(self.done / self.total, 1.0)
            bar = "#" * int(30 * frac) + "." * (30 - int(30 * frac))
            self.stream.write(f"\r[{bar}] {self.done}/{self.total} {label:24.24} "
                              f"{self.clock() - self.t0:6.1f}s")
            self.stream.flush()
        elif self.log:
            now = self.clock()
            if now - self.last >= self.every:
                self.last = now
                self.stream.write(self.line(label, now) + "\n")
                self.stream.flush()

    def line(self, label: str = "", now: float | None = None) -> str:
        """The log line as of now."""
        elapsed = (self.clock() if now is None else now) - self.t0
        rate = self.done / elapsed if elapsed > 0 else 0.0
        where = f", at {label}" if label else ""
        return (f"progress: {self.done}/{self.total} {self.unit} ({100.0 * self.done / self.total:.1f}%), "
                f"{rate:.0f} per s, {elapsed:.1f} s elapsed{where}")

    def close(self) -> None:
        if self.bar:
            self.stream.write("\n")
            self.stream.flush()
