"""Decode a text file: UTF-8 (with or without a byte-order mark) or UTF-16 with one.

Anything else is refused with a message that says which encoding was expected and what the
file looks like, never decoded by guess: a Latin-1 ``é`` read as something else, or UTF-16
read as UTF-8 with NUL bytes between the letters, would be misread without a word.
"""

from __future__ import annotations

import codecs

from placement.reading.problems import InputError, fail

EXPECTED_ENCODING = (
    "UTF-8 text (with or without a byte-order mark), or UTF-16 with a byte-order mark"
)

_UTF16_BOMS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)


def decode_text(data: bytes, source: str) -> str:
    """The file's text, without a byte-order mark; raises :class:`InputError` otherwise."""
    if data.startswith(codecs.BOM_UTF8):
        return _decode(data, "utf-8-sig", source)
    if data.startswith(_UTF16_BOMS):
        return _decode(data, "utf-16", source)
    if b"\x00" in data:
        raise _nul_bytes(data, source)
    return _decode(data, "utf-8", source)


def _decode(data: bytes, encoding: str, source: str) -> str:
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as err:
        raise _not_utf(data, err, encoding, source) from None
    if "\x00" in text:
        raise fail(source, f"{EXPECTED_ENCODING}; the text holds NUL characters")
    return text


def _line_of(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


def _nul_bytes(data: bytes, source: str) -> InputError:
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
    return fail(
        source,
        f"{EXPECTED_ENCODING}; the file looks like {looks} (NUL bytes from line {line}); "
        "save it as UTF-8",
    )


def _not_utf(data: bytes, err: UnicodeDecodeError, encoding: str, source: str) -> InputError:
    """Bytes that are not valid in the encoding, with a guess at what the file is."""
    offset = err.start
    if encoding.startswith("utf-8"):
        byte = data[offset]
        line = _line_of(data, offset)
        # Every byte from 0x80 is a letter or sign in Latin-1 and Windows-1252: the usual culprit.
        looks = "Latin-1 or Windows-1252 text (an accented letter, a euro sign...)"
        detail = f"byte {byte:#04x} on line {line} is not UTF-8; the file looks like {looks}"
    else:
        detail = f"it has a UTF-16 byte-order mark but is not valid UTF-16 ({err.reason})"
    return fail(source, f"{EXPECTED_ENCODING}; {detail}; save it as UTF-8")
