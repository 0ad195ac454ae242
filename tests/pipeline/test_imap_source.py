"""The IMAP source against a real Dovecot on 127.0.0.1 (tests/imapserver.py): its
records are a Maildir copy's, runs are incremental by UIDVALIDITY and UID, a dropped
connection is retried and then fails the run with nothing committed."""

from __future__ import annotations

import json
import re
import shutil
import tempfile
from collections.abc import Iterator
from email.message import EmailMessage
from email.policy import SMTP
from pathlib import Path
from typing import Any, BinaryIO

import pytest
from imapserver import PASSWORD, USER, Dovecot, Proxy, free_port
from outputs import committed, document_records, documents

import indexer
from indexer.cli import main
from indexer.config import Config
from indexer.pipeline.engines.context import RunContext
from indexer.pipeline.engines.dask import driver as dask_driver
from indexer.pipeline.output.staged import Staged
from indexer.pipeline.walk.entry import Entry
from indexer.pipeline.walk.imap import ImapSource, Retry, parse_address
from indexer.pipeline.walk.imap import source as imap_source

# exact="off": an IMAP folder and its Maildir copy list the same messages in other orders,
# and walk order decides which of two copies is the original.
CONFIG = Config(workers=1, pdf_workers=1, exact="off", keep_quotes=True)
"""Walk order decides which copy is an original and which message keeps an orphan quote,
and an IMAP folder lists its messages in another order than its Maildir copy."""
FAST = Retry(retries=2, backoff=0.01, timeout=10, starttls="off")
"""Plain IMAP, so that the proxy in front of the server reads the commands it cuts at."""


@pytest.fixture
def dovecot(monkeypatch: pytest.MonkeyPatch) -> Iterator[Dovecot]:
    root = Path(tempfile.mkdtemp(prefix="indexer-dovecot-"))
    server = Dovecot(root).start()
    # imap:// upgrades to TLS (STARTTLS, which the server offers): its CA trusted as the
    # system's would be, for the runs of the CLI with no imap_ca_file
    monkeypatch.setenv("SSL_CERT_FILE", str(server.ca))
    try:
        yield server
    finally:
        server.stop()
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def password(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("INDEXER_IMAP_PASSWORD", PASSWORD)


class Recording(ImapSource):
    """The IMAP source, noting the path of every message the run reads."""

    def __init__(self, url: str, retry: Retry = FAST) -> None:
        super().__init__(parse_address(url), retry)
        self.opened: list[str] = []

    def open(self, entry: Entry) -> BinaryIO:
        self.opened.append(entry.rel)
        return super().open(entry)


def run(source: ImapSource, out: Path) -> indexer.RunSummary:
    """`indexer.run` on `source`, its connection closed after."""
    with source:
        return indexer.run(source, out, CONFIG)


def message(n: int, subject: str, body: str, attach: tuple[str, bytes] | None = None) -> bytes:
    """A message as a client sends it (CRLF line ends)."""
    mail = EmailMessage(policy=SMTP)
    mail["From"] = f"Sender {n} <s{n}@example.org>"
    mail["To"] = "alice@example.org"
    mail["Subject"] = subject
    mail["Date"] = f"Mon, {n + 1:02d} Jan 2024 10:00:00 +0000"
    mail["Message-ID"] = f"<m{n}@example.org>"
    mail.set_content(body)
    if attach is not None:
        name, data = attach
        mail.add_attachment(data, maintype="text", subtype="csv", filename=name)
    return mail.as_bytes()


MAILBOX = {
    "INBOX": [
        message(1, "Quarterly numbers", "The numbers for the quarter are attached.\n",
                ("q1.csv", b"region,total\nnorth,12\nsouth,30\n")),
        message(2, "Grüße aus München", "Schöne Grüße, bis bald in München!\n"),
        message(3, "Lunch", "Lunch at noon on Friday?\n" * 3),
        message(4, "Minutes", "Minutes of the meeting.\n\n" + "A point discussed.\n" * 40),
    ],
    "Entw&APw-rfe": [message(5, "Entwurf", "Ein Entwurf, noch nicht gesendet.\n")],
    "Archive.2023": [message(6 + i, f"Old {i}", f"An old message, number {i}.\n")
                     for i in range(12)],
}  # fmt: skip


def fill(server: Dovecot) -> None:
    for folder, messages in MAILBOX.items():
        server.append(folder, *messages)


def url(server: Dovecot, folder: str = "*", *, port: int | None = None) -> str:
    return f"imap://{USER}@127.0.0.1:{port or server.port}/{folder}"


def maildir_copy(server: Dovecot, to: Path) -> Path:
    """The messages of the server's Maildir (its files as Dovecot stored them), in a
    Maildir of their own: no Dovecot index files beside them."""
    for box in [server.maildir, *server.maildir.glob(".*")]:
        dest = to if box == server.maildir else to / box.name.lstrip(".")
        for sub in ("cur", "new", "tmp"):
            (dest / sub).mkdir(parents=True, exist_ok=True)
            for file in (box / sub).glob("*") if sub != "tmp" else ():
                shutil.copyfile(file, dest / sub / file.name)
    return to


_PLACED = ("path", "doc_id", "id", "digest")
"""What a record says of where it is (a chunk line holds its doc_id: so does `digest`)."""


def placeless(out: Path) -> list[str]:
    """Every record of `out` without what says where it is, in a stable order; a
    message's parent (a `doc_id`, a path's) named by the parent's content, its sha256."""
    # a Maildir's tmp/ folders are records of their own (skipped): IMAP has none
    records = [r for r in document_records(out) if r["reason"] != "maildir_tmp"]
    sha = {r["doc_id"]: r["sha256"] for r in records}
    for record in records:
        thread = record["metadata"]["thread"]
        thread["parent"] = sha[thread["parent"]] if thread["parent"] else ""
    for shard in sorted(out.glob("chunks-*.ndjson")):
        records += [json.loads(line) for line in shard.read_bytes().splitlines()]
    return sorted(json.dumps(_without(r), sort_keys=True) for r in records)


def _without(record: dict[str, Any]) -> dict[str, Any]:
    kept = {k: v for k, v in record.items() if k not in _PLACED}
    if "duplicate_of" in kept:  # paths and a doc_id: whether it is a copy must agree
        kept["duplicate_of"] = bool(kept["duplicate_of"])
        kept["metadata"]["near_duplicate"].pop("cluster")
    return kept


def test_records_equal_those_of_a_maildir_copy_of_the_same_messages(
    dovecot: Dovecot, tmp_path: Path, password: None
) -> None:
    fill(dovecot)
    source = Recording(url(dovecot))
    summary = run(source, tmp_path / "imap")
    indexer.run(maildir_copy(dovecot, tmp_path / "maildir"), tmp_path / "local", CONFIG)
    assert placeless(tmp_path / "imap") == placeless(tmp_path / "local")
    docs = documents(tmp_path / "imap")
    assert {p for p in docs if "#" not in p} == {
        *(f"imap/127.0.0.1/INBOX/{n}.eml" for n in range(1, 5)),
        "imap/127.0.0.1/Entwürfe/1.eml",
        *(f"imap/127.0.0.1/Archive/2023/{n}.eml" for n in range(1, 13)),
    }
    assert docs["imap/127.0.0.1/INBOX/1.eml#att/1/q1.csv"]["status"] == "ok"
    assert summary.extracted == 17 + 1  # and the attachment
    assert len(source.opened) == 17
    conn = dovecot.client()
    try:
        conn.select("INBOX", readonly=True)
        assert conn.search(None, "UNSEEN")[1] == [b"1 2 3 4"]  # read, never marked seen
    finally:
        conn.logout()


def plan(n: int, subject: str, sender: str, date: str = "", irt: str = "") -> bytes:
    """A message of the plan threads: no threading headers but for `irt`, undated
    unless `date` says."""
    mail = EmailMessage(policy=SMTP)
    mail["From"], mail["To"] = f"{sender}@example.org", "team@example.org"
    mail["Subject"], mail["Message-ID"] = subject, f"<plan{n}@example.org>"
    if date:
        mail["Date"] = date
    if irt:
        mail["In-Reply-To"] = irt
    mail.set_content(f"Plan message {n}: {subject}.\n")
    return mail.as_bytes()


def test_threads_equal_those_of_a_maildir_copy_whatever_order_each_lists_them_in(
    dovecot: Dovecot, tmp_path: Path, password: None
) -> None:
    """Undated mails of one subject over folders, replies naming none of them, and a
    Message-ID in two folders with unlike bytes: the thread ids and the parents (by
    content) are the Maildir copy's, though the paths, doc ids and listing differ."""
    when, later = "Tue, 02 Jan 2024 10:00:00 +0000", "Tue, 02 Jan 2024 11:00:00 +0000"
    budget = plan(6, "Budget", "bob")
    dovecot.append(
        "INBOX", plan(3, "Re: Plan", "bob"), plan(1, "Plan", "ann"),
        plan(5, "AW: Plan", "ann", when), plan(7, "Re: Budget", "ann", irt="<plan6@example.org>"),
    )  # fmt: skip
    dovecot.append(
        "Archive.2023", plan(4, "Re: Plan", "cid"), plan(2, "Plan", "bob"), budget,
        plan(8, "Re: Plan", "bob", when),
    )  # fmt: skip
    dovecot.append("Sent", budget + b"\n", plan(9, "Re: Plan", "ann", later))  # unlike bytes
    run(Recording(url(dovecot)), tmp_path / "imap")
    indexer.run(maildir_copy(dovecot, tmp_path / "maildir"), tmp_path / "local", CONFIG)
    assert placeless(tmp_path / "imap") == placeless(tmp_path / "local")
    threads = {r["metadata"]["message_id"]: r["metadata"]["thread"]
               for r in document_records(tmp_path / "imap")}  # fmt: skip
    assert len({threads[f"<plan{n}@example.org>"]["id"] for n in (1, 2, 3, 4, 5, 8, 9)}) == 1
    parents = {mid for mid, t in threads.items() if t["parent"]}
    assert parents == {f"<plan{n}@example.org>" for n in (5, 7, 9)}  # 8: 5's second


@pytest.mark.slow  # starts a local dask cluster
def test_the_dask_engine_reads_an_imap_source_into_the_local_engines_bytes(
    dovecot: Dovecot, tmp_path: Path, password: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each dask worker process opens its own connection (the source is pickled
    without its credentials, read again from the environment there), over STARTTLS."""
    on_dask, staged = dask_driver.stage, []

    async def noted(ctx: RunContext) -> Staged:
        staged.append(str(ctx.source))
        return await on_dask(ctx)

    monkeypatch.setattr(dask_driver, "stage", noted)
    fill(dovecot)
    dovecot.append("Sent", plan(1, "Plan", "ann"), plan(2, "Re: Plan", "bob"))
    conf = tmp_path / "small.toml"  # several partitions, of several shards
    conf.write_text(
        "[run]\npartition_files = 3\n"
        "[output]\nshard_files = 2\nshard_min_files = 1\nshard_boundary_bits = 1\n"
    )
    common = [url(dovecot), "--workers", "2", "--config", str(conf), "--quiet"]
    assert main(["run", *common, "--out", str(tmp_path / "local")]) == 0
    assert main(["run", *common, "--engine", "dask", "--out", str(tmp_path / "dask")]) == 0
    assert staged == [url(dovecot)]  # the second run was the dask engine's
    assert committed(tmp_path / "dask") == committed(tmp_path / "local")
    layout = ".current/.layout.ndjson"
    assert (tmp_path / "dask" / layout).read_bytes() == (tmp_path / "local" / layout).read_bytes()
    assert len(documents(tmp_path / "dask")) == 17 + 1 + 2  # and the attachment
    assert len(list((tmp_path / "dask").glob("documents-*.ndjson"))) > 1


def test_an_incremental_run_reads_only_new_messages_and_drops_expunged_ones(
    dovecot: Dovecot, tmp_path: Path, password: None
) -> None:
    fill(dovecot)
    out = tmp_path / "out"
    run(Recording(url(dovecot)), out)
    again = Recording(url(dovecot))
    rerun = run(again, out)
    assert again.opened == [] and rerun.changes == {"added": 0, "changed": 0, "removed": 0}
    dovecot.append("INBOX", message(40, "New", "A new message.\n"))
    dovecot.append("Archive.2023", message(41, "Filed", "Filed late.\n"))
    dovecot.expunge("INBOX", 2)
    dovecot.expunge("Archive.2023", 3, 4)
    later = Recording(url(dovecot))
    summary = run(later, out)
    assert sorted(later.opened) == [
        "imap/127.0.0.1/Archive/2023/13.eml",
        "imap/127.0.0.1/INBOX/5.eml",
    ]
    assert summary.changes == {"added": 2, "changed": 0, "removed": 3}
    paths = set(documents(out))
    assert "imap/127.0.0.1/INBOX/2.eml" not in paths and "imap/127.0.0.1/INBOX/5.eml" in paths
    run(Recording(url(dovecot)), tmp_path / "fresh")
    assert committed(out) == committed(tmp_path / "fresh")


def test_messages_are_fetched_a_batch_at_a_time(
    dovecot: Dovecot, tmp_path: Path, password: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(imap_source, "_BATCH", 5)
    fill(dovecot)
    proxy = Proxy(dovecot.port)
    try:
        run(Recording(url(dovecot, port=proxy.port)), tmp_path / "out")
    finally:
        proxy.close()
    asked = [_uids(command) for command in proxy.triggered]
    assert sorted(len(uids) for uids in asked) == [1, 2, 4, 5, 5]  # folders of 12, 4, 1
    assert sorted(uid for uids in asked for uid in uids) == sorted(
        [*range(1, 13), *range(1, 5), 1]
    )  # each message once


def _uids(command: bytes) -> list[int]:
    found = re.search(rb"UID FETCH ([\d,]+) ", command)
    assert found is not None, command
    return [int(uid) for uid in found[1].split(b",")]


def test_a_folder_whose_uidvalidity_changed_is_read_again_whole(
    dovecot: Dovecot, tmp_path: Path, password: None
) -> None:
    fill(dovecot)
    out = tmp_path / "out"
    run(Recording(url(dovecot)), out)
    before = committed(out)
    dovecot.set_uidvalidity("Archive.2023", 4242)
    again = Recording(url(dovecot))
    run(again, out)
    assert sorted(again.opened) == sorted(
        f"imap/127.0.0.1/Archive/2023/{n}.eml" for n in range(1, 13)
    )  # the other folders' messages are not read
    assert committed(out) == before  # the same messages: the same records


def test_one_folder_by_its_decoded_name(dovecot: Dovecot, tmp_path: Path, password: None) -> None:
    fill(dovecot)
    run(Recording(url(dovecot, "Entw%C3%BCrfe")), tmp_path / "out")
    assert [p for p in documents(tmp_path / "out")] == ["imap/127.0.0.1/Entwürfe/1.eml"]


def test_a_dropped_connection_is_retried_and_the_run_completes(
    dovecot: Dovecot, tmp_path: Path, password: None
) -> None:
    fill(dovecot)
    proxy = Proxy(dovecot.port)
    proxy.drops = 1
    try:
        run(Recording(url(dovecot, port=proxy.port)), tmp_path / "out")
    finally:
        proxy.close()
    assert proxy.cut == 1
    run(Recording(url(dovecot)), tmp_path / "clean")
    assert placeless(tmp_path / "out") == placeless(tmp_path / "clean")


def test_a_connection_that_stays_down_fails_the_run_with_nothing_committed(
    dovecot: Dovecot, tmp_path: Path, password: None, capsys: pytest.CaptureFixture[str]
) -> None:
    fill(dovecot)
    out, conf = tmp_path / "out", tmp_path / "fast.toml"
    conf.write_text(
        '[run]\nworkers = 1\npdf_workers = 1\n[imap]\nimap_backoff = 0.01\nimap_starttls = "off"\n'
    )
    proxy = Proxy(dovecot.port)
    args = ["run", url(dovecot, port=proxy.port), "--out", str(out), "--config", str(conf)]
    try:
        assert main(args) == 0
        before = committed(out)
        dovecot.append("INBOX", message(50, "During", "Arrives before the outage.\n"))
        proxy.drops, proxy.stay_down = 1, True
        capsys.readouterr()
        code = main(args)
    finally:
        proxy.close()
    err = capsys.readouterr().err
    assert code == 3, err
    assert proxy.cut == 1 and proxy.refused == 3  # the cut, then 3 retries (imap_retries)
    assert "the connection failed 4 times" in err
    assert "SourceLost" in err and "nothing was committed" in err and "Traceback" not in err
    assert committed(out) == before
    assert not list(out.glob(".staging*"))


def test_imaps_verifies_the_certificate_against_the_ca_given(
    dovecot: Dovecot, tmp_path: Path, password: None, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    monkeypatch.delenv("SSL_CERT_FILE")  # the system's CAs only
    fill(dovecot)
    tls = f"imaps://{USER}@127.0.0.1:{dovecot.tls_port}/INBOX"
    out = tmp_path / "out"
    assert main(["run", tls, "--out", str(out), "--workers", "1"]) == 2
    err = capsys.readouterr().err
    assert "certificate is not trusted" in err and "imap_ca_file" in err
    assert not out.exists()
    conf = tmp_path / "ca.toml"
    conf.write_text(f'[imap]\nimap_ca_file = "{dovecot.ca}"\n')
    assert main(["run", tls, "--out", str(out), "--workers", "1", "--config", str(conf)]) == 0
    assert len([p for p in documents(out) if "#" not in p]) == 4


def test_a_password_in_the_url_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        ["run", "imaps://alice:hunter2@mail.example.com/INBOX", "--out", str(tmp_path / "o")]
    )
    err = capsys.readouterr().err
    assert code == 2
    assert "carries a password" in err and "INDEXER_IMAP_PASSWORD" in err and "hunter2" not in err
    assert not (tmp_path / "o").exists()


def test_the_password_comes_from_the_netrc_file_and_a_wrong_one_is_a_usage_error(
    dovecot: Dovecot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    monkeypatch.delenv("INDEXER_IMAP_PASSWORD", raising=False)
    fill(dovecot)
    netrc = tmp_path / "netrc"
    netrc.write_text(f'machine 127.0.0.1 login {USER} password "{PASSWORD}"\n')
    monkeypatch.setenv("NETRC", str(netrc))
    nobody = f"imap://127.0.0.1:{dovecot.port}/INBOX"  # the login from the netrc file too
    assert main(["run", nobody, "--out", str(tmp_path / "out"), "--workers", "1"]) == 0
    assert len([p for p in documents(tmp_path / "out") if "#" not in p]) == 4
    netrc.write_text(f"machine 127.0.0.1 login {USER} password wrong\n")
    capsys.readouterr()
    assert main(["run", nobody, "--out", str(tmp_path / "bad"), "--workers", "1"]) == 2
    err = capsys.readouterr().err
    assert "refused the login of 'alice'" in err and "Traceback" not in err
    assert not (tmp_path / "bad").exists()


def test_a_message_the_server_cannot_send_is_a_failed_record(
    dovecot: Dovecot, tmp_path: Path, password: None
) -> None:
    fill(dovecot)
    dovecot.message_file("Archive.2023", 5).chmod(0)  # Dovecot cannot open it
    run(Recording(url(dovecot)), tmp_path / "out")
    docs = documents(tmp_path / "out")
    broken = docs["imap/127.0.0.1/Archive/2023/5.eml"]
    assert (broken["status"], broken["reason"]) == ("failed", "unreadable")
    assert broken["reason_text"].endswith(
        ": the IMAP server would not send it: FETCH failed: Internal error occurred. "
        "Refer to server log for more information."
    )
    assert all(docs[f"imap/127.0.0.1/Archive/2023/{n}.eml"]["status"] == "ok" for n in (4, 6, 12))


@pytest.mark.slow  # two runs over 200 real messages: a minute of extraction
def test_real_mail_reads_as_its_maildir_copy_does(
    dovecot: Dovecot, tmp_path: Path, password: None, corpus: Path
) -> None:
    mails = sorted(p for p in corpus.glob("email-*/*.eml") if p.stat().st_size < 1 << 20)
    # IMAP cannot carry a NUL byte (Dovecot sends 0x80 instead): such a message's bytes
    # over IMAP are not its Maildir file's (mail_malformed_3.eml holds two)
    mails = [mail for mail in mails if b"\0" not in mail.read_bytes()]
    assert len(mails) >= 199
    conn = dovecot.client()
    refused = 0
    try:
        for mail in mails:  # as a client sends them; the server may refuse a broken one
            refused += conn.append("INBOX", None, None, mail.read_bytes())[0] != "OK"
    finally:
        conn.logout()
    assert refused < 10
    run(Recording(url(dovecot, "INBOX")), tmp_path / "imap")
    indexer.run(maildir_copy(dovecot, tmp_path / "maildir"), tmp_path / "local", CONFIG)
    assert placeless(tmp_path / "imap") == placeless(tmp_path / "local")


def test_a_missing_folder_is_a_usage_error_and_no_server_a_fatal_one(
    dovecot: Dovecot, tmp_path: Path, password: None, capsys: pytest.CaptureFixture[str]
) -> None:
    conf = tmp_path / "fast.toml"
    conf.write_text("[imap]\nimap_backoff = 0.01\nimap_retries = 1\n")
    out = ["--out", str(tmp_path / "out"), "--config", str(conf)]
    assert main(["run", url(dovecot, "Nowhere"), *out]) == 2
    assert "the server has no folder 'Nowhere'" in capsys.readouterr().err
    assert main(["run", url(dovecot, port=free_port()), *out]) == 3
    err = capsys.readouterr().err
    assert "the connection failed 2 times" in err and "nothing was done" in err
    assert "Traceback" not in err and not (tmp_path / "out").exists()


def test_a_run_lists_the_folders_once(
    dovecot: Dovecot, tmp_path: Path, password: None, capsys: pytest.CaptureFixture[str]
) -> None:
    # The CLI checks the source before the run; the run asks whether it holds anything,
    # walks it, and (run again) walks it to see what did not change: one listing for all.
    fill(dovecot)
    proxy = Proxy(dovecot.port)
    proxy.trigger = b" LIST "
    conf = tmp_path / "plain.toml"
    conf.write_text('[imap]\nimap_starttls = "off"\n')  # so that the proxy reads the commands
    out = ["--out", str(tmp_path / "out"), "--workers", "1", "--config", str(conf)]
    try:
        assert main(["run", url(dovecot, port=proxy.port), *out]) == 0
        first = len(proxy.triggered)
        dovecot.append("INBOX", message(40, "Late", "A message after the first run.\n"))
        assert main(["run", url(dovecot, port=proxy.port), *out]) == 0
    finally:
        proxy.close()
    assert (first, len(proxy.triggered)) == (1, 2)
    assert "imap/127.0.0.1/INBOX/5.eml" in documents(tmp_path / "out")


def test_imap_is_upgraded_to_tls_when_the_server_offers_starttls(
    dovecot: Dovecot, tmp_path: Path, password: None, capsys: pytest.CaptureFixture[str]
) -> None:
    fill(dovecot)
    proxy = Proxy(dovecot.port)
    proxy.trigger = b"LOGIN"
    out = ["--out", str(tmp_path / "out"), "--workers", "1"]
    try:
        assert main(["run", url(dovecot, "INBOX", port=proxy.port), *out]) == 0
    finally:
        proxy.close()
    assert proxy.triggered == []  # the login (and all after it) went encrypted
    assert len([p for p in documents(tmp_path / "out") if "#" not in p]) == 4
    run(Recording(url(dovecot, "INBOX")), tmp_path / "plain")
    assert placeless(tmp_path / "out") == placeless(tmp_path / "plain")
    # the certificate is verified as imaps:// verifies it
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv("SSL_CERT_FILE")
        capsys.readouterr()
        assert main(["run", url(dovecot, "INBOX"), "--out", str(tmp_path / "untrusted")]) == 2
    assert "certificate is not trusted" in capsys.readouterr().err


def test_starttls_required_refuses_a_server_that_does_not_offer_it(
    dovecot: Dovecot, tmp_path: Path, password: None, capsys: pytest.CaptureFixture[str]
) -> None:
    fill(dovecot)
    proxy = Proxy(dovecot.port)
    proxy.hide_starttls = True
    proxy.trigger = b"LOGIN"
    conf = tmp_path / "require.toml"
    conf.write_text('[run]\nworkers = 1\n[imap]\nimap_starttls = "require"\n')
    source = url(dovecot, "INBOX", port=proxy.port)
    try:
        assert main(["run", source, "--out", str(tmp_path / "out"), "--config", str(conf)]) == 2
        err = capsys.readouterr().err
        assert "does not offer STARTTLS" in err and "Traceback" not in err
        assert proxy.triggered == [] and not (tmp_path / "out").exists()  # no login sent
        # auto logs in unencrypted where the server offers no TLS
        assert main(["run", source, "--out", str(tmp_path / "auto"), "--workers", "1"]) == 0
    finally:
        proxy.close()
    assert len(proxy.triggered) == 2  # in clear: the listing's connection, the reading one
