"""The walker over real file systems: order, laziness and every skip reason."""

from __future__ import annotations

import dataclasses
import json
import os
import pickle
import shutil
import socket
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from indexer.pipeline.walk.entry import stat_version
from indexer.pipeline.walk.walker import (
    Entry,
    WalkPolicy,
    compile_globs,
    iter_batches,
    rel_bytes,
    walk,
)


def write(path: Path | bytes, data: bytes = b"hello\n") -> None:
    raw = os.fsencode(path)
    os.makedirs(os.path.dirname(raw), exist_ok=True)
    with open(raw, "wb") as f:
        f.write(data)


def run(root: Path, **policy: Any) -> dict[str, Entry]:
    return {e.rel: e for e in walk(root, WalkPolicy(**policy))}


def verdicts(root: Path, **policy: Any) -> dict[str, str | None]:
    return {rel: e.skip for rel, e in run(root, **policy).items()}


# -- order, names, laziness -----------------------------------------------------------------


TRICKY = [b"a.txt", b"a/b", b"a/b.txt", b"a-b", b"A", b"a0", b"a b", "é.txt".encode(),
          "日本/語.txt".encode(), b"bad\xff.txt", b"dir\xfe/x", b"back\\slash", b"Z/z/z/z",
          b"bad\\xff.txt", b"a/\xc3/c"]  # fmt: skip


def test_order_is_the_byte_sort_of_the_full_relative_paths(tmp_path: Path) -> None:
    for name in TRICKY:
        write(os.path.join(os.fsencode(tmp_path), name))
    walked = [rel_bytes(e.rel) for e in walk(tmp_path, WalkPolicy())]
    assert walked == sorted(TRICKY)
    assert (
        walked.index(b"a-b") < walked.index(b"a.txt") < walked.index(b"a/b") < walked.index(b"a0")
    )


def test_undecodable_names_are_kept_printable_unique_and_openable(tmp_path: Path) -> None:
    for name in TRICKY:
        write(os.path.join(os.fsencode(tmp_path), name), name)
    entries = run(tmp_path)
    assert "bad\\xff.txt" in entries  # the byte 0xff, escaped
    assert "bad\\\\xff.txt" in entries  # a real backslash, doubled: no collision
    assert "dir\\xfe/x" in entries and "back\\\\slash" in entries
    for rel, entry in entries.items():
        assert rel.isprintable() and entry.skip is None
        with open(entry.path, "rb") as f:
            assert f.read() == rel_bytes(rel)


def test_walk_is_lazy_and_records_what_vanished_meanwhile(tmp_path: Path) -> None:
    write(tmp_path / "a" / "first.txt")
    write(tmp_path / "a" / "second.txt")
    for i in range(300):
        write(tmp_path / "b" / f"{i:04}.txt")
    entries = walk(tmp_path, WalkPolicy())
    assert isinstance(entries, Iterator)
    assert next(entries).rel == "a/first.txt"
    # b/ has not been listed yet: removing it now must show up, not crash the walk.
    shutil.rmtree(tmp_path / "b")
    (tmp_path / "a" / "second.txt").unlink()
    rest = [(e.rel, e.skip) for e in entries]
    assert rest == [("a/second.txt", "vanished"), ("b/", "vanished")]


def test_root_must_be_a_directory_and_is_checked_at_once(tmp_path: Path) -> None:
    write(tmp_path / "file.txt")
    with pytest.raises(NotADirectoryError):
        walk(tmp_path / "file.txt", WalkPolicy())
    with pytest.raises(NotADirectoryError):
        walk(tmp_path / "missing", WalkPolicy())


def test_entries_carry_the_stat_of_the_file_as_their_version(tmp_path: Path) -> None:
    write(tmp_path / "f.txt", b"12345")
    entry = run(tmp_path)["f.txt"]
    st = os.stat(tmp_path / "f.txt")
    assert (entry.size, entry.version) == (5, f"5:{st.st_mtime_ns}:{st.st_ino}:{st.st_dev}")
    assert entry.path == os.fsencode(os.path.realpath(tmp_path / "f.txt"))


def test_walked_entries_are_the_frozen_picklable_values_entry_builds(tmp_path: Path) -> None:
    write(tmp_path / "f.txt")
    write(tmp_path / "blob.dat", b"a\0b")
    write(tmp_path / "box" / "cur" / "1:2,S")
    write(tmp_path / "box" / "new" / "2")
    (tmp_path / "box" / "new" / "link").symlink_to("../cur/1:2,S")
    walked = list(walk(tmp_path, WalkPolicy()))
    assert [(e.rel, e.skip, e.mail) for e in walked] == [
        ("blob.dat", "binary", False),
        ("box/cur/1:2,S", None, True),
        ("box/new/2", None, True),
        ("box/new/link", None, True),
        ("f.txt", None, False),
    ]
    for entry in walked:
        built = Entry(**{f.name: getattr(entry, f.name) for f in dataclasses.fields(Entry)})
        assert entry == built and hash(entry) == hash(built) and repr(entry) == repr(built)
        assert pickle.loads(pickle.dumps(entry)) == entry
        with pytest.raises(dataclasses.FrozenInstanceError):
            entry.skip = "binary"  # type: ignore[misc]


# -- directories passed over wholesale ------------------------------------------------------


def test_ignored_hidden_and_virtualenv_directories_get_one_record_each(tmp_path: Path) -> None:
    for name in [".git/HEAD", "node_modules/x/index.js", "__pycache__/m.pyc", ".cache/a.txt",
                 "venv/pyvenv.cfg", "venv/lib/site.py", ".hidden.txt", "keep/ok.txt"]:  # fmt: skip
        write(tmp_path / name)
    assert verdicts(tmp_path) == {
        ".cache/": "hidden",
        ".git/": "ignored_directory",
        ".hidden.txt": "hidden",
        "__pycache__/": "ignored_directory",
        "keep/ok.txt": None,
        "node_modules/": "ignored_directory",
        "venv/": "virtualenv",
    }
    shown = verdicts(tmp_path, skip_hidden=False)
    assert shown[".git/"] == "ignored_directory"
    assert shown[".hidden.txt"] is None and shown[".cache/a.txt"] is None


def test_maildir_tmp_is_skipped_only_beside_cur_and_new(tmp_path: Path) -> None:
    for name in ["box/cur/1:2,S", "box/new/2", "box/tmp/3", "other/tmp/4", "other/cur/5"]:
        write(tmp_path / name)
    assert verdicts(tmp_path) == {
        "box/cur/1:2,S": None,
        "box/new/2": None,
        "box/tmp/": "maildir_tmp",
        "other/cur/5": None,
        "other/tmp/4": None,
    }


def test_include_and_exclude_globs(tmp_path: Path) -> None:
    for name in ["a.txt", "deep/b.txt", "c.log", "deep/d.log", "build/x/y.txt", "out/z.txt"]:
        write(tmp_path / name)
    assert verdicts(tmp_path, include=("*.txt",), exclude=("build", "out/**")) == {
        "a.txt": None,
        "build/": "excluded",
        "c.log": "excluded",
        "deep/b.txt": None,
        "deep/d.log": "excluded",
        "out/": "excluded",
    }
    assert verdicts(tmp_path, exclude=("/a.txt", "deep/")) == {
        "a.txt": "excluded",
        "build/x/y.txt": None,
        "c.log": None,
        "deep/": "excluded",
        "out/z.txt": None,
    }


# -- symlinks -------------------------------------------------------------------------------


def test_symlinks(tmp_path: Path) -> None:
    src = tmp_path / "src"
    write(src / "real.txt", b"real content")
    write(src / "sub" / "inner.txt")
    write(tmp_path / "outside.txt")
    (src / "to_real.txt").symlink_to("real.txt")
    (src / "to_sub").symlink_to("sub")
    (src / "to_root").symlink_to(".")
    (src / "to_outside.txt").symlink_to(tmp_path / "outside.txt")
    (src / "dangling.txt").symlink_to("nowhere.txt")
    (src / "through_file.txt").symlink_to("real.txt/x")
    (src / "loop1").symlink_to("loop2")
    (src / "loop2").symlink_to("loop1")
    (src / "self").symlink_to("self")
    entries = run(src)
    assert {rel: e.skip for rel, e in entries.items()} == {
        "dangling.txt": "dangling_symlink",
        "loop1": "symlink_loop",
        "loop2": "symlink_loop",
        "real.txt": None,
        "self": "symlink_loop",
        "sub/inner.txt": None,
        "through_file.txt": "dangling_symlink",
        "to_outside.txt": "symlink_outside_source",
        "to_real.txt": None,
        "to_root": "directory_symlink",
        "to_sub": "directory_symlink",
    }
    followed = entries["to_real.txt"]
    assert followed.path == entries["real.txt"].path  # the resolved target is what is opened
    assert followed.size == len(b"real content")


# -- what is never opened, and what is not text ---------------------------------------------


def test_fifos_sockets_and_devices_are_never_opened(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "to_fifo").symlink_to("fifo")
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(tmp_path / "sock"))
        found = verdicts(tmp_path)
    assert found == {"fifo": "not_regular_file", "sock": "not_regular_file",
                     "to_fifo": "not_regular_file"}  # fmt: skip
    assert run(tmp_path)["fifo"].detail == "fifo"


def test_a_character_device_is_never_opened(tmp_path: Path) -> None:
    try:
        os.mknod(tmp_path / "null", stat.S_IFCHR | 0o600, os.makedev(1, 3))
    except PermissionError:
        pytest.skip("mknod needs CAP_MKNOD")
    entry = run(tmp_path)["null"]
    assert (entry.skip, entry.detail) == ("not_regular_file", "character device")


def test_too_large(tmp_path: Path) -> None:
    write(tmp_path / "small.txt", b"x" * 10)
    write(tmp_path / "big.txt", b"x" * 11)
    assert verdicts(tmp_path, max_file_bytes=10) == {"big.txt": "too_large", "small.txt": None}


def test_binary_by_extension_or_nul_unless_claimed_or_bom(tmp_path: Path) -> None:
    write(tmp_path / "image.png", b"plain text really")
    write(tmp_path / "blob.dat", b"abc\0def")
    write(tmp_path / "late_nul.dat", b"a" * 8192 + b"\0")
    write(tmp_path / "utf16.txt", "héllo".encode("utf-16"))
    write(tmp_path / "utf32be.txt", "\ufeffhéllo".encode("utf-32-be"))
    write(tmp_path / "report.pdf", b"%PDF-1.7\n\0\0binary")
    write(tmp_path / "empty.dat", b"")
    assert verdicts(tmp_path) == {
        "blob.dat": "binary",
        "empty.dat": None,
        "image.png": "binary",
        "late_nul.dat": None,
        "report.pdf": "binary",
        "utf16.txt": None,
        "utf32be.txt": None,
    }
    claimed = verdicts(tmp_path, claims=lambda rel: rel.endswith((".pdf", ".png")))
    assert claimed["report.pdf"] is None and claimed["image.png"] is None


# -- permissions: root reads everything, so drop to `nobody` in a forked child --------------


@pytest.fixture
def shared_dir() -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="walk-perm-"))
    path.chmod(0o755)  # reachable by `nobody`, unlike pytest's own 0700 tmp_path
    yield path
    for sub, dirs, _ in os.walk(path):
        for d in dirs:
            os.chmod(os.path.join(sub, d), 0o755)
    shutil.rmtree(path)


def walk_unprivileged(root: Path, **policy: Any) -> dict[str, str | None]:
    if os.geteuid() != 0:
        return verdicts(root, **policy)
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child reports through the pipe
        code = 1
        try:
            os.setgroups([])
            os.setgid(65534)
            os.setuid(65534)
            with os.fdopen(write_end, "wb") as out:
                out.write(json.dumps(verdicts(root, **policy)).encode())
            code = 0
        finally:
            os._exit(code)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as f:
        data = f.read()
    assert os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0
    result: dict[str, str | None] = json.loads(data)
    return result


@pytest.mark.parametrize("noted", [False, True])
def test_unreadable_files_and_directories(shared_dir: Path, noted: bool) -> None:
    """Also when the state noted every file's stat (no sniff then): chmod keeps it."""
    write(shared_dir / "open.txt")
    write(shared_dir / "secret.txt")
    write(shared_dir / "secret.pdf")
    write(shared_dir / "locked" / "inside.txt")
    write(shared_dir / "sub" / "ok.txt")
    for name in ("secret.txt", "secret.pdf", "locked"):
        (shared_dir / name).chmod(0)
    for path in (shared_dir / "open.txt", shared_dir / "sub", shared_dir / "sub" / "ok.txt"):
        path.chmod(0o755)
    stats = {
        p.relative_to(shared_dir).as_posix(): stat_version(st)
        for p in shared_dir.rglob("*")
        if (st := p.lstat()) and p.is_file()
    }
    lookup = (lambda rels: {r: stats[r] for r in rels if r in stats}) if noted else None
    claims = {"claims": lambda rel: rel.endswith(".pdf"), "noted": lookup}
    assert walk_unprivileged(shared_dir, **claims) == {
        "locked/": "unreadable",
        "open.txt": None,
        "secret.pdf": "unreadable",
        "secret.txt": "unreadable",
        "sub/ok.txt": None,
    }


# -- globs and batches ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pattern", "matches", "misses"),
    [
        ("*.pdf", ["a.pdf", "x/y/a.pdf"], ["a.pdfx", "a.pdf/"]),
        ("/top.txt", ["top.txt"], ["x/top.txt"]),
        ("docs/*.md", ["docs/a.md"], ["x/docs/a.md", "docs/sub/a.md"]),
        ("docs/**/*.md", ["docs/a.md", "docs/x/y/a.md"], ["a.md", "docs/a.txt"]),
        ("**/cache", ["cache", "a/b/cache"], ["cache2"]),
        ("build/", ["build/", "a/build/"], ["build"]),
        ("[!a]?.txt", ["bc.txt"], ["ab.txt", "/b.txt"]),
        ("[[]x", ["[x"], ["x"]),
        ("a[", ["a["], ["a"]),
        ("a+b(c).txt", ["a+b(c).txt"], ["aab(c).txt"]),
    ],
)
def test_globs(pattern: str, matches: list[str], misses: list[str]) -> None:
    regex = compile_globs((pattern,))
    assert regex is not None
    assert all(regex.fullmatch(m) for m in matches)
    assert not any(regex.fullmatch(m) for m in misses)


@pytest.mark.parametrize("pattern", ["", "  ", "/", "//"])
def test_a_blank_glob_is_refused(pattern: str) -> None:
    with pytest.raises(ValueError, match="matches nothing"):
        WalkPolicy(exclude=(pattern,))


def test_iter_batches_keeps_order_and_size(tmp_path: Path) -> None:
    for i in range(7):
        write(tmp_path / f"{i}.txt")
    batches = list(iter_batches(walk(tmp_path, WalkPolicy()), 3))
    assert [[e.rel for e in b] for b in batches] == [
        ["0.txt", "1.txt", "2.txt"], ["3.txt", "4.txt", "5.txt"], ["6.txt"]]  # fmt: skip
    with pytest.raises(ValueError):
        next(iter_batches(iter([]), 0))


def test_readability_comes_from_the_lstat_for_the_owners_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file its reader owns with the owner's read bit is readable without access();
    every verdict equals what access(R_OK) answers, for every read bit."""
    modes = [0o000, 0o200, 0o400, 0o440, 0o404, 0o004, 0o644]
    for mode in modes:
        write(tmp_path / f"m{mode:03o}.txt")
        os.chmod(tmp_path / f"m{mode:03o}.txt", mode)
    truth = {f"m{m:03o}.txt": os.access(tmp_path / f"m{m:03o}.txt", os.R_OK) for m in modes}
    asked: list[bytes] = []
    real_access = os.access

    def access(path: Any, mode: int) -> bool:
        asked.append(os.fsencode(path))
        return real_access(path, mode)

    monkeypatch.setattr(os, "access", access)
    found = verdicts(tmp_path)
    assert {rel: skip is None for rel, skip in found.items()} == truth
    assert os.fsencode(tmp_path / "m644.txt") not in asked
    assert os.fsencode(tmp_path / "m400.txt") not in asked
