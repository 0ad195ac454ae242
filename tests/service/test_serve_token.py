"""The bearer token of `indexer serve`: required beyond loopback, checked when set."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import servers

from indexer.cli import main


@pytest.mark.parametrize("host", ["0.0.0.0", "192.0.2.7", "example.org"])
def test_serve_refuses_another_address_without_a_token(
    host: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("INDEXER_TOKEN", raising=False)
    assert main(["serve", "--host", host]) == 2
    assert "needs a bearer token" in capsys.readouterr().err


def test_serve_refuses_a_token_variable_that_is_unset(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("NO_SUCH_TOKEN", raising=False)
    assert main(["serve", "--token-env", "NO_SUCH_TOKEN"]) == 2
    assert "NO_SUCH_TOKEN" in capsys.readouterr().err


@pytest.fixture
def guarded(tmp_path: Path) -> Iterator[servers.Server]:
    env = servers.environment(SERVE_TOKEN="s3cret-token")
    args = ["--workers", "1", "--pdf-workers", "1", "--token-env", "SERVE_TOKEN"]
    running = servers.start(tmp_path, args, env)
    yield running
    assert running.stop() == 0


@pytest.mark.slow
def test_a_token_is_checked_on_every_path_but_health(guarded: servers.Server) -> None:
    with guarded.client() as anonymous:
        assert anonymous.get("/v1/health").status_code == 200
        missing = anonymous.get("/v1/capabilities")
        assert missing.status_code == 401 and missing.headers["www-authenticate"].startswith(
            "Bearer"
        )
        assert (
            anonymous.post("/v1/extract", params={"name": "a.txt"}, content=b"a").status_code == 401
        )
        assert anonymous.get("/openapi.json").status_code == 401
    with guarded.client(authorization="Bearer wrong") as wrong:
        assert wrong.get("/v1/capabilities").status_code == 401
    with guarded.client(authorization="Bearer s3cret-token") as client:
        assert client.get("/v1/capabilities").status_code == 200
        ok = client.post("/v1/extract", params={"name": "a.txt"}, content=b"alpha")
        assert ok.status_code == 200 and ok.json()["document"]["status"] == "ok"
