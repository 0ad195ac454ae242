"""What the walk passes over as `binary`: known extensions unless an extractor claims
them, and a file whose first bytes hold a NUL (`binary_head`)."""

from __future__ import annotations

from indexer._text import wide_encoding

SNIFF_BYTES = 8192
"""The bytes of a file the sniff reads."""
# A UTF-16/32 text file is full of NULs; its BOM says it is text all the same.
_TEXT_BOMS = (b"\xff\xfe", b"\xfe\xff", b"\x00\x00\xfe\xff")

_BINARY_NAMES = (
    "png jpg jpeg gif bmp tif tiff webp ico icns heic heif avif psd xcf raw cr2 nef dng "
    "mp3 wav flac ogg oga opus m4a aac wma aiff mid midi "
    "mp4 m4v mov avi mkv webm wmv flv mpg mpeg 3gp "
    "zip gz tgz bz2 xz 7z rar tar zst lz4 lzma cab iso img dmg jar war whl egg apk deb rpm "
    "exe dll so dylib o a lib obj bin class pyc pyo pyd wasm msi "
    "doc docx docm xls xlsx xlsm ppt pptx odt ods odp odg pages numbers key epub mobi "
    "ttf otf woff woff2 eot "
    "sqlite sqlite3 db mdb accdb parquet feather arrow avro orc npy npz pkl pickle h5 hdf5"
)
BINARY_EXTENSIONS = frozenset(_BINARY_NAMES.split())
"""Extensions passed over as `binary` unless an extractor claims them."""
UNSUPPORTED_ARCHIVES = frozenset({"7z", "rar"})
"""Archive formats no reader here opens: passed over as `unsupported_archive`."""


def binary_reason(ext: str) -> str:
    """The skip reason of a file passed over for its extension `ext`."""
    return "unsupported_archive" if ext in UNSUPPORTED_ARCHIVES else "binary"


def binary_head(head: bytes) -> bool:
    """True when a file's first `SNIFF_BYTES` say it is not text: a NUL byte, with no
    BOM and no wide text encoding to explain it."""
    return b"\0" in head and not head.startswith(_TEXT_BOMS) and wide_encoding(head) is None
