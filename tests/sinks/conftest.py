"""The PostgreSQL server of the sink tests: one real server for the session
(tests/pgserver.py), a fresh database for each use."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator

import pgserver
import pytest

_NUMBERS = itertools.count()


@pytest.fixture(scope="session")
def pg_server() -> Iterator[pgserver.Server]:
    """A PostgreSQL server on 127.0.0.1, initialised for this session, stopped after it."""
    with pgserver.running() as server:
        yield server


@pytest.fixture
def new_database(pg_server: pgserver.Server) -> Callable[[], str]:
    """Make an empty database on the session's server; returns its DSN."""
    return lambda: pgserver.create_database(pg_server, f"t{next(_NUMBERS)}")
