"""A live progress line on a terminal; silence everywhere else (cron, pipes, --quiet)."""

from __future__ import annotations

import sys
import time
from typing import Any, TextIO

import anyio

from indexer.pipeline.output.records import FileOutcome

_BAR = 24


class Progress:
    """Counts events from the engine and redraws one status line a few times a second."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stderr
        self.total: int | None = None
        self.walked = 0
        self.done = 0
        self.bytes = 0
        self.failed = 0
        self._started = time.monotonic()
        self._in_flight: dict[str, float] = {}
        self._width = 0

    def __call__(self, event: str, value: Any) -> None:
        """Engine callback: `walked` (count), `started` (paths), `done` (FileOutcome)."""
        if event == "walked":
            self.walked += int(value)
        elif event == "started":
            now = time.monotonic()
            for path in value:
                self._in_flight[path] = now
        elif event == "done":
            self._finish(value)

    def _finish(self, outcome: FileOutcome) -> None:
        self.done += 1 if outcome.whole is None else outcome.whole.entries
        self.bytes += outcome.bytes_read
        for doc in outcome.docs:
            self._in_flight.pop(doc.path, None)
            self.failed += doc.status == "failed"

    async def run(self, interval: float = 0.25) -> None:
        """Redraw until cancelled."""
        try:
            while True:
                self.draw()
                await anyio.sleep(interval)
        finally:
            self.clear()

    def line(self) -> str:
        """The current status line."""
        elapsed = max(time.monotonic() - self._started, 1e-6)
        rate = self.done / elapsed
        total = self.total if self.total is not None else max(self.walked, self.done)
        filled = int(_BAR * self.done / total) if total else 0
        parts = [
            f"[{'#' * filled}{'.' * (_BAR - filled)}] {self.done}/{total} files",
            f"{self.bytes / 1e6:.1f} MB",
            f"{rate:.0f} files/s",
        ]
        if self.total is not None and rate > 0:
            left = int((self.total - self.done) / rate)
            parts.append(f"ETA {left // 60}:{left % 60:02d}")
        if self.failed:
            parts.append(f"{self.failed} failed")
        if self._in_flight:
            path, since = min(self._in_flight.items(), key=lambda kv: kv[1])
            if time.monotonic() - since > 2:
                parts.append(f"slow: {path[-40:]} ({time.monotonic() - since:.0f}s)")
        return "  ".join(parts)

    def draw(self) -> None:
        """Write the status line over the previous one."""
        text = self.line()
        pad = max(self._width - len(text), 0)
        self.stream.write("\r" + text + " " * pad)
        self.stream.flush()
        self._width = len(text)

    def clear(self) -> None:
        """Erase the status line."""
        if self._width:
            self.stream.write("\r" + " " * self._width + "\r")
            self.stream.flush()
            self._width = 0
