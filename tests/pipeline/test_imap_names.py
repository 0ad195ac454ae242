"""The IMAP source's parts that need no server: its URL, its password, folder names."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from indexer.errors import ConfigError
from indexer.pipeline.walk.imap import ImapSource, Retry, parse_address
from indexer.pipeline.walk.imap.address import password_for
from indexer.pipeline.walk.imap.names import decode_folder, encode_folder, folder_rel


@pytest.mark.parametrize(
    ("raw", "name"),
    [
        (b"INBOX", "INBOX"),
        (b"Entw&APw-rfe", "Entwürfe"),
        (b"&-Co", "&Co"),
        (b"&ZeVnLIqe-", "日本語"),
        (b"Sent &2D3eAA-", "Sent 😀"),  # outside the BMP: a surrogate pair in UTF-16
    ],
)
def test_modified_utf7_names_decode_and_encode_back(raw: bytes, name: str) -> None:
    assert decode_folder(raw) == name
    assert encode_folder(name) == raw


@given(st.text(st.characters(exclude_categories=["Cs"]), max_size=30))
def test_any_name_survives_modified_utf7(name: str) -> None:
    encoded = encode_folder(name)
    assert encoded.isascii()
    assert decode_folder(encoded) == name


def test_a_name_that_is_not_modified_utf7_is_read_as_utf8() -> None:
    assert decode_folder("Entwürfe".encode()) == "Entwürfe"
    assert decode_folder(b"broken &AP") == "broken &AP"


def test_a_folder_path_has_one_name_a_level_and_escapes_what_paths_must_not_hold() -> None:
    assert folder_rel("mail.example.com", b"Archive.2023", ".") == (
        "imap/mail.example.com/Archive/2023"
    )
    assert folder_rel("h", b"a/b.c#d", ".") == "imap/h/a\\x2fb/c\\x23d"
    assert folder_rel("h", b"Lists/python", "/") == "imap/h/Lists/python"
    assert folder_rel("h", b"INBOX", "") == "imap/h/INBOX"


def test_an_address_names_tls_port_user_and_the_decoded_folder() -> None:
    address = parse_address("imaps://Alice%40corp@Mail.Example.com/Entw%C3%BCrfe")
    assert (address.tls, address.host, address.port, address.user, address.folder) == (
        True, "mail.example.com", 993, "Alice@corp", "Entwürfe",
    )  # fmt: skip
    assert str(address) == "imaps://Alice%40corp@mail.example.com:993/Entw%C3%BCrfe"
    plain = parse_address("imap://bob@127.0.0.1:1143/*")
    assert (plain.tls, plain.port, plain.folder) == (False, 1143, "*")
    assert parse_address("imap://bob@host").folder == "INBOX"


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("imap://bob:pw@host/INBOX", "carries a password"),
        ("imap://bob@host:99999/INBOX", "port"),
        ("imap:///INBOX", "names no server"),
        ("imap://bob@host/INBOX?x=1", "query"),
        ("http://host/INBOX", "not an imap"),
    ],
)
def test_an_unusable_url_is_a_config_error(url: str, says: str) -> None:
    with pytest.raises(ConfigError, match=says) as caught:
        parse_address(url)
    assert "pw" not in str(caught.value).replace("password", "")


def test_the_password_comes_from_the_environment_before_the_netrc_file(tmp_path: Path) -> None:
    netrc = tmp_path / "netrc"
    netrc.write_text("machine host login bob password from-netrc\n")
    address = parse_address("imap://bob@host/INBOX")
    both = {"INDEXER_IMAP_PASSWORD": "from-env", "NETRC": str(netrc)}
    assert password_for(address, both) == ("bob", "from-env")
    assert password_for(address, {"NETRC": str(netrc)}) == ("bob", "from-netrc")
    assert password_for(parse_address("imap://host/"), {"NETRC": str(netrc)}) == (
        "bob", "from-netrc",
    )  # fmt: skip
    with pytest.raises(ConfigError, match="password of 'bob', not 'carol'"):
        password_for(parse_address("imap://carol@host/"), {"NETRC": str(netrc)})
    with pytest.raises(ConfigError, match="no password for it"):
        password_for(parse_address("imap://bob@other/"), {"NETRC": str(netrc)})
    with pytest.raises(ConfigError, match="no password"):
        password_for(address, {"NETRC": str(tmp_path / "none")})
    with pytest.raises(ConfigError, match="name USER@"):
        password_for(parse_address("imap://host/"), {"INDEXER_IMAP_PASSWORD": "x"})


def test_a_source_pickles_without_its_password(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("INDEXER_IMAP_PASSWORD", "never-pickled")
    source = ImapSource(parse_address("imaps://bob@host/INBOX"), Retry(retries=1))
    data = pickle.dumps(source)
    assert b"never-pickled" not in data
    again = pickle.loads(data)
    assert (again.address, again.retry, str(again)) == (source.address, source.retry, str(source))
