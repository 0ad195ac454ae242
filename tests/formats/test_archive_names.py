"""Zip member names without the UTF-8 flag: read as the archiver that wrote them meant;
repeated names made unique, in time linear in their number."""

from __future__ import annotations

import io
import json
import struct
import zipfile
import zlib
from pathlib import Path

from outputs import document_lines

import indexer
from indexer._types import Options
from indexer.config import Config
from indexer.formats.archive import extract
from indexer.formats.archive.names import MemberNames, zip_names


def _legacy_zip(names: dict[str, bytes], extra: dict[str, bytes] | None = None) -> bytes:
    """A zip whose members are named by raw bytes, the UTF-8 flag unset (as a Japanese
    archiver writes Shift-JIS): written under ASCII placeholders of the same length,
    which are then replaced in the local headers and the central directory."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for n, (name, raw) in enumerate(names.items()):
            info = zipfile.ZipInfo(f"{n}".rjust(len(raw), "_"))
            info.extra = (extra or {}).get(name, b"")
            archive.writestr(info, f"Member {n}.\n")
    data = buffer.getvalue()
    for n, raw in enumerate(names.values()):
        placeholder = f"{n}".rjust(len(raw), "_").encode()
        assert data.count(placeholder) == 2
        data = data.replace(placeholder, raw)
    return data


def _names(data: bytes) -> list[str]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        infos = archive.infolist()
        assert not any(i.flag_bits & 0x800 for i in infos), "the UTF-8 flag is unset"
        return zip_names(infos)


JAPANESE = ["資料/報告書.txt", "議事録.txt", "説明/テスト.txt", "予定表.txt"]
"""`表` is 0x95 0x5C in Shift-JIS: its second byte, a backslash, is no folder separator."""


def test_shift_jis_names_without_the_utf8_flag_read_as_japanese() -> None:
    data = _legacy_zip({name: name.encode("cp932") for name in JAPANESE})
    assert _names(data) == JAPANESE


def test_other_legacy_code_pages_are_recognised_by_the_archives_names_together() -> None:
    korean = ["문서/보고서.txt", "회의록.txt"]
    russian = ["Документы/отчёт.txt", "Письмо.txt"]
    assert _names(_legacy_zip({n: n.encode("cp949") for n in korean})) == korean
    assert _names(_legacy_zip({n: n.encode("cp866") for n in russian})) == russian


def test_valid_utf8_without_the_flag_stays_utf8_and_western_dos_names_are_cp437() -> None:
    utf8 = {"données/résumé.txt": "données/résumé.txt".encode()}
    assert _names(_legacy_zip(utf8)) == ["données/résumé.txt"]
    dos = ["Résumé.txt", "Straße.txt"]
    assert _names(_legacy_zip({n: n.encode("cp437") for n in dos})) == dos


def test_an_info_zip_unicode_path_field_wins_when_its_checksum_matches_the_name() -> None:
    raw = "議事録.txt".encode("cp932")

    def field(name: str, crc_of: bytes) -> bytes:
        body = b"\x01" + struct.pack("<L", zlib.crc32(crc_of)) + name.encode()
        return struct.pack("<HH", 0x7075, len(body)) + body

    good = _legacy_zip({"a": raw}, {"a": field("会議の記録.txt", raw)})
    assert _names(good) == ["会議の記録.txt"]
    stale = _legacy_zip({"a": raw}, {"a": field("renamed.txt", b"another name")})
    assert _names(stale) == ["議事録.txt"], "a field made for another name is ignored"


def test_the_same_legacy_zip_gives_the_same_names_every_time() -> None:
    data = _legacy_zip({name: name.encode("cp932") for name in JAPANESE})
    listings = {extract(data, "a.zip", Options()).chunks[0].text for _ in range(3)}
    assert listings == {"\n".join(JAPANESE)}


def test_a_run_records_shift_jis_members_under_their_japanese_paths(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    data = _legacy_zip({name: name.encode("cp932") for name in JAPANESE})
    (tmp_path / "src" / "jp.zip").write_bytes(data)
    indexer.run(tmp_path / "src", tmp_path / "out", Config(workers=1, pdf_workers=1))
    lines = document_lines(tmp_path / "out")
    paths = [json.loads(line)["path"] for line in lines]
    assert paths == ["jp.zip", *(f"jp.zip#{name}" for name in JAPANESE)]


class _CountingSet(set[str]):
    """A set that counts the lookups made in it."""

    lookups = 0

    def __contains__(self, item: object) -> bool:
        self.lookups += 1
        return super().__contains__(item)


def _claimed(paths: list[str]) -> tuple[list[str], int]:
    names = MemberNames()
    names._used = used = _CountingSet()  # the probe count is the cost under test
    return [names.claim(p) for p in paths], used.lookups


def test_repeated_member_names_are_claimed_in_linear_lookups() -> None:
    found, lookups = _claimed(["x.txt"] * 3000)
    assert found == ["x.txt"] + [f"x.txt~{n}" for n in range(2, 3001)]
    assert lookups <= 2 * 3000


def test_repeated_names_keep_the_names_they_were_given_before() -> None:
    paths = ["a", "a~3", "a", "b", "a", "a~2", "a", "b", "a~2", "b~2", "b"] * 3

    def before(paths: list[str]) -> list[str]:  # MemberNames.claim as it was, the oracle
        used: set[str] = set()
        out = []
        for path in paths:
            found, n = path, 1
            while found in used:
                n += 1
                found = f"{path}~{n}"
            used.add(found)
            out.append(found)
        return out

    assert _claimed(paths)[0] == before(paths)
