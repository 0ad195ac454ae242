"""What `tesseract --version` and `--list-langs` answered, kept on disk between runs.

Every run asks which engine would read the scans (the cache keys name its version and
languages), and asking the program is two processes started, the largest fixed cost of
an unchanged re-run. The answers are kept in `$XDG_CACHE_HOME/indexer/tesseract.json`
(`~/.cache/indexer`) per program path, and used while what they depend on has the
stat it had when they were given: the program (path, size, mtime, inode), the dynamic
linker's cache (`/etc/ld.so.cache`, rewritten whenever a library such as libtesseract
is installed or upgraded), the models' folder the listing named (a language pack
added or removed changes its mtime) and `TESSDATA_PREFIX`. Anything else asks the
program again. A cache that cannot be read or written is only slower.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

__all__ = ["cache_path", "probed"]

log = logging.getLogger(__name__)

_LINKER_CACHE = "/etc/ld.so.cache"
_KEPT = 16
"""Programs whose answers are kept."""
Answer = dict[str, Any]
"""The JSON-able answers of one program: `version` (None: it did not answer), `folder`
and `languages` of its listing."""


def cache_path() -> Path:
    """The cache file: under `$XDG_CACHE_HOME`, else `~/.cache`."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "indexer" / "tesseract.json"


def probed(binary: str, ask: Callable[[], Answer]) -> Answer:
    """The answers for the program at `binary`: the cached ones while what they depend
    on is unchanged (see the module doc), else `ask()`'s, which are then cached."""
    path = cache_path()
    try:
        cached: dict[str, Any] = orjson.loads(path.read_bytes())
        if not isinstance(cached, dict):
            cached = {}
    except (OSError, orjson.JSONDecodeError):
        cached = {}
    kept = cached.get(binary)
    if isinstance(kept, dict) and kept.get("key") == _key(binary, kept.get("answer")):
        answer: Answer = kept["answer"]
        return answer
    answer = ask()
    cached.pop(binary, None)
    cached[binary] = {"key": _key(binary, answer), "answer": answer}
    for stale in list(cached)[:-_KEPT]:  # programs met longest ago (a test's copies)
        del cached[stale]
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        tmp.write_bytes(orjson.dumps(cached))
        os.replace(tmp, path)
    except OSError as exc:
        log.debug("the tesseract probe was not cached: %s", exc)
    return answer


def _key(binary: str, answer: Any) -> list[Any]:
    """What the answers depend on, as it is now."""
    folder = answer.get("folder", "") if isinstance(answer, dict) else ""
    return [
        _stat(binary), _stat(_LINKER_CACHE), _stat(folder) if folder else None,
        os.environ.get("TESSDATA_PREFIX"),
    ]  # fmt: skip


def _stat(path: str) -> list[int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_size, st.st_mtime_ns, st.st_ino, st.st_dev]
