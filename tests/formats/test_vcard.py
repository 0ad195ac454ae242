"""Contacts (`.vcf`): a chunk per card with names, addresses, phones, organisation and
note, in vCard 2.1 (quoted-printable, bare types), 3.0 and 4.0."""

from __future__ import annotations

from pathlib import Path

from mailparts import mail_with, run_one

import indexer
from indexer.formats.mail_samples import VCF


def test_each_card_is_a_chunk_with_what_it_says() -> None:
    result = indexer.extract("contacts.vcf", VCF)
    assert (result.kind, result.status) == ("vcard", "ok")
    assert [c.text for c in result.chunks] == [
        "Name: Dr. Ann Lee\nOrganization: Example Corp, Research\nTitle: Chief Scientist\n"
        "Email (work): ann@example.com\nPhone (cell): +1 555 0100\n"
        "Address (work): 1 Main St, Springfield, IL, 62701, USA\n\n"
        "Met at the conference, likes tea.",
        "Name: Jürgen Müller\nPhone (work): +49 30 1234",
    ]
    assert [c.meta for c in result.chunks] == [{"index": 0}, {"index": 1}]
    assert result.metadata == {"title": "Dr. Ann Lee"}


def test_folded_lines_soft_breaks_groups_and_pictures() -> None:
    card = (
        b"BEGIN:VCARD\r\nVERSION:4.0\r\nitem1.EMAIL;TYPE=home:a@\r\n example.com\r\n"
        b"N:Stone;Bob;;;\r\nNOTE;ENCODING=QUOTED-PRINTABLE:Line one=0D=0Aand =\r\ntwo\r\n"
        b"PHOTO;ENCODING=b;TYPE=JPEG:/9j/4AAQSkZJRgABAQ==\r\nEND:VCARD\r\n"
    )
    assert indexer.extract("b.vcf", card).text == (
        "Name: Bob Stone\nEmail (home): a@example.com\n\nLine one\nand two"
    )


def test_a_file_without_cards_is_read_as_text_degraded() -> None:
    result = indexer.extract("x.vcf", b"Ann Lee, ann@example.com\n")
    assert (result.status, result.chunks[0].text) == ("degraded", "Ann Lee, ann@example.com")
    cut = indexer.extract("x.vcf", VCF[: VCF.index(b"END:VCARD")])  # no END: nothing closed
    assert cut.degraded and "Dr. Ann Lee" in cut.text


def test_a_card_attached_to_a_mail_is_chosen_by_its_type(tmp_path: Path) -> None:
    for k, content_type in enumerate(("text/x-vcard", "text/vcard")):
        docs = run_one(tmp_path / str(k), "card.eml", mail_with(VCF, content_type, "ATT0001"))
        child = docs["card.eml#att/1/ATT0001"]  # no extension: chosen by its type
        assert (child["kind"], child["status"]) == ("vcard", "ok")
