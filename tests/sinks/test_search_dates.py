"""`indexer search --since/--until`: a range of days over each document's own day (a
mail's Date, else the file's modified, else created time), inclusive, as the value
states it; a document that states no day is left out by either bound."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from outputs import write_notes

import indexer
from indexer.cli import main
from indexer.config import Config
from indexer.sinks.committed import document_date

DATES = {
    "may.eml": "Fri, 04 May 2001 23:05:44 -0400",  # 03:05 UTC the 5th: still the 4th
    "sept.eml": "Tue, 11 Sep 2001 08:00:00 +0000",
    "jan.eml": "Tue, 1 Jan 2002 00:10:00 +0100",
}


def mail(date: str) -> str:
    return (
        f"From: ann@example.com\nTo: bob@example.com\nSubject: Wombats\nDate: {date}\n"
        "Message-ID: <w@example.com>\n\nThe wombat census is attached.\n"
    )


@pytest.mark.parametrize(
    ("metadata", "day"),
    [
        (
            {"date": "Fri, 04 May 2001 23:05:44 -0400", "modified": "2014-07-21T15:53:00"},
            "2001-05-04",
        ),
        ({"date": "", "modified": "2014-07-21T15:53:00", "created": "2010-01-02"}, "2014-07-21"),
        ({"date": "", "modified": "", "created": "2025-10-29T14:10:10.223277"}, "2025-10-29"),
        ({"date": "2020-01-20T06:05:18.000Z"}, "2020-01-20"),
        ({"date": "2018-12-21 12:55:00"}, "2018-12-21"),
        ({"date": "sometime in spring", "modified": "2011-09-17T12:33:00Z"}, "2011-09-17"),
        ({"date": "20010504", "created": ""}, ""),
        ({"date": "2001-13-04"}, ""),
        ({"date": "", "modified": "", "created": ""}, ""),
    ],
)
def test_a_documents_day_is_its_first_date_that_reads_as_one(
    metadata: dict[str, str], day: str
) -> None:
    assert document_date(metadata) == day


def hits(capsys: pytest.CaptureFixture[str], *args: str) -> list[str]:
    assert main(["search", *args, "--json", "--limit", "50"]) == 0
    return sorted(json.loads(line)["path"] for line in capsys.readouterr().out.splitlines())


def test_since_and_until_keep_the_documents_of_those_days_inclusive(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source, out = tmp_path / "src", tmp_path / "out"
    write_notes(source)
    for name, date in DATES.items():
        (source / "m" / name).parent.mkdir(exist_ok=True)
        (source / "m" / name).write_text(mail(date))
    (source / "wombat.txt").write_text("A wombat note with no day of its own.\n")
    indexer.run(source, out, Config(workers=1, pdf_workers=1, sinks=("fts",)))
    everything = ["m/jan.eml", "m/may.eml", "m/sept.eml", "wombat.txt"]
    assert hits(capsys, str(out), "wombat") == everything
    assert hits(capsys, str(out), "wombat", "--since", "2001-05-05") == ["m/jan.eml", "m/sept.eml"]
    assert hits(capsys, str(out), "wombat", "--since", "2001-05-04") == everything[:3]
    assert hits(capsys, str(out), "wombat", "--until", "2001-09-11") == ["m/may.eml", "m/sept.eml"]
    window = ["--since", "2001-06-01", "--until", "2001-12-31"]
    assert hits(capsys, str(out), "wombat", *window) == ["m/sept.eml"]
    assert hits(capsys, str(out), "wombat", "--since", "2003-01-01") == []


@pytest.mark.parametrize("bad", ["2001-13-01", "20010504", "May 4", ""])
def test_a_bound_that_is_not_a_day_is_a_usage_error(
    bad: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["search", str(tmp_path), "wombat", "--since", bad]) == 2
    assert "is not a day (YYYY-MM-DD)" in capsys.readouterr().err
