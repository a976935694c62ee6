"""The one progress reporter (hpgraph.progress): plain timed lines when piped (throttled,
the last update never lost), one rewritten line on a terminal, counted work."""

from __future__ import annotations

import io
import re

from hpgraph.progress import Counter, Progress, fmt_elapsed


class Tty(io.StringIO):
    def isatty(self):
        return True


def test_piped_lines_are_throttled_and_the_last_update_is_kept():
    out = io.StringIO()
    p = Progress("job", stream=out, interval=3600)
    for i in range(5):
        p.update(f"step {i}")
    p.done("finished")
    lines = out.getvalue().splitlines()
    assert [re.sub(r"^\[ *[0-9.]+ s\] ", "", x) for x in lines] == [
        "job: step 0",  # the first update shows at once
        "job: step 4",  # the newest held update, before the final line
        "job: finished",
    ]
    assert all(re.match(r"^\[ *\d+\.\d s\] job: ", x) for x in lines)


def test_terminal_rewrites_one_line():
    out = Tty()
    p = Progress("job", stream=out)
    assert p.live
    p.update("a long first state")
    p.line("done")
    text = out.getvalue()
    assert text.count("\n") == 1 and text.startswith("\r[") and "\r[" in text[1:]
    # the final line pads over the longer live text it replaces
    assert text.endswith("job: done" + " " * (len("a long first state") - len("done")) + "\n")


def test_counter_and_elapsed_format():
    out = io.StringIO()
    c = Counter("peer 0 of 2", 300, "sources", stream=out, interval=0)
    c.advance(100)
    c.set(300, "all")
    c.close()
    lines = [x.split("] ", 1)[1] for x in out.getvalue().splitlines()]
    assert lines == ["peer 0 of 2: 100/300 sources", "peer 0 of 2: 300/300 sources  all"]
    unknown = Counter("bsp", 0, "supersteps", stream=io.StringIO(), interval=0)
    unknown.set(7)
    assert unknown.p.stream.getvalue().rstrip().endswith("bsp: 7 supersteps")
    assert fmt_elapsed(12.34) == "   12.3 s" and fmt_elapsed(725) == " 12 min 05 s"
