"""The engine's progress events: outcomes counted as they come back, reads as they begin."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import hostile
import pytest

from indexer.config import Config
from indexer.pipeline.engines.context import RunContext
from indexer.pipeline.engines.local import stage
from indexer.pipeline.run.progress import Progress
from indexer.pipeline.walk.source import LocalFolder
from indexer.registry import default_registry

pytestmark = pytest.mark.slow  # a whole staging on real pools


def test_files_count_as_they_come_back_not_when_the_walk_order_reaches_them(
    tmp_path: Path,
) -> None:
    source, staging = tmp_path / "src", tmp_path / "staging"
    source.mkdir()
    staging.mkdir()
    for i in range(6):  # first in walk order, each 0.3 s in the one isolated process
        (source / f"a-{i}.slow").write_text(f"slow {i}")
    for i in range(40):
        (source / f"z-{i:02d}.txt").write_text(f"text {i}\n")
    registry = default_registry().copy()
    registry.register(hostile.SLOW)
    events: list[tuple[str, Any]] = []
    bar = Progress()
    bar.total = 46
    counted_before_first_write: list[int] = []

    def note(event: str, value: Any) -> None:
        events.append((event, value))
        if event == "done" and not counted_before_first_write:
            counted_before_first_write.append(bar.done)
        bar(event, value)

    config = Config(workers=1, pdf_workers=1, batch_files=8)
    ctx = RunContext(
        source=LocalFolder(source),
        staging=staging,
        config=config,
        registry=registry,
        on_progress=note,
    )
    anyio.run(stage, ctx)
    # The texts came back while the slow files ahead of them in walk order were read:
    # the line moved long before the writer could write anything.
    assert counted_before_first_write[0] >= 8
    assert bar.done == 46 and bar.children == 0
    # A process said when it took each slow file and when it gave it back.
    reads = [tuple(v) for e, v in events if e == "reading"]
    assert any("a-0.slow" in paths for paths in reads)
    assert bar._reading == {}
