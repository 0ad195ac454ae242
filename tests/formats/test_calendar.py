"""Calendar invitations (`.ics`, `.vcs`): a chunk per event with its times, people,
place and description; recurrence rendered, not expanded; damaged files read as text."""

from __future__ import annotations

from pathlib import Path

from mailparts import mail_with, run_one

import indexer
from indexer.formats.mail_samples import ICS, VCS


def test_each_event_is_a_chunk_with_its_times_people_place_and_description() -> None:
    result = indexer.extract("team.ics", ICS)
    assert (result.kind, result.status) == ("calendar", "ok")
    assert result.chunks[0].text == (
        "Event: Weekly sync\n"
        "When: 2024-03-05 10:00 Europe/Berlin – 2024-03-05 11:00 Europe/Berlin\n"
        "Repeats: FREQ=WEEKLY;BYDAY=TU\n"
        "Location: Room 4\n"
        "Organizer: Ann Lee <ann@example.com>\n"
        "Attendees: Bob Stone <bob@example.com>\n\n"
        "Agenda: numbers, plans\nand café."
    )
    assert result.chunks[1].text == "Event: Office closed\nWhen: 2024-04-01"
    assert [c.meta for c in result.chunks] == [{"index": 0}, {"index": 1}]
    assert result.metadata == {"title": "Team calendar"}


def test_a_vcalendar_1_file_reads_the_same_way() -> None:
    result = indexer.extract("review.vcs", VCS)
    assert result.status == "ok"
    assert result.text == (
        "Event: Design review\nWhen: 2024-03-05 09:00 UTC – 2024-03-05 10:00 UTC\nLocation: Room 2"
    )


def test_vcalendar_1_quoted_printable_values_are_decoded_with_their_soft_breaks() -> None:
    vcs = VCS.replace(
        b"SUMMARY:Design review\r\n",
        b"SUMMARY;CHARSET=UTF-8;ENCODING=QUOTED-PRINTABLE:Caf=C3=A9 review\r\n"
        b"DESCRIPTION;ENCODING=QUOTED-PRINTABLE:Line one=0D=0ALine=\r\ntwo\r\n",
    )
    result = indexer.extract("r.vcs", vcs)
    assert result.status == "ok"
    assert result.chunks[0].text.partition("\n")[0] == "Event: Café review"
    assert result.chunks[0].text.endswith("Location: Room 2\n\nLine one\nLinetwo")


def test_a_rule_repeating_forever_is_rendered_not_expanded() -> None:
    forever = ICS.replace(b"RRULE:FREQ=WEEKLY;BYDAY=TU", b"RRULE:FREQ=SECONDLY")
    result = indexer.extract("x.ics", forever)
    assert "Repeats: FREQ=SECONDLY" in result.text
    assert len(result.chunks) == 2


def test_to_dos_and_several_calendars_in_one_file_are_read() -> None:
    todo = (
        b"BEGIN:VCALENDAR\r\nBEGIN:VTODO\r\nUID:t\r\nDUE;VALUE=DATE:20240510\r\n"
        b"SUMMARY:File the report\r\nEND:VTODO\r\nEND:VCALENDAR\r\n"
    )
    result = indexer.extract("x.ics", ICS + todo)
    assert [c.text.partition("\n")[0] for c in result.chunks] == [
        "Event: Weekly sync", "Event: Office closed", "To-do: File the report",
    ]  # fmt: skip
    assert result.chunks[2].text == "To-do: File the report\nWhen: 2024-05-10"


def test_a_damaged_or_foreign_file_is_read_as_text_degraded() -> None:
    for data in (ICS[: len(ICS) // 3], b"BEGIN:VCALENDAR\nno colon here\n", b"just words\n"):
        result = indexer.extract("x.ics", data)
        assert result.degraded and result.chunks and result.kind == "calendar"
    assert indexer.extract("x.ics", b"\xef\xbb\xbf  \n").chunks == ()


def test_an_invitation_attached_to_a_mail_is_chosen_by_its_type(tmp_path: Path) -> None:
    docs = run_one(tmp_path, "invite.eml", mail_with(ICS, "text/calendar"))
    assert list(docs) == ["invite.eml", "invite.eml#att/1/part-1.bin"]
    child = docs["invite.eml#att/1/part-1.bin"]
    assert (child["kind"], child["status"]) == ("calendar", "ok")
    assert child["metadata"]["title"] == "Team calendar"


def test_an_outlook_invitation_s_calendar_alternative_becomes_the_event(tmp_path: Path) -> None:
    body = ICS.decode().replace("\r\n", "\n")
    mail = (
        "From: Ann Lee <ann@example.com>\nTo: bob@example.com\nSubject: Weekly sync\n"
        'MIME-Version: 1.0\nContent-Type: multipart/alternative; boundary="A"\n\n'
        "--A\nContent-Type: text/plain; charset=utf-8\n\nWhen: Tuesdays 10:00.\n"
        "--A\nContent-Type: text/calendar; charset=utf-8; method=REQUEST\n\n"
        f"{body}--A--\n"
    ).encode()
    docs = run_one(tmp_path, "invite.eml", mail)
    assert {p: (d["kind"], d["status"]) for p, d in docs.items()} == {
        "invite.eml": ("eml", "ok"),
        "invite.eml#att/1/part-1.bin": ("calendar", "ok"),  # was a text document of raw lines
    }
