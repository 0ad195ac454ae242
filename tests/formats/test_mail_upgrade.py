"""An incremental run after the mail formats arrived equals a fresh run: the mails and
archives indexed before them are read again (their versions moved), so a TNEF, calendar
or contact attachment is not left as the `skipped` or `text` child it was."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from mailparts import CONFIG, mail_with
from outputs import committed
from zips import zip_of

import indexer
from indexer.formats.mail_samples import ICS, VCF
from indexer.formats.tnef.samples import SAMPLE
from indexer.registry import Registry, default_registry

_NEW = {"calendar", "emlx", "mhtml", "tnef", "vcard"}
_BEFORE = {"archive": "3+image.2", "eml": "4+html.2+image.2", "msg": "2+html.2+rtf.1+image.2"}
"""The versions these containers had before the mail formats (main at 7a9f63d)."""


def _registry_before() -> Registry:
    registry = Registry()
    for spec in default_registry().extractors():
        if spec.name not in _NEW:
            registry.register(replace(spec, version=_BEFORE.get(spec.name, spec.version)))
    return registry


def test_a_run_after_the_upgrade_equals_a_fresh_run(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "tnef.eml").write_bytes(mail_with(SAMPLE, "application/ms-tnef", "winmail.dat"))
    (src / "invite.eml").write_bytes(mail_with(ICS, "text/calendar", "invite.ics"))
    (src / "cards.zip").write_bytes(zip_of({"people/cards.vcf": VCF}))
    before = indexer.run(src, tmp_path / "out", CONFIG, registry=_registry_before())
    assert "tnef" not in before.by_kind  # what the older code gave: no TNEF child
    indexer.run(src, tmp_path / "out", CONFIG)
    indexer.run(src, tmp_path / "fresh", CONFIG)
    assert committed(tmp_path / "out") == committed(tmp_path / "fresh")
