"""Archives built in tests, and an OUT's documents read back by path."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path
from typing import Any

from outputs import document_lines


def zip_of(files: dict[str, bytes], method: int = zipfile.ZIP_DEFLATED) -> bytes:
    """A zip holding `files` (name -> content), in that order."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", method) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def documents(out: Path) -> dict[str, dict[str, Any]]:
    """The document records of `out`, by path."""
    lines = document_lines(out)
    return {json.loads(x)["path"]: json.loads(x) for x in lines}
