"""Decode a text file: UTF-8 (with or without a byte-order mark) or UTF-16 or UTF-32 with one.

Anything else is refused with a message that says which encoding was expected and what the
file looks like, never decoded by guess: a Latin-1 ``é`` read as something else, or UTF-16
read as UTF-8 with NUL bytes between the letters, would be misread without a word.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass

from placement.reading.problems import fail

EXPECTED_ENCODING = (
    "UTF-8 text (with or without a byte-order mark), or UTF-16 or UTF-32 with a byte-order mark"
)

_UTF16_BOMS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)
# Looked for before UTF-16's: UTF-32 little-endian's mark starts with UTF-16 little-endian's.
_UTF32_BOMS = (codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)
WIDE_BYTE_ORDER_MARKS = _UTF32_BOMS + _UTF16_BOMS
"""The marks that start a UTF-16 or UTF-32 file: the text is decoded by :func:`decode`."""


@dataclass
class UndecodableText(ValueError):
    """Bytes that are not text in an accepted encoding: what was expected, where it failed."""

    expected: str
    line: int | None = None
    found: str | None = None  # the offending byte, as 0xNN


def decode(data: bytes) -> str:
    """The text of ``data`` without a byte-order mark; raises :class:`UndecodableText`."""
    if data.startswith(codecs.BOM_UTF8):
        return _decode(data, "utf-8-sig")
    if data.startswith(_UTF32_BOMS):
        return _decode(data, "utf-32")
    if data.startswith(_UTF16_BOMS):
        return _decode(data, "utf-16")
    if b"\x00" in data:
        raise _nul_bytes(data)
    return _decode(data, "utf-8")


def decode_text(data: bytes, source: str) -> str:
    """The inventory file's text; an undecodable file is an :class:`InputError` about it."""
    try:
        return decode(data)
    except UndecodableText as err:
        raise fail(source, err.expected, line=err.line) from None


def _decode(data: bytes, encoding: str) -> str:
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as err:
        raise _not_utf(data, err, encoding) from None
    if "\x00" in text:
        line = text.count("\n", 0, text.index("\x00")) + 1
        raise UndecodableText(f"{EXPECTED_ENCODING}; the text holds NUL characters", line, "0x00")
    return text


def _line_of(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


def _nul_bytes(data: bytes) -> UndecodableText:
    """NUL bytes in a file without a byte-order mark: UTF-16 without its mark, or binary."""
    sample = data[:4096]
    even_zeros = sample[0::2].count(0)
    odd_zeros = sample[1::2].count(0)
    half = len(sample) / 2
    if odd_zeros > 0.3 * half and even_zeros < 0.05 * half:
        looks = "UTF-16 (little-endian) without a byte-order mark"
    elif even_zeros > 0.3 * half and odd_zeros < 0.05 * half:
        looks = "UTF-16 (big-endian) without a byte-order mark"
    else:
        looks = "a binary file, not text"
    line = _line_of(data, data.index(b"\x00"))
    expected = (
        f"{EXPECTED_ENCODING}; the file looks like {looks} (NUL bytes from line {line}); "
        "save it as UTF-8"
    )
    return UndecodableText(expected, line, "0x00")


def _not_utf(data: bytes, err: UnicodeDecodeError, encoding: str) -> UndecodableText:
    """Bytes that are not valid in the encoding, with a guess at what the file is."""
    offset = err.start
    byte = data[offset]
    if encoding.startswith("utf-8"):
        line = _line_of(data, offset)
        # Every byte from 0x80 is a letter or sign in Latin-1 and Windows-1252: the usual culprit.
        looks = "Latin-1 or Windows-1252 text (an accented letter, a euro sign...)"
        detail = f"byte {byte:#04x} on line {line} is not UTF-8; the file looks like {looks}"
    else:
        line = data[:offset].decode(encoding, "replace").count("\n") + 1
        name = "UTF-32" if encoding == "utf-32" else "UTF-16"
        detail = f"it has a {name} byte-order mark but is not valid {name} ({err.reason})"
    return UndecodableText(f"{EXPECTED_ENCODING}; {detail}; save it as UTF-8", line, f"{byte:#04x}")
