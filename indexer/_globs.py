"""Gitignore-ish globs compiled to one regex, for the walk's include and exclude lists."""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import regex

__all__ = ["compile_globs", "may_match_below"]


@functools.lru_cache(maxsize=64)
def compile_globs(patterns: tuple[str, ...]) -> re.Pattern[str] | None:
    """Return one regex that fullmatches what any of `patterns` matches, or None for ().

    Gitignore-ish: `*` and `?` stay within a path component, `**` crosses them,
    `[...]` is a class (`[!...]` negated); a pattern with no "/" but a trailing
    one matches at any depth; a leading "/" anchors; a trailing "/" matches only
    directories. Backslash is not an escape. Raises ValueError for a blank pattern.
    """
    if not patterns:
        return None
    return re.compile("|".join(f"(?:{_translate(p)})" for p in patterns), re.DOTALL)


def may_match_below(patterns: tuple[str, ...], folder: str) -> bool:
    """True when some path below `folder` (`folder/...`) could match one of `patterns`:
    an archive is opened for the members an include glob may want (`*.pdf`)."""
    found = _partial(patterns).fullmatch(folder + "/", partial=True)
    return found is not None


@functools.lru_cache(maxsize=64)
def _partial(patterns: tuple[str, ...]) -> regex.Pattern[str]:
    """`compile_globs(patterns)` in `regex`, whose partial matching tells a prefix of a match."""
    import regex  # here: only a run with include globs and archives needs it

    compiled = compile_globs(patterns)
    return regex.compile(compiled.pattern if compiled else "(?!)", regex.DOTALL)


def _translate(pattern: str) -> str:
    body = pattern.lstrip("/")
    if not body.strip() or not body.strip("/"):
        raise ValueError(f"glob {pattern!r} matches nothing: give a name or a pattern")
    anchored = pattern.startswith("/") or "/" in body.rstrip("/")
    out, i = [] if anchored else ["(?:.*/)?"], 0
    while i < len(body):
        if body.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif body.startswith("**", i):
            out.append(".*")
            i += 2
        elif body[i] == "[" and (cls := _char_class(body, i)) is not None:
            out.append(cls[0])
            i = cls[1]
        else:
            out.append({"*": "[^/]*", "?": "[^/]"}.get(body[i], re.escape(body[i])))
            i += 1
    return "".join(out)


def _char_class(body: str, start: int) -> tuple[str, int] | None:
    i = start + 1
    negate = i < len(body) and body[i] in "!^"
    i += negate
    end = body.find("]", i + 1)  # a "]" right after "[" is a member, not the end
    if end < 0:
        return None
    # Escape all but "-" so that `[[]` or `[&&]` never reads as a nested set.
    members = "".join(c if c == "-" else re.escape(c) for c in body[i:end])
    return (f"[^/{members}]" if negate else f"[{members}]"), end + 1
