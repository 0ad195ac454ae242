"""What one line of a mail body says about its role: the patterns `quotes` reads lines by.

Each test looks at one line (a quote marker stripped first) and knows nothing of its
neighbours: an attribution (`On <date>, <name> wrote:` and its translations), the start
of a quoted or forwarded message (Outlook's `-----Original Message-----`, a forwarded-
message banner, a `From:` / `Sent:` header block, on one line or several), a signature
delimiter or a mobile client's one-line signature, a sign-off, a disclaimer. `quotes`
decides from these and the lines around them. The words are the clients' own, in
English, German, French, Spanish, Italian, Dutch, Portuguese, Swedish, Danish,
Norwegian, Polish, Russian, Japanese and Chinese.
"""

from __future__ import annotations

import re

__all__ = [
    "CUT",
    "MARKERS",
    "MOBILE",
    "MOBILE_LENGTH",
    "RULES",
    "attribution",
    "attribution_start",
    "contact_line",
    "disclaimer",
    "forward_banner",
    "header_field",
    "header_line",
    "may_cut",
    "may_cut_anywhere",
    "mobile_signature",
    "quote_depth",
    "reply_separator",
    "sign_off",
    "signature_delimiter",
]

CUT = "zzindexerquotecutzz"
"""A token the HTML reader puts where a client's reply container starts: the rest is quoted."""

_MARKERS = re.compile(r"(?:[ \t]*>)+[ \t]?")
MARKERS = _MARKERS
"""The `>` markers that start a quoted line (with the space after them), for `match`."""
_WROTE = (
    "wrote", "writes", "schrieb", "a écrit", "a ecrit", "escribió", "escribio", "ha scritto",
    "scrisse", "schreef", "heeft het volgende geschreven", "escreveu", "skrev", "napisał",
    "napisal", "пишет", "написал", "kirjoitti", "írta", "yazdı", "napsal", "写道", "寫道",
    "書きました", "のメッセージ",
)  # fmt: skip
"""Words of attribution lines, lower-case: found by substring, far cheaper than a pattern."""
_ATTRIBUTION_START = re.compile(
    r"^(?:On|Am|Le|El|Il|Op|Em|No dia|Den|På|W dniu|Dne|\d{4}[-/年.])\b", re.I
)
# Gmail's ja/zh attributions name no verb: "2024年6月3日(月) 10:00 山田 <a@b.jp>:"
_DATED = re.compile(r"^.{0,40}\d{4}\s*[年/.-]\s*\d{1,2}\s*[月/.-]\s*\d{1,2}.{0,200}[:：]\s*$")
_SEPARATOR = re.compile(
    r"^[ \t]*[-_=*]{2,}[ \t]*(?:Original Message|Original Nachricht|Ursprüngliche Nachricht"
    r"|Message d'origine|Message original|Mensaje original|Messaggio originale|Messaggio originale"
    r"|Oorspronkelijk bericht|Origineel bericht|Mensagem original|Ursprungligt meddelande"
    r"|Oprindelig meddelelse|Opprinnelig melding|Wiadomość oryginalna|Исходное сообщение"
    r"|原始邮件|原始郵件|元のメッセージ|Reply message|Reply Message)[ \t]*[-_=*]{2,}[ \t]*$",
    re.I,
)
_UNDERSCORES = re.compile(r"^[ \t]*_{20,}[ \t]*$")
_FORWARD = re.compile(
    r"^[ \t]*(?:[-_=*]{2,}[ \t]*)?(?:Forwarded message|Forwarded Message|Forwarded mail"
    r"|Weitergeleitete Nachricht|Weitergeleitete E-Mail|Message transféré|Message transfere"
    r"|Mensaje reenviado|Messaggio inoltrato|Doorgestuurd bericht|Mensagem encaminhada"
    r"|Vidarebefordrat meddelande|Videresendt meddelelse|Videresendt melding"
    r"|Przekazana wiadomość|Пересылаемое сообщение|Переадресованное сообщение"
    r"|转发的邮件|轉寄的郵件|転送されたメッセージ|Begin forwarded message"
    r"|Anfang der weitergeleiteten Nachricht|Début du message réexpédié"
    r"|Inicio del mensaje reenviado"
    r"|Inizio messaggio inoltrato|Begin doorgestuurd bericht|Início da mensagem reencaminhada"
    r"|Början på vidarebefordrat meddelande|Forwarded by .{1,200}?)[ \t]*[:：]?[ \t]*"
    r"(?:[-_=*]{2,}[ \t]*)?$",
    re.I,
)
_FIELD_NAMES = {
    "from": r"From|Von|De|Da|Van|Från|Fra|Od|От|Lähettäjä|发件人|發件人|寄件者|差出人|送信者",
    "sent": r"Sent|Date|Gesendet|Datum|Envoyé|Enviado el|Enviada el|Enviado|Fecha|Data|Inviato"
    r"|Verzonden|Verstuurd|Skickat|Sendt|Wysłano|Отправлено|Дата|Lähetetty|发送时间|發送時間|日期|傳送時間|送信日時|日時",
    "to": r"To|An|À|A|Para|Aan|Till|Til|Do|Кому|Vastaanottaja|收件人|收件者|宛先",
    "subject": r"Subject|Betreff|Objet|Asunto|Oggetto|Onderwerp|Assunto|Ämne|Emne|Temat|Тема"
    r"|Aihe|主题|主旨|件名",
    "cc": r"Cc|Kopie|Copie|Copia|Kopia|Копия|抄送|副本",
}
_FIELDS = {
    name.lower(): field for field, names in _FIELD_NAMES.items() for name in names.split("|")
}
"""Each header field name, lower-case, and the field it names: a lookup, not a pattern."""
_FORWARD_WORDS = (
    "forward", "weitergeleit", "transf", "réexp", "reenv", "inoltr", "doorgest", "encaminh",
    "reencamin", "vidarebef", "videresend", "przekaz", "пересыл", "переадрес", "转发",
    "轉寄", "転送",
)  # fmt: skip
_SENT_FIELD = re.compile(rf"\s[*_]{{0,2}}(?:{_FIELD_NAMES['sent']})[*_]{{0,2}}[ \t]*[:：]", re.I)
_SIG_DELIMITER = re.compile(r"^(?:-- ?|--|__|—)[ \t]*$")
_MOBILE = re.compile(
    r"^[ \t]*(?:Sent from my |Sent from Mail for|Sent from Yahoo Mail|Sent from Outlook"
    r"|Sent via |Sent with |Get Outlook for |Von meinem .{1,40} gesendet|Gesendet von meinem"
    r"|Envoyé de mon |Envoyé depuis mon |Enviado desde mi |Enviado do meu |Enviado de meu "
    r"|Inviato da |Inviato dal mio |Verzonden vanaf mijn |Verstuurd vanaf mijn |Verzonden met "
    r"|Skickat från min |Sendt fra min |Wysłane z |Отправлено с |发自我的|從我的.{1,20}傳送"
    r"|.{1,20}から送信$)",
    re.I,
)
MOBILE = _MOBILE
"""What starts a line `mobile_signature` takes (if shorter than `MOBILE_LENGTH`), for `match`."""
MOBILE_LENGTH = 120
_SIGN_OFF = re.compile(
    r"^[ \t]*(?:(?:Best|Kind|Warm|Many|With best|With kind)[ \t]+(?:regards|wishes|thanks)"
    r"|Regards|Thanks|Thanks again|Thank you|Cheers|Best|Sincerely|Yours|Ciao|Gruß|Grüße"
    r"|BR|Viele Grüße|Beste Grüße|Mit freundlichen Grüßen|Freundliche Grüße|Liebe Grüße|LG|MfG"
    r"|Cordialement|Bien à vous|Bien cordialement|Amitiés|Salutations|Merci"
    r"|Saludos|Un saludo|Atentamente|Gracias|Cordiali saluti|Distinti saluti|Saluti|Grazie"
    r"|Met vriendelijke groet|Met vriendelijke groeten|Groeten|Groetjes|Bedankt"
    r"|Atenciosamente|Abraços|Cumprimentos|Obrigado|Obrigada"
    r"|Med vänliga hälsningar|Vänliga hälsningar|Hälsningar|Mvh|Tack"
    r"|Med venlig hilsen|Venlig hilsen|Med vennlig hilsen|Pozdrawiam|С уважением"
    r"|よろしくお願いします|よろしくお願いいたします|以上|此致|祝好|谢谢|謝謝)"
    r"[ \t]*[,.!。，]?[ \t]*$",
    re.I,
)
_CONTACT = re.compile(
    r"(?:\+\d[\d ()./-]{6,}\d|\(\d{2,5}\)[ \t]?\d[\d .-]{3,}\d|\b\d{3}[-.]\d{3}[-.]\d{4}\b"
    r"|[\w.+-]+@[\w-]+\.[\w.]+|https?://|www\.|\b(?:Tel|Phone|Mobile"
    r"|Mob|Cell|Fax|Tél|Telefon|Handy|Direct|Office|T|M|F)\b\.?[ \t]*[:.])",
    re.I,
)
_DISCLAIMER = (
    "confidential", "intended recipient", "intended solely for", "intended only for",
    "legally privileged", "vertraulich", "nicht der richtige adressat", "confidentiel",
    "destinataire", "confidencial", "destinatario", "riservat", "vertrouwelijk",
    "geadresseerde", "konfidentiell", "mottagare", "disclaimer", "consider the environment",
    "before you print", "licensed under", "licenced under", "all rights reserved", "copyright",
)  # fmt: skip
"""Words of legal notices, lower-case, found by substring."""


_ANY_CUT = re.compile(
    rf"\n(?i:{_SEPARATOR.pattern[1:]}|{_UNDERSCORES.pattern[1:]}|{_FORWARD.pattern[1:]}"
    rf"|[ \t*_]*(?:{_FIELD_NAMES['from']})[ \t*_]*[:：])",
    re.M,
)
"""Every line that may start a quoted or forwarded message, after a newline: Outlook's
separator or rule of underscores, a forwarded-message banner, a `From:` field (and
`CUT`, found by substring). A superset of the lines the per-line tests take, for
`may_cut_anywhere`. Each alternative starts at a newline, which the pattern engine
skips to: a `^` would be tried at every character. (The newline is outside the
case-blind group: the engine then looks for it as a literal, a third faster.)"""


RULES = ("-", "_", "=", "*")
"""What a rule line (`-----Original Message-----`, `____`) starts with."""


def may_cut(line: str) -> bool:
    """False for a line that cannot start a quoted or forwarded message (most lines: no
    colon, no rule); a cheap test before the patterns."""
    return ":" in line or "：" in line or line.lstrip().startswith(RULES) or CUT in line


def may_cut_anywhere(text: str) -> bool:
    """False for a body without `>` markers none of whose lines can start a quoted or
    forwarded message (a whole body tested by one search, not line by line); True
    whenever one line might (the line tests decide)."""
    return CUT in text or _ANY_CUT.search(f"\n{text}") is not None


def quote_depth(line: str) -> tuple[int, str]:
    """Return how many `>` markers start `line`, and the line without them."""
    if not line.lstrip(" \t").startswith(">"):
        return 0, line
    match = _MARKERS.match(line)
    assert match is not None  # the line starts with a marker
    return match.group().count(">"), line[match.end() :]


def attribution(line: str) -> bool:
    """True for a reply's attribution line (`On ..., X wrote:`, `Am ... schrieb X:`, ...)."""
    if len(line) > 400 or not line.rstrip().endswith((":", "：")):
        return False
    low = line.lower()
    return any(word in low for word in _WROTE) or bool(_DATED.match(line))


def attribution_start(line: str) -> bool:
    """True for a line that may begin an attribution wrapped over two lines."""
    return len(line) < 300 and bool(_ATTRIBUTION_START.match(line.strip()))


def reply_separator(line: str) -> bool:
    """True for `-----Original Message-----` (and translations), or an Outlook rule line
    of underscores (which the header block follows)."""
    return bool(_SEPARATOR.match(line) or _UNDERSCORES.match(line))


def forward_banner(line: str) -> bool:
    """True for a forwarded-message banner (`---------- Forwarded message ---------`,
    `Begin forwarded message:`, translations)."""
    if len(line) >= 200 or not ("--" in line or line.rstrip().endswith((":", "："))):
        return False
    if _FORWARD.match(line) is None:  # anchored: fails at once on most lines
        return False
    low = line.lower()
    return any(word in low for word in _FORWARD_WORDS)


def header_field(line: str) -> str | None:
    """The field (`from`, `sent`, `to`, `subject`, `cc`) a quoted header line names, else None."""
    colon = line.find(":", 0, 32)
    if colon < 0 and (colon := line.find("：", 0, 32)) < 0:
        return None
    field = _FIELDS.get(line[:colon].strip(" \t*_").lower())
    if field is None or line[colon + 1 : colon + 4].lstrip("*_")[:1] not in ("", " ", "\t"):
        return None
    return field


def header_line(line: str) -> bool:
    """True for a whole quoted header block on one line: `From: X Sent: Y To: Z ...`."""
    if line.count(":") + line.count("：") < 2 or header_field(line) != "from":
        return False
    return _SENT_FIELD.search(line, 0, 400) is not None


def signature_delimiter(line: str) -> bool:
    """True for the signature delimiter `-- ` (and the common `--`, `__`)."""
    return bool(_SIG_DELIMITER.match(line))


def mobile_signature(line: str) -> bool:
    """True for a client's one-line signature (`Sent from my iPhone`, translations)."""
    return len(line) < MOBILE_LENGTH and bool(_MOBILE.match(line))


def sign_off(line: str) -> bool:
    """True for a sign-off line alone (`Best regards,`, `Mit freundlichen Grüßen`)."""
    return len(line) < 60 and bool(_SIGN_OFF.match(line))


def contact_line(line: str) -> bool:
    """True for a short line holding a phone number, an address, a web link."""
    return len(line) < 100 and bool(_CONTACT.search(line))


def disclaimer(paragraph: str) -> bool:
    """True for a legal disclaimer paragraph: long enough, and in a disclaimer's words."""
    if len(paragraph) < 120:
        return False
    low = paragraph.lower()
    return any(word in low for word in _DISCLAIMER)
