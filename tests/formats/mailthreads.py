"""Labelled mail threads for the quote splitter's tests and `scripts/bench mail-threads`.

`threads(seed, count)` builds conversations of 2-6 messages, each in one quoting style
of `STYLES` and one language of `LANGUAGES`; every `Labelled` message knows its new text
(the sentences its sender wrote), its quoted text (the history it repeats, attribution
lines and header blocks included) and its thread. A fifth of the replies drop their
threading headers, as many clients do. Sentences are random word sequences from small
per-language pools, so no word order or phrase is repeated by accident; signatures and
disclaimers vary by language. Nothing here is read by the splitter: the styles are
written from the clients' own formats, not from its patterns.
"""

from __future__ import annotations

import html
import random
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from indexer._types import DEFAULT_OPTIONS, Extracted
from indexer.formats.eml import extract

STYLES = (
    "top-gmail", "bottom", "interleaved", "outlook-plain", "outlook-header",
    "gmail-html", "outlook-html", "apple-html", "forward",
)  # fmt: skip
LANGUAGES = ("en", "de", "fr", "es", "it", "nl", "pt", "sv", "ja", "zh")
_WORD = re.compile(r"[^\W\d_]+\d+|\w+")

_WORDS = {
    "en": "budget meeting review project schedule client report draft figures team quarter",
    "de": "Haushalt Besprechung Prüfung Projekt Zeitplan Kunde Bericht Entwurf Zahlen Mannschaft",
    "fr": "budget réunion révision projet calendrier client rapport brouillon chiffres équipe",
    "es": "presupuesto reunión revisión proyecto calendario cliente informe borrador cifras",
    "it": "bilancio riunione revisione progetto calendario cliente rapporto bozza cifre squadra",
    "nl": "begroting vergadering herziening project planning klant verslag ontwerp cijfers",
    "pt": "orçamento reunião revisão projeto cronograma cliente relatório rascunho números",
    "sv": "budget möte granskning projekt schema kund rapport utkast siffror laget kvartal",
    "ja": "予算 会議 確認 計画 日程 顧客 報告 草案 数字 部署 四半期 資料",
    "zh": "预算 会议 审查 项目 日程 客户 报告 草稿 数字 团队 季度 资料",
}
_WROTE = {
    "en": "On {date}, {name} <{addr}> wrote:",
    "de": "Am {date} schrieb {name} <{addr}>:",
    "fr": "Le {date}, {name} <{addr}> a écrit :",
    "es": "El {date}, {name} (<{addr}>) escribió:",
    "it": "Il giorno {date} {name} <{addr}> ha scritto:",
    "nl": "Op {date} schreef {name} <{addr}>:",
    "pt": "Em {date}, {name} <{addr}> escreveu:",
    "sv": "Den {date} skrev {name} <{addr}>:",
    "ja": "{date} {name} <{addr}>:",
    "zh": "{name} <{addr}> 于{date}写道：",
}
_DATES = {"ja": "2024年6月{d}日(月) 10:00", "zh": "2024年6月{d}日周一 上午10:00"}
_HEADERS = {  # From, Sent, To, Subject; the Original Message line
    "en": ("From", "Sent", "To", "Subject", "-----Original Message-----"),
    "de": ("Von", "Gesendet", "An", "Betreff", "-----Ursprüngliche Nachricht-----"),
    "fr": ("De", "Envoyé", "À", "Objet", "-----Message d'origine-----"),
    "es": ("De", "Enviado el", "Para", "Asunto", "-----Mensaje original-----"),
    "it": ("Da", "Inviato", "A", "Oggetto", "-----Messaggio originale-----"),
    "nl": ("Van", "Verzonden", "Aan", "Onderwerp", "-----Oorspronkelijk bericht-----"),
    "pt": ("De", "Enviado", "Para", "Assunto", "-----Mensagem original-----"),
    "sv": ("Från", "Skickat", "Till", "Ämne", "-----Ursprungligt meddelande-----"),
    "ja": ("差出人", "送信日時", "宛先", "件名", "-----元のメッセージ-----"),
    "zh": ("发件人", "发送时间", "收件人", "主题", "-----原始邮件-----"),
}
_FORWARD = {
    "en": "---------- Forwarded message ---------",
    "de": "---------- Weitergeleitete Nachricht ----------",
    "fr": "-------- Message transféré --------",
    "es": "---------- Mensaje reenviado ---------",
    "it": "---------- Messaggio inoltrato ---------",
    "nl": "---------- Doorgestuurd bericht ---------",
    "pt": "---------- Mensagem encaminhada ---------",
    "sv": "---------- Vidarebefordrat meddelande ---------",
    "ja": "---------- 転送されたメッセージ ----------",
    "zh": "---------- 转发的邮件 ----------",
}
_SIGNATURES = {
    "en": ("Sent from my iPhone", "Best regards,\n{name}", "-- \n{name}\nTel: +1 555 0100"),
    "de": ("Von meinem iPhone gesendet", "Viele Grüße\n{name}", "-- \n{name}"),
    "fr": ("Envoyé de mon iPhone", "Cordialement,\n{name}", "-- \n{name}"),
    "es": ("Enviado desde mi iPhone", "Saludos,\n{name}", "-- \n{name}"),
    "it": ("Inviato da iPhone", "Cordiali saluti\n{name}", "-- \n{name}"),
    "nl": ("Verzonden vanaf mijn iPhone", "Met vriendelijke groet,\n{name}", "-- \n{name}"),
    "pt": ("Enviado do meu iPhone", "Atenciosamente,\n{name}", "-- \n{name}"),
    "sv": ("Skickat från min iPhone", "Med vänliga hälsningar\n{name}", "-- \n{name}"),
    "ja": ("iPhoneから送信", "よろしくお願いします。\n{name}", "-- \n{name}"),
    "zh": ("发自我的iPhone", "谢谢\n{name}", "-- \n{name}"),
}
_PEOPLE = (
    ("Alice Martin", "alice@example.org"),
    ("Bob Chen", "bob@example.org"),
    ("Chloé Durand", "chloe@example.org"),
    ("Dmitri Ivanov", "dmitri@example.org"),
)


@dataclass(frozen=True, slots=True, kw_only=True)
class Labelled:
    """One generated message and what a perfect splitter would find in it."""

    thread: int
    style: str
    language: str
    mime: bytes
    new: str
    """The sentences its sender wrote: what must be kept as own text."""
    quoted: str
    """The history it repeats (attribution lines and header blocks too)."""
    plain: str
    """The body as plain text (an HTML body as `>`-quoted text), for plain-text peers."""


def threads(seed: int, count: int) -> list[Labelled]:
    """`count` threads of 2-6 messages; thread `t` uses `STYLES[t % 9]`, a language by turn."""
    rng = random.Random(seed)
    out: list[Labelled] = []
    for t in range(count):
        style, language = STYLES[t % len(STYLES)], LANGUAGES[(t // len(STYLES)) % len(LANGUAGES)]
        out.extend(_thread(rng, t, style, language))
    return out


def _sentence(rng: random.Random, language: str) -> str:
    # a number on every word: a word of one message is not another's (`words` counts them)
    base = rng.choices(_WORDS[language].split(), k=rng.randint(5, 10))
    words = [f"{w}{rng.randint(100, 999)}" for w in base]
    if language in ("ja", "zh"):
        return "".join(words) + "。"
    return " ".join(words).capitalize() + "."


def words(text: str) -> list[str]:
    """The words of `text` as the bench counts them: a run of letters and its number, or
    any other run of word characters; lower-case."""
    return _WORD.findall(text.lower())


def _thread(rng: random.Random, t: int, style: str, language: str) -> list[Labelled]:
    subject = f"{_sentence(rng, language)[:30].rstrip()} {t}"
    messages: list[Labelled] = []
    history_plain = ""  # the previous message's whole body, as plain text
    ids: list[str] = []
    for n in range(rng.randint(2, 6)):
        sender, to = _PEOPLE[(t + n) % 4], _PEOPLE[(t + n + 1) % 4]
        new = "\n\n".join(_sentence(rng, language) for _ in range(rng.randint(1, 3)))
        signature = rng.choice(_SIGNATURES[language]).format(name=sender[0].split()[0])
        prev = messages[-1] if messages else None
        parent = _PEOPLE[(t + n - 1) % 4]
        body, quoted, plain, html = _compose(
            rng, style, language, new, signature, history_plain, prev, parent, n
        )
        message_id = f"<t{t}.m{n}@example.org>"
        headers = _headers(sender, to, subject, n, message_id, ids, rng, style)
        kind = "html" if html else "plain"
        mime = f"{headers}Content-Type: text/{kind}; charset=utf-8\n\n{body}\n".encode()
        messages.append(
            Labelled(thread=t, style=style, language=language, mime=mime, new=new,
                     quoted=quoted, plain=plain)
        )  # fmt: skip
        history_plain = plain
        ids.append(message_id)
    return messages


def _headers(
    sender: tuple[str, str], to: tuple[str, str], subject: str, n: int, message_id: str,
    ids: list[str], rng: random.Random, style: str,
) -> str:  # fmt: skip
    prefix = ("Fwd: " if style == "forward" else "Re: ") if n else ""
    lines = [
        f"From: {sender[0]} <{sender[1]}>", f"To: {to[0]} <{to[1]}>", f"Subject: {prefix}{subject}",
        f"Date: Mon, {n + 1} Jun 2024 10:00:00 +0000", f"Message-ID: {message_id}",
    ]  # fmt: skip
    if ids and rng.random() >= 0.2:  # a fifth of the replies lost their threading headers
        lines += [f"In-Reply-To: {ids[-1]}", f"References: {' '.join(ids)}"]
    return "\n".join(lines) + "\n"


def _compose(
    rng: random.Random, style: str, language: str, new: str, signature: str, history: str,
    prev: Labelled | None, parent: tuple[str, str], n: int,
) -> tuple[str, str, str, bool]:  # fmt: skip
    """(body, quoted text, plain body, is html) of one message."""
    own = f"{new}\n\n{signature}"
    if prev is None:
        return own, "", own, False
    date = _DATES.get(language, "Mon, {d} Jun 2024 10:00").format(d=n)
    wrote = _WROTE[language].format(date=date, name=parent[0], addr=parent[1])
    frm, sent, to, subj, original = _HEADERS[language]
    block = f"{frm}: {parent[0]} <{parent[1]}>\n{sent}: {date}\n{to}: Team\n{subj}: x"
    quoted_lines = "\n".join(f"> {line}" if line else ">" for line in history.split("\n"))
    if style == "top-gmail":
        plain = f"{own}\n\n{wrote}\n{quoted_lines}"
        return plain, f"{wrote}\n{history}", plain, False
    if style == "bottom":
        plain = f"{wrote}\n{quoted_lines}\n\n{own}"
        return plain, f"{wrote}\n{history}", plain, False
    if style == "interleaved":
        return _interleaved(rng, language, new, signature, prev.new)
    if style == "outlook-plain":
        plain = f"{own}\n\n{original}\n{block}\n\n{history}"
        return plain, f"{original}\n{block}\n{history}", plain, False
    if style == "outlook-header":
        plain = f"{own}\n\n________________________________\n{block}\n\n{history}"
        return plain, f"{block}\n{history}", plain, False
    if style == "forward":  # the history is forwarded, not quoted: nothing is quoted
        plain = f"{own}\n\n{_FORWARD[language]}\n{block}\n\n{history}"
        return plain, "", plain, False
    return _html(style, own, wrote, block, history, quoted_lines)


def _interleaved(
    rng: random.Random, language: str, new: str, signature: str, asked: str
) -> tuple[str, str, str, bool]:
    questions = asked.split("\n\n")
    answers = new.split("\n\n")
    while len(answers) < len(questions):
        answers.append(_sentence(rng, language))
    parts = [f"> {q}\n\n{a}" for q, a in zip(questions, answers, strict=False)]
    parts += answers[len(questions) :]
    plain = "\n\n".join(parts) + f"\n\n{signature}"
    return plain, "\n".join(questions), plain, False


def _paras(text: str) -> str:
    return "".join(
        f"<div>{html.escape(p).replace(chr(10), '<br>')}</div><br>" for p in text.split("\n\n")
    )


def _html(
    style: str, own: str, wrote: str, block: str, history: str, quoted_lines: str
) -> tuple[str, str, str, bool]:
    mine = _paras(own)
    if style == "gmail-html":
        body = (
            f'<div dir="ltr">{mine}</div><div class="gmail_quote"><div class="gmail_attr">'
            f'{html.escape(wrote)}<br></div><blockquote class="gmail_quote">'
            f"{_paras(history)}</blockquote></div>"
        )
        return body, f"{wrote}\n{history}", f"{own}\n\n{wrote}\n{quoted_lines}", True
    if style == "apple-html":
        cite = f'<blockquote type="cite">{_paras(history)}</blockquote>'
        body = f"{mine}<div>{html.escape(wrote)}</div>{cite}"
        return body, f"{wrote}\n{history}", f"{own}\n\n{wrote}\n{quoted_lines}", True
    header = "<br>".join(
        f"<b>{name}:</b>{html.escape(value)}"
        for name, value in (line.split(":", 1) for line in block.split("\n"))
    )
    body = f'{mine}<hr><div id="divRplyFwdMsg">{header}</div><div>{_paras(history)}</div>'
    return body, f"{block}\n{history}", f"{own}\n\n{block}\n\n{history}", True


def measured(text: str) -> Counter[str]:
    """The generated words of `text` (a word and its number), counted: the sign-offs and
    client lines every message has are not the measure."""
    return Counter(w for w in words(text) if not w.isdigit() and any(c.isdigit() for c in w))


def kept_text(doc: Extracted) -> str:
    """What indexer keeps as a message's own: every chunk but the header summary and quotes."""
    return "\n".join(c.text for c in doc.chunks if c.meta["part"] not in ("headers", "quoted"))


def scores(mails: Sequence[Labelled], kept: Iterable[str] | None = None) -> tuple[float, float]:
    """(recall of new words, share of quoted words leaking) over `mails`, given the text
    kept as each one's own (by default indexer's, extracted with the default options)."""
    if kept is None:
        kept = (kept_text(extract(m.mime, "", DEFAULT_OPTIONS)) for m in mails)
    found = lost = leaked = quoted = 0
    for mail, text in zip(mails, kept, strict=True):
        new, old, have = measured(mail.new), measured(mail.quoted), measured(text)
        found += sum((new & have).values())
        lost += sum((new - have).values())
        leaked += sum((old & (have - new)).values())
        quoted += sum(old.values())
    return found / max(found + lost, 1), leaked / max(quoted, 1)
