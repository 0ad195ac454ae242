"""An IMAP source's address, `imap[s]://USER@HOST[:PORT]/FOLDER`, and its password.

The password never comes from the command line (a shell's history and `ps` show it):
`INDEXER_IMAP_PASSWORD`, else the netrc file (`NETRC`, else `~/.netrc`) entry for
HOST. A URL that carries one is refused.
"""

from __future__ import annotations

import netrc
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote, unquote, urlsplit

from indexer.errors import ConfigError

__all__ = ["ImapAddress", "parse_address", "password_for"]

PASSWORD_ENV = "INDEXER_IMAP_PASSWORD"
"""The environment variable a password is read from first."""
ALL = "*"
"""The folder that stands for every selectable folder of the account."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ImapAddress:
    """Where an IMAP source's messages are: a server, an account, a folder."""

    tls: bool
    """`imaps://`: TLS from the first byte (port 993 unless given)."""
    host: str
    """The server's host name or address, lower case."""
    port: int
    user: str
    """The login; "" when the URL names none (the netrc entry then does)."""
    folder: str
    """The folder as the server names it, decoded (not modified UTF-7); `ALL` for all."""

    def __str__(self) -> str:
        user = f"{quote(self.user, safe='')}@" if self.user else ""
        folder = quote(self.folder, safe="/*")
        return f"{'imaps' if self.tls else 'imap'}://{user}{self.host}:{self.port}/{folder}"


def parse_address(url: str) -> ImapAddress:
    """The address `url` names (an empty folder is INBOX); raises `ConfigError`
    ("source") for a URL that is not one, or that carries a password."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in ("imap", "imaps"):
        raise ConfigError("source", f"{url!r} is not an imap:// or imaps:// URL")
    if parts.password is not None:
        raise ConfigError(
            "source",
            f"the SOURCE URL carries a password, which the command line must never hold: "
            f"give it in {PASSWORD_ENV} or a ~/.netrc line "
            f'"machine {parts.hostname} login {unquote(parts.username or "")} password ..."',
        )
    try:
        port = parts.port
    except ValueError:
        raise ConfigError("source", f"{url!r}: the port is not a number from 1 to 65535") from None
    if not parts.hostname:
        raise ConfigError("source", f"{url!r} names no server")
    if parts.query or parts.fragment:
        raise ConfigError("source", f"{url!r}: a query or fragment is not allowed")
    return ImapAddress(
        tls=scheme == "imaps",
        host=parts.hostname,
        port=port or (993 if scheme == "imaps" else 143),
        user=unquote(parts.username or ""),
        folder=unquote(parts.path.lstrip("/"), errors="strict") or "INBOX",
    )


def password_for(address: ImapAddress, environ: Mapping[str, str] = os.environ) -> tuple[str, str]:
    """The login and password for `address`: from `INDEXER_IMAP_PASSWORD` (the login
    from the URL), else from the netrc file's entry for its host. Raises `ConfigError`
    ("source") when neither gives both, or the netrc file cannot be read."""
    if password := environ.get(PASSWORD_ENV, ""):
        if not address.user:
            raise ConfigError("source", f"{address}: {PASSWORD_ENV} is set; name USER@ in the URL")
        return address.user, password
    path = Path(environ.get("NETRC") or Path("~/.netrc").expanduser())
    hint = f"set {PASSWORD_ENV}, or add to {path}: machine {address.host} login USER password ..."
    if not path.is_file():
        raise ConfigError("source", f"{address}: no password ({hint})")
    try:
        found = netrc.netrc(str(path)).authenticators(address.host)
    except (OSError, netrc.NetrcParseError) as exc:
        raise ConfigError("source", f"{address}: {path} cannot be read: {exc}") from None
    if found is None or not found[2]:
        raise ConfigError("source", f"{address}: {path} has no password for it ({hint})")
    login = found[0]
    if address.user and login and login != address.user:
        raise ConfigError(
            "source", f"{address}: {path} holds the password of {login!r}, not {address.user!r}"
        )
    return address.user or login, found[2]
