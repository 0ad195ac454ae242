"""Run configuration: the documented defaults, overrides, and errors that name the key."""

from __future__ import annotations

import logging
import re
import tomllib
from dataclasses import fields
from pathlib import Path
from typing import Any

import pytest

from indexer import Options
from indexer._limits import ContainerLimits
from indexer._types import Packing
from indexer.config import FLAGS, OUTPUT_KEYS, TABLES, Config, load_config, render_defaults
from indexer.errors import ConfigError
from indexer.pipeline.walk.walker import policy_for
from indexer.procpool.cpus import usable_cpus
from indexer.registry import default_registry

DEFAULT_TOML = Path(__file__).resolve().parent.parent / "configs" / "default.toml"
FIELDS = [f.name for f in fields(Config)]


def config_file(tmp_path: Path, text: str) -> str:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_default_toml_is_exactly_the_built_in_defaults() -> None:
    assert load_config(str(DEFAULT_TOML), {}) == Config() == load_config(None, {})


def test_default_toml_is_the_file_rendered_from_the_declarations() -> None:
    """Regenerate with: python -c "import sys; from indexer.config import render_defaults;
    sys.stdout.write(render_defaults())" > configs/default.toml"""
    assert DEFAULT_TOML.read_text(encoding="utf-8") == render_defaults()


def test_every_flag_of_indexer_run_sets_its_declared_key(tmp_path: Path) -> None:
    import argparse

    from indexer.cli.run import add_run_arguments

    parser = argparse.ArgumentParser()
    add_run_arguments(parser)
    for flag in FLAGS:
        typed = {int: "7", float: "7", str: "dask", list: "*.pdf"}
        value = [] if flag.type is None else [typed[flag.type]]
        args = parser.parse_args(["src", "--out", "out", flag.flag, *value])
        expected: object = True if flag.type is None else flag.type(value[0])
        if flag.type is list:  # repeatable: each flag adds one glob
            expected = ["*.pdf"]
        assert getattr(args, flag.key) == expected, flag
    assert {f.flag for f in FLAGS} >= {"--workers", "--timeout", "--max-memory", "--full"}


def test_default_toml_documents_every_key_in_its_table() -> None:
    table, seen = None, {}
    for line in DEFAULT_TOML.read_text(encoding="utf-8").splitlines():
        if m := re.fullmatch(r"\[(\w+)\]", line):
            table = m[1]
        elif m := re.match(r"#? ?(\w+) = ", line):
            seen[m[1]] = table
    assert {key: seen.get(key) for key in FIELDS} == {
        key: table for table, keys in TABLES.items() for key in keys
    }


def test_every_field_has_exactly_one_table() -> None:
    listed = [key for keys in TABLES.values() for key in keys]
    assert sorted(listed) == sorted(FIELDS)
    assert set(OUTPUT_KEYS) <= set(FIELDS)


def test_file_values_then_overrides_win_and_none_means_not_given(tmp_path: Path) -> None:
    path = config_file(
        tmp_path,
        '[run]\nworkers = 3\nwindow = 9\n[walk]\ninclude = ["*.txt"]\n[isolation]\ntimeout = 5\n',
    )
    config = load_config(path, {"workers": 1, "window": None, "quiet": True})
    assert (config.workers, config.window, config.quiet) == (1, 9, True)
    assert config.include == ("*.txt",) and config.timeout == 5.0
    assert isinstance(config.timeout, float)


def test_auto_means_the_usable_cpus() -> None:
    config = load_config(None, {"workers": "auto", "pdf_workers": "auto"})
    assert config.workers == config.pdf_workers == usable_cpus() >= 1


@pytest.mark.parametrize(
    ("text", "key", "fragments"),
    [
        ("[run]\nwrokers = 2\n", "wrokers", ["did you mean 'workers'"]),
        ("[walk]\nworkers = 2\n", "workers", ["[run]"]),
        ("workers = 2\n", "workers", ["[run]"]),
        ("[runn]\nworkers = 2\n", "runn", ["did you mean 'run'"]),
        ("run = 3\n", "run", ["must be a table"]),
        ("[run]\nworkers = 0\n", "workers", ["0", ">= 1", '"auto"']),
        ("[run]\nworkers = '4'\n", "workers", ["'4'", "integer"]),
        ("[run]\nmax_failures = -1\n", "max_failures", ["-1", ">= 0"]),
        ("[run]\nquiet = 1\n", "quiet", ["1", "true or false"]),
        ("[run]\nengine = 'spark'\n", "engine", ["'spark'", "'local' or 'dask'"]),
        ("[run]\nscheduler = 'tcp://h:1'\n", "scheduler", ["'tcp://h:1'", "engine = 'dask'"]),
        ("[isolation]\ntimeout = 0\n", "timeout", ["0", "seconds > 0"]),
        ("[isolation]\ntimeout = true\n", "timeout", ["True", "seconds"]),
        ("[isolation]\nmax_memory_mb = 10\n", "max_memory_mb", ["10", ">= 64"]),
        ("[pdf]\nmax_memory_mb = 10\n", "max_memory_mb", ["10", ">= 64"]),
        ("[pdf]\nworkers = 2\n", "workers", ["[run]"]),
        ("[walk]\ninclude = '*.txt'\n", "include", ["'*.txt'", "list of globs"]),
        ("[walk]\nexclude = [3]\n", "exclude", ["3", "strings"]),
        ("[walk]\nexclude = ['']\n", "exclude", ["''", "matches nothing"]),
        ("[walk]\nmax_file_bytes = 0\n", "max_file_bytes", ["0", ">= 1"]),
        ("[extract]\nrows_per_chunk = 0\n", "rows_per_chunk", ["0", ">= 1"]),
        ("[extract]\nmax_chunk_chars = 10\n", "max_chunk_chars", ["10", ">= 64"]),
        ("[extract]\nmax_chunk_chars = 99.5\n", "max_chunk_chars", ["99.5", "integer"]),
        ("[extract]\npdf_engine = 'mupdf'\n", "pdf_engine", ["'mupdf'", "pdfplumber"]),
        ("[html]\nmain_content = 'yes'\n", "main_content", ["'yes'", "true or false"]),
        ("[extract]\nmain_content = false\n", "main_content", ["[html]"]),
        ("[output]\nshard_bytes = 64\n", "shard_bytes", ["64", ">= 1024"]),
        ("[output]\nshard_files = 0\n", "shard_files", ["0", ">= 1"]),
        ("[run\n", "config", ["config.toml", "line 1"]),
    ],
)
def test_a_bad_file_value_raises_an_error_naming_the_key(
    tmp_path: Path, text: str, key: str, fragments: list[str]
) -> None:
    with pytest.raises(ConfigError) as info:
        load_config(config_file(tmp_path, text), {})
    assert info.value.key == key
    assert key in str(info.value)
    for fragment in fragments:
        assert fragment in str(info.value)


@pytest.mark.parametrize(
    ("overrides", "key"),
    [({"wokers": 2}, "wokers"), ({"workers": -3}, "workers"), ({"timeout": "soon"}, "timeout")],
)
def test_a_bad_override_raises_an_error_naming_the_key(overrides: dict[str, Any], key: str) -> None:
    with pytest.raises(ConfigError, match=key) as info:
        load_config(None, overrides)
    assert info.value.key == key


def test_a_missing_file_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read config file") as info:
        load_config(str(tmp_path / "nope.toml"), {})
    assert info.value.key == "config"


def test_a_tokenizer_that_does_not_load_is_a_config_error_before_any_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Exit 2, the key named, nothing written: it used to surface from the first
    document packed as `fatal: Exception: stream did not contain valid UTF-8`, exit 3."""
    from indexer.cli import main

    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.txt").write_text("a note\n")
    bad = tmp_path / "tokenizer.json"
    bad.write_bytes(b'\xff\xfe{"model": ')
    config = config_file(tmp_path, f'[chunking]\nchunk_unit = "tokens"\ntokenizer = "{bad}"\n')
    out = tmp_path / "out"
    assert main(["run", str(tmp_path / "src"), "--out", str(out), "--config", config]) == 2
    err = capsys.readouterr().err
    assert "config error: tokenizer = " in err and "valid UTF-8" in err
    assert not out.exists()


def test_a_tokenizer_over_the_size_limit_is_refused_by_its_size(tmp_path: Path) -> None:
    """A 3 GB sparse file is refused from its size alone (`MAX_TOKENIZER_BYTES`), not
    read whole first."""
    huge = tmp_path / "tokenizer.json"
    with huge.open("wb") as handle:
        handle.truncate(3 << 30)
    with pytest.raises(ConfigError, match=r"3221225472 bytes, over the 128 MiB limit") as info:
        Config(chunk_unit="tokens", tokenizer=str(huge))
    assert info.value.key == "tokenizer"


def test_scheduler_is_accepted_with_the_dask_engine() -> None:
    config = load_config(None, {"engine": "dask", "scheduler": "tcp://127.0.0.1:8786"})
    assert config.scheduler == "tcp://127.0.0.1:8786"


def test_digest_covers_output_settings_only() -> None:
    base = Config().digest()
    assert re.fullmatch(r"[0-9a-f]{64}", base)
    same: list[dict[str, Any]] = [
        {"workers": 7}, {"pdf_workers": 5}, {"window": 3}, {"batch_files": 1}, {"quiet": True},
        {"json": True}, {"full": True}, {"max_failures": 9}, {"recycle_after": 1},
    ]  # fmt: skip
    for change in same:
        assert load_config(None, change).digest() == base, change
    differ: list[dict[str, Any]] = [
        {"rows_per_chunk": 5}, {"pdf_engine": "pdfplumber"}, {"include": ["*.csv"]},
        {"exclude": ["x"]}, {"skip_hidden": False}, {"max_file_bytes": 10}, {"shard_bytes": 2048},
        {"shard_files": 2}, {"timeout": 9}, {"max_memory_mb": 512}, {"main_content": False},
        {"mail_main_content": True}, {"max_ratio": 7}, {"max_depth": 0}, {"max_members": 5},
        {"max_unpacked_bytes": 9}, {"chunk_target": 900}, {"chunk_overlap": 10},
    ]  # fmt: skip
    digests = {load_config(None, change).digest() for change in differ}
    assert base not in digests and len(digests) == len(differ)


def test_extract_options_and_walk_policy() -> None:
    config = Config(rows_per_chunk=3, max_chunk_chars=100, pdf_engine="pdfplumber",
                    main_content=False, mail_main_content=True,
                    include=["*.txt"], exclude=("tmp",), skip_hidden=False, max_file_bytes=99)  # type: ignore[arg-type]  # fmt: skip
    assert config.include == ("*.txt",)
    assert config.extract_options() == Options(
        rows_per_chunk=3, max_chunk_chars=100, pdf_engine="pdfplumber",
        html_main_content=False, html_mail_main_content=True, packing=Packing(),
        containers=ContainerLimits(include=("*.txt",), exclude=("tmp",), max_member_bytes=99),
    )  # fmt: skip
    registry = default_registry()
    policy = policy_for(config, registry)
    assert (policy.include, policy.exclude, policy.skip_hidden, policy.max_file_bytes) == (
        ("*.txt",), ("tmp",), False, 99)  # fmt: skip
    assert (policy.claims, policy.streams) == (registry.handles, registry.streams)


def test_the_default_toml_parses_as_plain_toml() -> None:
    data = tomllib.loads(DEFAULT_TOML.read_text(encoding="utf-8"))
    assert set(data) == set(TABLES)


def test_the_old_pdf_table_is_read_as_isolation_with_one_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    old = config_file(tmp_path, "[pdf]\ntimeout = 5\nmax_memory_mb = 512\nrecycle_after = 7\n")
    caplog.set_level(logging.WARNING, logger="indexer")
    config = load_config(old, {})
    assert (config.timeout, config.max_memory_mb, config.recycle_after) == (5.0, 512, 7)
    [warning] = [r.getMessage() for r in caplog.records]
    assert "[pdf] read as [isolation]" in warning
    caplog.clear()
    new = tmp_path / "new.toml"
    new.write_text("[isolation]\ntimeout = 5\nmax_memory_mb = 512\nrecycle_after = 7\n")
    assert load_config(new, {}) == config and not caplog.records
