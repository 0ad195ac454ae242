"""`indexer serve` as a client meets it: a real server subprocess on 127.0.0.1, httpx.

Its answers are `indexer extract --json`'s and `indexer capabilities`' (compared with
the CLI run in this process), a hostile file fails its own request only, and the
limits answer 413, 503 and 504 as documented (docs/service.md).
"""

from __future__ import annotations

import json
import signal
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import servers
from sharedfiles import CORPUS, FORMATS, NO_CORPUS, or_skip

from indexer.cli import main

pytestmark = pytest.mark.slow

# One of each kind the corpus holds, and containers whose children are in the answer.
SHARED_FILES = [
    CORPUS / "csv-csvkit/bad.csv",
    CORPUS / "email-cpython/msg_07.eml",
    CORPUS / "csv-messytables/complex.html",
    CORPUS / "csv-csvkit/test_geojson.json",
    CORPUS / "markitdown-test-files/RECEIPT-2024-TXN-98765_retail_purchase.pdf",
    FORMATS / "tika/testZipEncrypted.zip",
    FORMATS / "tika/droste.zip",
]
CONFIG = "[isolation]\ntimeout = 4\n"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return servers.install_plugin(tmp_path_factory.mktemp("plugin"))


@pytest.fixture(scope="module")
def config(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("config") / "serve.toml"
    path.write_text(CONFIG)
    return path


@pytest.fixture(scope="module")
def server(
    tmp_path_factory: pytest.TempPathFactory, site: Path, config: Path
) -> Iterator[servers.Server]:
    args = ["--workers", "1", "--pdf-workers", "1", "--config", str(config), "--max-body-mb", "2"]
    running = servers.start(tmp_path_factory.mktemp("serve"), args, servers.environment(site))
    yield running
    assert running.stop() == 0, running.log.read_text()


def _cli_extract(path: Path, capsys: pytest.CaptureFixture[str], *flags: str) -> dict[str, Any]:
    capsys.readouterr()
    main(["extract", str(path), "--json", *flags])
    answer: dict[str, Any] = json.loads(capsys.readouterr().out)
    return answer


def test_capabilities_are_the_clis(
    server: servers.Server, capsys: pytest.CaptureFixture[str]
) -> None:
    with server.client() as client:
        got = client.get("/v1/capabilities")
    assert got.status_code == 200
    capsys.readouterr()
    assert main(["capabilities"]) == 0
    expected = json.loads(capsys.readouterr().out)
    # The server's registry holds the test plugin too; the CLI's (this process) does not.
    plugin = [e for e in got.json()["extractors"] if e["origin"] == "plugin"]
    assert {e["name"] for e in plugin} == {"segv", "hang", "nap"}
    assert {
        **got.json(),
        "extractors": [e for e in got.json()["extractors"] if e not in plugin],
    } == expected


@pytest.mark.parametrize("path", or_skip(SHARED_FILES if CORPUS.is_dir() else [], NO_CORPUS))
def test_extract_answers_what_indexer_extract_json_prints(
    server: servers.Server, path: Path, capsys: pytest.CaptureFixture[str], config: Path
) -> None:
    with server.client() as client:
        got = client.post("/v1/extract", params={"name": path.name}, content=path.read_bytes())
    assert got.status_code == 200, got.text
    assert got.json() == _cli_extract(path, capsys, "--config", str(config))
    if path.suffix == ".zip":
        assert len(got.json()["children"]) >= 2


def test_multipart_and_options_as_query_parameters(
    server: servers.Server, capsys: pytest.CaptureFixture[str], config: Path
) -> None:
    path = CORPUS / "csv-messytables/complex.html"
    files = {"file": (path.name, path.read_bytes(), "text/html")}
    with server.client() as client:
        got = client.post("/v1/extract", params={"whole_page": "true"}, files=files)
        bad = client.post("/v1/extract", params={"name": "a.txt", "color": "red"}, content=b"x")
        nameless = client.post("/v1/extract", content=b"some bytes")
    assert got.status_code == 200, got.text
    assert got.json() == _cli_extract(path, capsys, "--whole-page", "--config", str(config))
    assert bad.status_code == 400 and "color" in bad.json()["error"]
    assert nameless.status_code == 400 and "name" in nameless.json()["error"]


def test_a_body_over_the_limit_is_413_with_or_without_a_length(server: servers.Server) -> None:
    big = b"x" * (3 << 20)

    def chunks() -> Iterator[bytes]:
        for start in range(0, len(big), 1 << 16):
            yield big[start : start + (1 << 16)]

    with server.client() as client:
        declared = client.post("/v1/extract", params={"name": "big.txt"}, content=big)
        streamed = client.post("/v1/extract", params={"name": "big.txt"}, content=chunks())
        after = client.post("/v1/extract", params={"name": "small.txt"}, content=b"small")
    assert declared.status_code == 413
    assert streamed.status_code == 413
    assert after.status_code == 200 and after.json()["document"]["status"] == "ok"


@pytest.mark.parametrize(("name", "reason"), [("x.segv", "crashed"), ("x.hang", "timeout")])
def test_a_hostile_file_fails_its_request_and_the_next_one_succeeds(
    server: servers.Server, name: str, reason: str
) -> None:
    with server.client() as client:
        hostile = client.post("/v1/extract", params={"name": name}, content=b"boom")
        after = client.post("/v1/extract", params={"name": "a.txt"}, content=b"alpha beta")
        health = client.get("/v1/health")
    assert hostile.status_code == 200
    document = hostile.json()["document"]
    assert (document["status"], document["reason"]) == ("failed", reason)
    assert after.status_code == 200 and after.json()["document"]["status"] == "ok"
    assert health.json()["status"] == "ok"


def test_openapi_names_every_route(server: servers.Server) -> None:
    with server.client() as client:
        schema = client.get("/openapi.json").json()
    assert schema["openapi"].startswith("3.")
    assert set(schema["paths"]) == {
        "/v1/health",
        "/v1/capabilities",
        "/v1/extract",
        "/openapi.json",
    }
    assert set(schema["paths"]["/v1/extract"]["post"]["responses"]) >= {"200", "413", "503"}


@pytest.fixture
def narrow(tmp_path: Path, site: Path) -> Iterator[servers.Server]:
    """A server that runs one extraction at a time and queues none, its requests
    stopped after 4 s (isolated calls may take 30)."""
    config = tmp_path / "narrow.toml"
    config.write_text("[isolation]\ntimeout = 30\n")
    args = ["--workers", "1", "--pdf-workers", "1", "--concurrency", "1", "--queue", "0",
            "--request-timeout", "4", "--config", str(config)]  # fmt: skip
    running = servers.start(tmp_path, args, servers.environment(site))
    yield running
    running.stop()


def _in_thread(
    server: servers.Server, name: str, body: bytes
) -> tuple[threading.Thread, list[httpx.Response]]:
    answers: list[httpx.Response] = []

    def post() -> None:
        with server.client() as client:
            answers.append(client.post("/v1/extract", params={"name": name}, content=body))

    thread = threading.Thread(target=post)
    thread.start()
    return thread, answers


def test_a_saturated_server_answers_503_with_retry_after(narrow: servers.Server) -> None:
    thread, answers = _in_thread(narrow, "slow.nap", b"2")
    servers.wait_running(narrow, 1)
    with narrow.client() as client:
        refused = client.post("/v1/extract", params={"name": "a.txt"}, content=b"alpha")
    thread.join()
    assert refused.status_code == 503 and refused.headers["retry-after"] == "1"
    assert answers[0].status_code == 200 and answers[0].json()["document"]["status"] == "ok"
    with narrow.client() as client:  # the slot is free again
        assert client.post("/v1/extract", params={"name": "a.txt"}, content=b"a").status_code == 200


def test_a_request_past_its_timeout_is_504_and_the_server_goes_on(narrow: servers.Server) -> None:
    with narrow.client() as client:
        late = client.post("/v1/extract", params={"name": "long.nap"}, content=b"20")
        after = client.post("/v1/extract", params={"name": "a.txt"}, content=b"alpha")
    assert late.status_code == 504 and "timed out" in late.json()["error"]
    assert after.status_code == 200 and after.json()["document"]["status"] == "ok"


def test_sigterm_lets_the_request_in_flight_finish_then_exits_0(narrow: servers.Server) -> None:
    thread, answers = _in_thread(narrow, "slow.nap", b"2")
    servers.wait_running(narrow, 1)
    assert narrow.stop(signal.SIGTERM) == 0, narrow.log.read_text()
    thread.join()
    assert answers[0].status_code == 200
    assert answers[0].json()["chunks"][0]["text"] == "rested"


def test_more_runs_at_once_than_anyio_has_threads_all_finish(tmp_path: Path) -> None:
    """Each run holds a thread until its engine is done, and the engine needs threads
    of its own: 48 runs at once (anyio's default limiter has 40) must not starve."""
    args = ["--workers", "1", "--pdf-workers", "1", "--concurrency", "48", "--queue", "0",
            "--request-timeout", "120"]  # fmt: skip
    running = servers.start(tmp_path, args, servers.environment())
    try:
        threads = [_in_thread(running, f"n{i}.txt", b"words %d" % i) for i in range(48)]
        for thread, _ in threads:
            thread.join()
    finally:
        assert running.stop() == 0
    statuses = [answers[0].status_code for _, answers in threads]
    assert statuses == [200] * 48
    assert {answers[0].json()["document"]["status"] for _, answers in threads} == {"ok"}


def test_a_body_that_trickles_in_is_408_at_the_request_timeout(narrow: servers.Server) -> None:
    host, port = narrow.url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=30) as conn:
        head = b"POST /v1/extract?name=a.txt HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n"
        conn.sendall(head + b"only ten b")  # and the other 90 bytes never come
        reply = conn.recv(4096)
    assert reply.startswith(b"HTTP/1.1 408"), reply
    with narrow.client() as client:
        assert client.post("/v1/extract", params={"name": "a.txt"}, content=b"a").status_code == 200
