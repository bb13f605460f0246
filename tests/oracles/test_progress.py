"""Progress in a CI log: a line at most every 10 s off a terminal, with done/total, rate and
elapsed time (issue 25: ``ledger`` printed nothing for 9.7 minutes when redirected)."""

from __future__ import annotations

import io
import re

from oracles.progress import Progress


class _Clock:
    def __init__(self):
        self.t = 0.0

    def __call__(self):
        return self.t


def test_log_lines_come_every_ten_seconds_and_say_where_the_run_is():
    clock, out = _Clock(), io.StringIO()
    p = Progress(1000, unit="claims", stream=out, clock=clock)
    for k in range(1000):
        clock.t = k * 0.05  # 50 s in all
        p.step("path")
    lines = out.getvalue().splitlines()
    assert len(lines) == 4  # at 10, 20, 30 and 40 s (and not more often)
    m = re.match(r"progress: (\d+)/1000 claims \(([\d.]+)%\), (\d+) per s, ([\d.]+) s elapsed, at path", lines[0])
    assert m and int(m.group(1)) == 201 and float(m.group(4)) == 10.0 and int(m.group(3)) == 20


def test_no_log_lines_when_silenced_or_on_a_terminal():
    clock, out = _Clock(), io.StringIO()
    p = Progress(10, enabled=False, stream=out, clock=clock)
    for k in range(10):
        clock.t = 100.0 * k
        p.step("x")
    assert out.getvalue() == ""

    class Tty(io.StringIO):
        def isatty(self):
            return True

    tty = Tty()
    p = Progress(10, stream=tty, clock=clock)
    p.step("x")
    assert "\r[" in tty.getvalue() and "progress:" not in tty.getvalue()
