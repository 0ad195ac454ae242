"""Cheaper pickling for the frozen, slotted dataclasses that cross worker pipes.

The state functions `dataclass(slots=True, frozen=True)` installs call `fields()`
for every object pickled or unpickled; a mail archive sends a few of them per
message each way. These read and set the slots directly.
"""

from __future__ import annotations

import operator
from dataclasses import fields
from typing import Any, TypeVar

T = TypeVar("T", bound=type)


def slotted_state(cls: T) -> T:
    """Give a slotted dataclass `__getstate__`/`__setstate__` without `fields()` calls.

    Apply it above `@dataclass(slots=True, ...)`, which makes the class it receives.
    """
    names = tuple(f.name for f in fields(cls))
    slots = tuple(cls.__dict__[name] for name in names)  # the member descriptors
    if len(names) < 2:
        raise TypeError(f"{cls.__name__}: needs two fields or more")
    get = operator.attrgetter(*names)

    def __getstate__(self: Any) -> tuple[Any, ...]:
        return get(self)

    def __setstate__(self: Any, state: tuple[Any, ...]) -> None:
        for slot, value in zip(slots, state, strict=True):
            slot.__set__(self, value)

    setattr(cls, "__getstate__", __getstate__)  # noqa: B010 (a method on a made class)
    setattr(cls, "__setstate__", __setstate__)  # noqa: B010
    return cls
