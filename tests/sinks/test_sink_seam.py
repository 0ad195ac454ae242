"""The sink seam from outside the package: a plugin sink installed through the
`indexer.sinks` entry point group runs after each commit, from the committed generation;
a failing one leaves the run committed, warns and makes `indexer run` exit 1."""

from __future__ import annotations

import hashlib
import json
import logging
from pathlib import Path

import pytest
from outputs import committed, write_notes

import indexer
from indexer.cli import main
from indexer.config import Config
from indexer.errors import ConfigError

PLUGIN = """
import hashlib, json, os
from indexer.sinks import Applied

class Recorder:
    name = "recorder"

    def apply(self, night):
        # Runs after the commit: OUT's manifest is already the one the night names.
        seen = hashlib.sha256((night.out / "manifest.json").read_bytes()).hexdigest()
        changes = (night.generation / "changes.ndjson").read_bytes().splitlines()
        log = night.out / ".sinks" / "recorder.ndjson"
        log.parent.mkdir(exist_ok=True)
        with open(log, "a") as handle:
            handle.write(json.dumps({
                "manifest": night.manifest_sha256, "seen": seen,
                "previous": night.previous_sha256, "changes": len(changes),
            }) + "\\n")
        return Applied(how="changes", written=len(changes))

class Broken:
    name = "broken"

    def apply(self, night):
        raise RuntimeError("the warehouse is down")
"""


@pytest.fixture
def plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Install `recordersink` as a distribution declaring two sinks."""
    site = tmp_path / "site"
    dist = site / "recordersink-1.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: recordersink\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(
        "[indexer.sinks]\nrecorder = recordersink:Recorder\nbroken = recordersink:Broken\n"
    )
    (site / "recordersink.py").write_text(PLUGIN)
    monkeypatch.syspath_prepend(str(site))


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.usefixtures("plugin")
def test_a_plugin_sink_runs_after_each_commit_from_the_committed_generation(
    tmp_path: Path,
) -> None:
    source, out = tmp_path / "src", tmp_path / "out"
    write_notes(source)
    config = Config(workers=1, pdf_workers=1, sinks=("recorder",))
    first = indexer.run(source, out, config)
    manifest = _sha(out / "manifest.json")
    (source / "a" / "n00.txt").write_text("edited\n")
    second = indexer.run(source, out, config)
    assert (first.sinks, second.sinks) == (
        {"recorder": "ok: changes, 120 written, 0 deleted"},
        {"recorder": "ok: changes, 1 written, 0 deleted"},
    )
    log = (out / ".sinks" / "recorder.ndjson").read_text()
    nights = [json.loads(line) for line in log.splitlines()]
    assert [n["seen"] for n in nights] == [n["manifest"] for n in nights]
    assert nights[0]["previous"] is None and nights[1]["previous"] == manifest
    assert nights[1]["manifest"] == _sha(out / "manifest.json")
    plain = tmp_path / "plain"
    indexer.run(source, plain, Config(workers=1, pdf_workers=1))
    assert committed(out) == committed(plain), "a sink writes only under OUT/.sinks/"


@pytest.mark.usefixtures("plugin")
def test_a_failing_sink_leaves_the_run_committed_warns_and_exits_1(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    source, out = tmp_path / "src", tmp_path / "out"
    write_notes(source)
    caplog.set_level(logging.WARNING, logger="indexer")
    config = Config(workers=1, pdf_workers=1, sinks=("broken", "recorder"))
    summary = indexer.run(source, out, config)
    assert summary.sinks["broken"] == "failed: RuntimeError: the warehouse is down"
    assert summary.sinks["recorder"].startswith("ok"), "the next sink still runs"
    assert any("sink broken failed" in r.getMessage() for r in caplog.records)
    assert summary.documents == 120 and (out / "manifest.json").is_file()
    code = main(["run", str(source), "--out", str(tmp_path / "cli"), "--sink", "broken"])
    assert code == 1
    assert "committed, but sinks failed: broken" in capsys.readouterr().err
    assert committed(tmp_path / "cli") == committed(out)


def test_an_unknown_sink_stops_the_run_before_any_work(tmp_path: Path) -> None:
    source, out = tmp_path / "src", tmp_path / "out"
    write_notes(source)
    with pytest.raises(ConfigError, match="no sink named 'nowhere'"):
        indexer.run(source, out, Config(sinks=("nowhere",)))
    assert not out.exists()
