"""Deterministic, real-looking mail for the benchmarks: single messages and big mboxes.

Most messages are a few KB of plain text (some quoted-printable, some with a quoted
reply and a signature); about 1 in 12 is multipart/alternative with an HTML part,
1 in 40 carries a small base64 CSV attachment, 1 in 150 is a long newsletter of
~60-200 KB, and 1 in 500 carries a small PDF report. Bodies sometimes hold lines
that begin with "From ", quoted `>From ` in the mbox the mboxrd way.
"""

from __future__ import annotations

import base64
import quopri
import random
from pathlib import Path

from indexer._corpusgen import WORDS
from indexer._samples import minimal_pdf

NAMES = ("Alice Martin", "Bob Chen", "Chloé Durand", "Dmitri Ivanov", "Eve Okafor", "Ravi Patel")


def _make_sentence(rng: random.Random) -> str:
    return " ".join(rng.choices(WORDS, k=rng.randint(6, 16))).capitalize() + "."


_POOL = tuple(_make_sentence(random.Random(k)) for k in range(4096))
"""Sentences drawn from a fixed pool: generating a GB of mail stays cheap."""


def _sentence(rng: random.Random) -> str:
    return _POOL[rng.getrandbits(12)]


def _paragraphs(rng: random.Random, count: int) -> list[str]:
    return [" ".join(_sentence(rng) for _ in range(rng.randint(2, 6))) for _ in range(count)]


def _address(rng: random.Random) -> tuple[str, str]:
    name = rng.choice(NAMES)
    return name, name.split()[0].lower().replace("é", "e") + "@example.com"


def _body(rng: random.Random, large: bool) -> str:
    paras = _paragraphs(rng, rng.randint(150, 500) if large else rng.randint(2, 7))
    if rng.random() < 0.05:
        paras.insert(1, "From the desk of the board: " + _sentence(rng))
    if rng.random() < 0.3:
        quoted = "\n".join("> " + line for line in _paragraphs(rng, 2))
        paras.append(f"On Mon, 3 Jun 2024, someone wrote:\n{quoted}")
    paras.append("-- \nSent from the office")
    return "\n\n".join(paras) + "\n"


def _html(text: str) -> str:
    paras = "".join(f"<p>{p}</p>" for p in text.split("\n\n"))
    return f"<html><body><div>{paras}</div></body></html>\n"


def _csv(rng: random.Random) -> bytes:
    rows = ["id,region,amount"] + [
        f"{r},{rng.choice(WORDS)},{rng.randint(1, 9999)}" for r in range(rng.randint(10, 60))
    ]
    return ("\n".join(rows) + "\n").encode()


def _b64(data: bytes) -> str:
    return base64.encodebytes(data).decode()


def message(rng: random.Random, i: int) -> bytes:
    """Message `i`: headers and a MIME body, LF line endings."""
    sender, sender_addr = _address(rng)
    _, to_addr = _address(rng)
    subject = _sentence(rng)[:70]
    large = i % 150 == 149
    body = _body(rng, large)
    headers = (
        f"From: {sender} <{sender_addr}>\nTo: {to_addr}\n"
        f"Subject: {'Re: ' if i % 3 else ''}{subject}\n"
        f"Date: Mon, {1 + i % 28} Jan 2024 {i % 24:02d}:{i % 60:02d}:00 +0000\n"
        f"Message-ID: <{i}.{rng.randrange(10**9)}@example.com>\n"
        + (f"In-Reply-To: <{i - 1}@example.com>\n" if i % 3 else "")
        + "MIME-Version: 1.0\n"
    )
    attachment = None
    if i % 500 == 499:
        pages = [[_sentence(rng)[:80] for _ in range(20)] for _ in range(rng.randint(1, 4))]
        attachment = ("application/pdf", "report.pdf", minimal_pdf(pages))
    elif i % 40 == 39:
        attachment = ("text/csv", "figures.csv", _csv(rng))
    if attachment is not None:
        kind, name, data = attachment
        parts = (
            "--b1\nContent-Type: text/plain; charset=utf-8\n\n"
            f"{body}\n--b1\nContent-Type: {kind}; name={name}\n"
            f"Content-Disposition: attachment; filename={name}\n"
            f"Content-Transfer-Encoding: base64\n\n{_b64(data)}--b1--\n"
        )
        return (headers + 'Content-Type: multipart/mixed; boundary="b1"\n\n' + parts).encode()
    if i % 12 == 11:
        parts = (
            "--b2\nContent-Type: text/plain; charset=utf-8\n\n"
            f"{body}\n--b2\nContent-Type: text/html; charset=utf-8\n\n{_html(body)}--b2--\n"
        )
        return (headers + 'Content-Type: multipart/alternative; boundary="b2"\n\n' + parts).encode()
    if i % 4 == 0:
        encoded = quopri.encodestring(body.encode()).decode()
        return (
            headers + "Content-Type: text/plain; charset=utf-8\n"
            "Content-Transfer-Encoding: quoted-printable\n\n" + encoded
        ).encode()
    return (headers + "Content-Type: text/plain; charset=utf-8\n\n" + body).encode()


def messages(count: int, seed: int = 0) -> list[bytes]:
    """The first `count` messages of the seeded stream."""
    rng = random.Random(seed)
    return [message(rng, i) for i in range(count)]


def mboxrd_quote(data: bytes) -> bytes:
    """`data` with every `From ` line (behind any `>`s) given one `>` more (mboxrd)."""
    lines = data.split(b"\n")
    quoted = [b">" + line if line.lstrip(b">").startswith(b"From ") else line for line in lines]
    return b"\n".join(quoted)


def write_mbox(path: Path, total_bytes: int, seed: int = 0) -> int:
    """Stream messages into the mbox at `path` until about `total_bytes`; return the count."""
    rng = random.Random(seed)
    written = count = 0
    with open(path, "wb", buffering=1 << 20) as out:
        while written < total_bytes:
            data = b"From MAILER-DAEMON Mon Jan  1 00:00:00 2024\n"
            data += mboxrd_quote(message(rng, count)) + b"\n"
            out.write(data)
            written += len(data)
            count += 1
    return count
