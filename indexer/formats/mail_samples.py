"""One small valid file per mail-ish format (calendar, contacts, saved page, Apple Mail,
TNEF), built in code, for the conformance corpus and the tests."""

from __future__ import annotations

from indexer.formats.tnef.samples import SAMPLE as TNEF_SAMPLE

__all__ = ["EML", "MAIL_SAMPLES", "emlx_file"]

ICS = (
    b"BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//indexer//samples//EN\r\n"
    b"X-WR-CALNAME:Team calendar\r\n"
    b"BEGIN:VEVENT\r\nUID:sync@example.com\r\nDTSTAMP:20240101T000000Z\r\n"
    b"DTSTART;TZID=Europe/Berlin:20240305T100000\r\nDTEND;TZID=Europe/Berlin:20240305T110000\r\n"
    b"RRULE:FREQ=WEEKLY;BYDAY=TU\r\nSUMMARY:Weekly sync\r\nLOCATION:Room 4\r\n"
    b"ORGANIZER;CN=Ann Lee:mailto:ann@example.com\r\n"
    b"ATTENDEE;CN=Bob Stone;ROLE=REQ-PARTICIPANT:mailto:bob@example.com\r\n"
    b"DESCRIPTION:Agenda: numbers\\, plans\\nand caf\xc3\xa9.\r\nEND:VEVENT\r\n"
    b"BEGIN:VEVENT\r\nUID:off@example.com\r\nDTSTAMP:20240101T000000Z\r\n"
    b"DTSTART;VALUE=DATE:20240401\r\nSUMMARY:Office closed\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
)
VCS = (
    b"BEGIN:VCALENDAR\r\nVERSION:1.0\r\nBEGIN:VEVENT\r\nDTSTART:20240305T090000Z\r\n"
    b"DTEND:20240305T100000Z\r\nSUMMARY:Design review\r\nLOCATION:Room 2\r\n"
    b"END:VEVENT\r\nEND:VCALENDAR\r\n"
)
VCF = (
    b"BEGIN:VCARD\r\nVERSION:3.0\r\nN:Lee;Ann;;Dr.;\r\nFN:Dr. Ann Lee\r\n"
    b"ORG:Example Corp;Research\r\nTITLE:Chief Scientist\r\n"
    b"EMAIL;TYPE=INTERNET,WORK:ann@example.com\r\nTEL;TYPE=CELL:+1 555 0100\r\n"
    b"ADR;TYPE=WORK:;;1 Main St;Springfield;IL;62701;USA\r\n"
    b"NOTE:Met at the conference\\, likes tea.\r\nEND:VCARD\r\n"
    b"BEGIN:VCARD\r\nVERSION:2.1\r\nN:M=C3=BCller;J=C3=BCrgen\r\n"
    b"FN;CHARSET=UTF-8;ENCODING=QUOTED-PRINTABLE:J=C3=BCrgen M=C3=BCller\r\n"
    b"TEL;WORK;VOICE:+49 30 1234\r\nEND:VCARD\r\n"
)
MHTML = (
    b"From: <Saved by Blink>\r\nSubject: Release notes\r\nMIME-Version: 1.0\r\n"
    b'Content-Type: multipart/related; type="text/html"; boundary="B"\r\n\r\n'
    b"--B\r\nContent-Type: text/html; charset=utf-8\r\nContent-Location: https://example.com/notes\r\n"
    b"Content-Transfer-Encoding: quoted-printable\r\n\r\n"
    b"<html><head><title>Release notes</title></head><body><nav>Home | Blog</nav><main>"
    b"<h1>Version 2</h1><p>Caf=C3=A9 mode is faster.</p></main></body></html>\r\n"
    b"--B\r\nContent-Type: image/png\r\nContent-Location: https://example.com/logo.png\r\n"
    b"Content-Transfer-Encoding: base64\r\n\r\niVBORw0KGgo=\r\n"
    b"--B\r\nContent-Type: text/plain\r\nContent-Location: https://example.com/changes.txt\r\n\r\n"
    b"Fixed the exporter.\r\n--B--\r\n"
)
EML = (
    b"From: Ann Lee <ann@example.com>\nTo: bob@example.com\nSubject: Lunch\n"
    b"Date: Tue, 05 Mar 2024 10:00:00 +0000\nMessage-ID: <lunch@example.com>\n\n"
    b"Noon at the usual place?\n\nAnn\n"
)
_PLIST = (
    b'<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST '
    b'1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">\n<plist version="1.0">\n'
    b"<dict>\n\t<key>flags</key>\n\t<integer>8590195713</integer>\n</dict>\n</plist>\n"
)


def emlx_file(message: bytes) -> bytes:
    """An Apple Mail `.emlx` of `message`: its length line, it, Apple Mail's plist."""
    return b"%d\n" % len(message) + message + _PLIST


MAIL_SAMPLES = {
    "ics": ICS, "vcs": VCS, "vcf": VCF, "mhtml": MHTML, "emlx": emlx_file(EML),
    "tnef": TNEF_SAMPLE,
}  # fmt: skip
"""A sample per extension, for `indexer._samples.SAMPLES`."""
