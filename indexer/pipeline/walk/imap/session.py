"""One logged-in IMAP connection that is made again when it drops.

`Session.run(op, what)` runs `op(connection)` and, when the connection drops (a reset,
a timeout, an EOF), connects again after a pause (`backoff`, doubling) up to
`retries` times, then raises `SourceLost`: the run stops with nothing committed. A
server that answers NO or BAD, or says BYE to one command twice over, refused that
command (`Refused`): the connection was fine. Wrong credentials and an untrusted
certificate are `ConfigError`s, never retried. A plain `imap://` connection is upgraded
to TLS by STARTTLS, before the login, when the server offers it (`Retry.starttls`).
"""

from __future__ import annotations

import contextlib
import imaplib
import logging
import re
import ssl
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from indexer.errors import ConfigError, SourceLost
from indexer.pipeline.walk.imap.address import ImapAddress

__all__ = ["Refused", "Retry", "Session"]

T = TypeVar("T")
log = logging.getLogger(__name__)

_NOISE = re.compile(r"^command: \w+ => |\s*\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\]\s*$")
"""imaplib's prefix, and the time Dovecot appends to an internal error: left out of a
record's reason, which must not change from run to run."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Retry:
    """How a dropped connection is retried, and how long a reply may take."""

    retries: int = 3
    """Connections made again after a drop before the run fails."""
    backoff: float = 1.0
    """Seconds before the first new connection; doubled before each next one."""
    timeout: float = 60.0
    """Seconds a connection waits for the server before it counts as dropped."""
    ca_file: str | None = None
    """A PEM file of the CAs to trust instead of the system's (a private server's)."""
    starttls: str = "auto"
    """`imap://`: `auto` upgrades to TLS when the server offers STARTTLS, `require`
    refuses a server that does not, `off` never upgrades."""


class Refused(Exception):
    """The server refused a command (NO, BAD, or BYE twice over); `args[0]` says why."""


class Session:
    """A connection to `address` as `user`, made when first needed and again after a drop."""

    def __init__(self, address: ImapAddress, user: str, password: str, retry: Retry) -> None:
        self.address, self.retry = address, retry
        self._login = (user, password)
        self._conn: imaplib.IMAP4 | None = None
        self.selected: tuple[bytes, int, int] | None = None
        """The folder examined on this connection: its name, UIDVALIDITY and EXISTS."""

    def run(self, op: Callable[[imaplib.IMAP4], T], what: str) -> T:
        """`op`'s result on a live connection; raises `Refused`, `SourceLost`, or
        `ConfigError` (refused login, untrusted certificate)."""
        drops = byes = 0
        while True:
            conn = self._connected(what, drops)
            try:
                return op(conn)
            except imaplib.IMAP4.abort as exc:
                said_bye = bool(conn.untagged_responses.get("BYE"))
                self.close()
                if not said_bye:
                    drops = self._dropped(what, exc, drops)
                    continue
                byes += 1
                if byes > 1:  # a second connection, the same answer: it is this command
                    raise Refused(_words(exc)) from None
                log.info("%s: the server closed the connection (%s); connecting again", what, exc)
            except imaplib.IMAP4.error as exc:
                raise Refused(_words(exc)) from None
            except OSError as exc:
                self.close()
                drops = self._dropped(what, exc, drops)

    def _connected(self, what: str, drops: int) -> imaplib.IMAP4:
        """The live connection, made (and logged in) if there is none; a connection
        that cannot be made counts as a drop."""
        while self._conn is None:
            try:
                self._conn = self._connect()
            except (OSError, imaplib.IMAP4.error) as exc:  # no server, or a busy one's BYE
                drops = self._dropped(what, exc, drops)
        return self._conn

    def _dropped(self, what: str, exc: BaseException, drops: int) -> int:
        """The drops counted so far, after the pause before the next attempt; raises
        `SourceLost` when the retries are spent."""
        if drops >= self.retry.retries:
            raise SourceLost(
                f"{self.address}: {what}: the connection failed {drops + 1} times, "
                f"the last: {type(exc).__name__}: {exc}"
            ) from exc
        pause = self.retry.backoff * 2**drops
        log.warning("%s: connection lost (%s); again in %.1f s", what, exc, pause)
        time.sleep(pause)
        return drops + 1

    def _connect(self) -> imaplib.IMAP4:
        address, timeout = self.address, self.retry.timeout
        try:
            if address.tls:
                conn: imaplib.IMAP4 = imaplib.IMAP4_SSL(
                    address.host, address.port, ssl_context=self._context(), timeout=timeout
                )
            else:
                conn = imaplib.IMAP4(address.host, address.port, timeout=timeout)
                self._starttls(conn)
        except ssl.SSLCertVerificationError as exc:
            raise ConfigError(
                "source",
                f"{address}: the server's certificate is not trusted ({exc.verify_message}); "
                "name the CA that signed it in imap_ca_file",
            ) from None
        try:
            conn.login(*self._login)
        except imaplib.IMAP4.abort:
            _closed(conn)
            raise
        except imaplib.IMAP4.error as exc:
            _closed(conn)
            user = self._login[0]
            refused = f"{address}: the server refused the login of {user!r}: {_words(exc)}"
            raise ConfigError("source", refused) from None
        self.selected = None
        return conn

    def _context(self) -> ssl.SSLContext:
        return ssl.create_default_context(cafile=self.retry.ca_file)

    def _starttls(self, conn: imaplib.IMAP4) -> None:
        """Upgrade the plain connection `conn` to TLS when the server offers STARTTLS
        (unless `starttls` is off); raises `ConfigError` when it is required and not
        offered, or the server refuses it. `conn` is closed when this raises."""
        mode = self.retry.starttls
        if mode == "off":
            return
        try:
            if "STARTTLS" not in conn.capabilities:
                if mode == "require":
                    raise ConfigError(
                        "source",
                        f"{self.address}: the server does not offer STARTTLS, and "
                        'imap_starttls = "require": the password would cross the network '
                        'unencrypted (use imaps://, or imap_starttls = "auto")',
                    )
                return
            conn.starttls(self._context())
        except imaplib.IMAP4.abort:
            _closed(conn)
            raise
        except imaplib.IMAP4.error as exc:
            _closed(conn)
            raise ConfigError("source", f"{self.address}: STARTTLS failed: {_words(exc)}") from None
        except BaseException:
            _closed(conn)
            raise

    def close(self) -> None:
        """Drop the connection (logging out when it still answers); never raises."""
        conn, self._conn, self.selected = self._conn, None, None
        if conn is not None:
            _closed(conn)


def _closed(conn: imaplib.IMAP4) -> None:
    """Log out of `conn` when it still answers, and close its socket either way
    (`logout` leaves it open when the LOGOUT itself fails); never raises."""
    with contextlib.suppress(Exception):
        conn.logout()
    with contextlib.suppress(Exception):
        conn.shutdown()


def _words(exc: BaseException) -> str:
    """What the server said, without Dovecot's time stamp (records stay the same)."""
    return _NOISE.sub("", str(exc))
