"""A real Dovecot IMAP server on 127.0.0.1 for the IMAP source's tests, and a TCP proxy
that can drop its connections.

`Dovecot(folder)` writes a dovecot.conf (passwd-file auth, a Maildir below `folder`,
TLS with a certificate of a CA made here by `openssl`, plain IMAP and IMAPS on free
ports) and runs `dovecot -F -c CONF` until `stop()`. `scripts/install-dovecot` (run
by `scripts/test`) installs it; a test without it fails, it is never skipped.
"""

from __future__ import annotations

import contextlib
import imaplib
import os
import pwd
import shutil
import socket
import subprocess
import threading
import time
from pathlib import Path

import pytest

USER, PASSWORD = "alice", "s3cret pass"
NO_DOVECOT = (
    "the IMAP tests need Dovecot: scripts/test installs it when run as root "
    "(apt-get install dovecot-imapd)"
)


def free_port() -> int:
    """A TCP port of 127.0.0.1 nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def make_certs(folder: Path) -> tuple[Path, Path, Path]:
    """A CA (`ca.pem`) and a certificate it signed for 127.0.0.1 and localhost; return
    the CA's, the server's certificate and its key."""
    ca_key, ca, key, csr, cert = (folder / n for n in ("ca.key", "ca.pem", "k", "csr", "c"))
    ext = folder / "san.cnf"
    ext.write_text("subjectAltName=IP:127.0.0.1,DNS:localhost\n")

    def ssl(*args: str | Path) -> None:
        subprocess.run(["openssl", *map(str, args)], check=True, capture_output=True)

    ssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", ca_key, "-out", ca,
        "-days", "2", "-subj", "/CN=indexer test CA")  # fmt: skip
    ssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", csr,
        "-subj", "/CN=127.0.0.1")  # fmt: skip
    ssl("x509", "-req", "-in", csr, "-CA", ca, "-CAkey", ca_key, "-CAcreateserial",
        "-out", cert, "-days", "2", "-extfile", ext)  # fmt: skip
    return ca, cert, key


_CONF = """\
base_dir = {root}/run
state_dir = {root}/state
instance_name = indexer-test-{port}
protocols = imap
listen = 127.0.0.1
log_path = {root}/dovecot.log
default_internal_user = {internal}
default_internal_group = {internal_group}
default_login_user = {login}
first_valid_uid = {uid}
first_valid_gid = {gid}
disable_plaintext_auth = no
auth_mechanisms = plain login
ssl = yes
ssl_cert = <{cert}
ssl_key = <{key}
passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%u {root}/passwd
}}
userdb {{
  driver = static
  args = uid={uid} gid={gid} home={root}/home/%u
}}
mail_location = maildir:~/Maildir
service imap-login {{
  chroot =
  inet_listener imap {{
    address = 127.0.0.1
    port = {port}
  }}
  inet_listener imaps {{
    address = 127.0.0.1
    port = {tls_port}
  }}
}}
service anvil {{
  chroot =
}}
"""


class Dovecot:
    """A Dovecot of its own, with one account (`USER`, `PASSWORD`)."""

    def __init__(self, folder: Path) -> None:
        if shutil.which("dovecot") is None:
            pytest.fail(NO_DOVECOT)
        # Below /tmp, readable by the mail user: pytest's own folders are root's alone.
        self.root = Path(os.path.realpath(folder))
        self.root.mkdir(parents=True, exist_ok=True)
        self.root.chmod(0o755)
        self.port, self.tls_port = free_port(), free_port()
        self.ca, cert, key = make_certs(self.root)
        internal, login, uid, gid = _users()
        (self.root / "passwd").write_text(f"{USER}:{{PLAIN}}{PASSWORD}\n")
        (self.root / "home").mkdir(exist_ok=True)
        os.chown(self.root / "home", uid, gid)
        self.conf = self.root / "dovecot.conf"
        values = {
            "root": self.root, "port": self.port, "tls_port": self.tls_port, "cert": cert,
            "key": key, "internal": internal, "internal_group": _group_of(internal),
            "login": login, "uid": uid, "gid": gid,
        }  # fmt: skip
        self.conf.write_text(_CONF.format(**values))
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def maildir(self) -> Path:
        """The account's Maildir, as Dovecot writes it."""
        return self.root / "home" / USER / "Maildir"

    def start(self) -> Dovecot:
        """Run the server; return once it accepts connections."""
        # Stopped when this process dies, so a killed pytest leaves no server behind.
        command = ["setpriv", "--pdeathsig", "SIGTERM", "--", "dovecot", "-F", "-c"]
        self.process = subprocess.Popen([*command, str(self.conf)])
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return self
            except OSError:
                if self.process.poll() is not None:
                    break
                time.sleep(0.05)
        log = self.root / "dovecot.log"
        pytest.fail(f"dovecot did not start: {log.read_text() if log.exists() else ''}")

    def stop(self) -> None:
        """Stop the server (and its children: `-F` keeps the master in the foreground)."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=30)
        self.process = None

    def client(self) -> imaplib.IMAP4:
        """A plain connection, logged in, to fill and change the mailbox."""
        conn = imaplib.IMAP4("127.0.0.1", self.port)
        conn.login(USER, PASSWORD)
        return conn

    def append(self, folder: str, *messages: bytes) -> None:
        """Deliver `messages` into `folder` (a modified UTF-7 name), creating it."""
        conn = self.client()
        try:
            if folder != "INBOX":
                conn.create(f'"{folder}"')
            for message in messages:
                typ, data = conn.append(f'"{folder}"', None, None, message)
                assert typ == "OK", data
        finally:
            conn.logout()

    def expunge(self, folder: str, *uids: int) -> None:
        """Delete messages `uids` of `folder` for good."""
        conn = self.client()
        try:
            conn.select(f'"{folder}"')
            conn.uid("STORE", ",".join(map(str, uids)), "+FLAGS.SILENT", r"(\Deleted)")
            conn.expunge()
        finally:
            conn.logout()

    def set_uidvalidity(self, folder: str, value: int) -> None:
        """Give `folder` a new UIDVALIDITY (as a server does when it rebuilds its index)."""
        subprocess.run(
            ["doveadm", "-c", str(self.conf), "mailbox", "update", "-u", USER,
             "--uid-validity", str(value), folder],
            check=True, capture_output=True,
        )  # fmt: skip

    def message_file(self, folder: str, uid: int) -> Path:
        """The Maildir file that holds message `uid` of `folder` (from dovecot-uidlist)."""
        box = self.maildir if folder == "INBOX" else self.maildir / f".{folder}"
        for line in (box / "dovecot-uidlist").read_text().splitlines()[1:]:
            number, _, name = line.partition(":")
            if int(number.split()[0]) == uid:
                base = name.split(":")[0]
                for sub in ("cur", "new"):
                    found = list((box / sub).glob(f"{base}*"))
                    if found:
                        return found[0]
        raise FileNotFoundError(f"{folder} {uid}")


def _users() -> tuple[str, str, int, int]:
    """Dovecot's internal and login users, and the mail files' uid and gid: as root the
    package's own users (it will not run mail as root), else this user throughout."""
    if os.getuid() != 0:
        me = pwd.getpwuid(os.getuid()).pw_name
        return me, me, os.getuid(), os.getgid()
    dovecot, dovenull = pwd.getpwnam("dovecot"), pwd.getpwnam("dovenull")
    return dovecot.pw_name, dovenull.pw_name, dovecot.pw_uid, dovecot.pw_gid


def _group_of(user: str) -> str:
    import grp

    return grp.getgrgid(pwd.getpwnam(user).pw_gid).gr_name


class Proxy:
    """A TCP relay on a free port of 127.0.0.1 to `port`, which cuts a connection that
    sends `trigger` while `drops` is above 0 and, once `down` is set (by a cut when
    `stay_down`), closes every new connection at once (a server gone away)."""

    trigger = b"BODY.PEEK[]"

    def __init__(self, port: int) -> None:
        self.target = port
        self.drops = 0
        self.stay_down = False
        self.down = False
        self.cut = 0
        """Connections cut so far."""
        self.refused = 0
        """Connections closed at once while `down`."""
        self.triggered: list[bytes] = []
        """What the client sent that held `trigger` (and went through)."""
        self.hide_starttls = False
        """Take STARTTLS out of what the server says it can do (a server without TLS)."""
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = int(self._listener.getsockname()[1])
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            if self.down:
                self.refused += 1
                client.close()
                continue
            server = socket.create_connection(("127.0.0.1", self.target))
            threading.Thread(target=self._pump, args=(client, server, True), daemon=True).start()
            threading.Thread(target=self._pump, args=(server, client, False), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket, upstream: bool) -> None:
        try:
            while data := src.recv(65536):
                if upstream and self.trigger in data and self.drops > 0:
                    self.drops -= 1
                    self.cut += 1
                    self.down = self.stay_down
                    break
                if upstream and self.trigger in data:
                    self.triggered.append(data)
                if not upstream and self.hide_starttls:
                    data = data.replace(b" STARTTLS", b"")
                dst.sendall(data)
        except OSError:
            pass
        for sock in (src, dst):
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()

    def close(self) -> None:
        self._listener.close()
