"""SIGINT and SIGTERM during a run: they stop it before its commit, never after.

Until the commit begins, a signal stops the run: `Interrupted` is raised where it
is when no event loop runs (the unchanged-tree check, for one), and the engine is
cancelled when one does. From the commit's start on, a signal is only noted
(`caught`): the run commits, finishes its bookkeeping and reports the commit, so
that its exit code always agrees with what OUT holds.
"""

from __future__ import annotations

import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import TYPE_CHECKING, TypeVar

import anyio

if TYPE_CHECKING:  # a run over an unchanged tree never imports asyncio
    import asyncio

T = TypeVar("T")

SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Interrupted(BaseException):
    """A signal stopped the run before its commit began: nothing was committed.

    A BaseException, as KeyboardInterrupt is: no `except Exception` on the way may
    take it for a file's error."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


class Interrupts:
    """The signals of one run. Without `installed()` it only tracks the commit."""

    def __init__(self) -> None:
        self.caught: int | None = None
        """The first signal received, if any (after the commit: a late one)."""
        self._committing = False
        self._looping = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._scope: anyio.CancelScope | None = None

    @contextmanager
    def installed(self) -> Iterator[Interrupts]:
        """Handle SIGINT and SIGTERM while inside (call in the main thread)."""
        previous = {signum: signal.signal(signum, self._handle) for signum in SIGNALS}
        try:
            yield self
        finally:
            for signum, handler in previous.items():
                signal.signal(signum, handler)

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        if self.caught is None:
            self.caught = signum
        if self._committing:
            return
        if self._looping:  # never raise inside the event loop: cancel from within it
            if self._loop is not None:
                self._loop.call_soon_threadsafe(self._cancel)
            return
        raise Interrupted(signum)

    def stop(self, signum: int = signal.SIGTERM) -> None:
        """Stop the run from any thread, as `signum` would: before the commit it ends
        in `Interrupted` (nothing committed); once the commit began, only noted."""
        if self.caught is None:
            self.caught = signum
        loop = self._loop
        if self._looping and not self._committing and loop is not None:
            loop.call_soon_threadsafe(self._cancel)

    def _cancel(self) -> None:
        if self._scope is not None:
            self._scope.cancel()

    def looping(self, enter: Callable[[], T]) -> T:
        """Call `enter`, which runs an event loop: a signal meanwhile cancels the
        `stoppable` block, or is noted for `commit_begins`."""
        self._looping = True
        try:
            return enter()
        finally:
            self._looping = False
            self._loop = None

    @contextmanager
    def stoppable(self) -> Iterator[None]:
        """A block of the event loop's thread that a signal cancels; raises
        `Interrupted` at its end when a signal came."""
        import asyncio

        with anyio.CancelScope() as scope:
            self._loop, self._scope = asyncio.get_running_loop(), scope
            try:
                if self.caught is not None:
                    scope.cancel()
                yield
            finally:
                self._scope = None
        if self.caught is not None:
            raise Interrupted(self.caught)

    def commit_begins(self) -> None:
        """From here on, signals are only noted. Raises `Interrupted` when one came."""
        self._committing = True
        if self.caught is not None:
            raise Interrupted(self.caught)
