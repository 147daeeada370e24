"""File names as coreutils shows them: escaped in output lines (and read back from
checksum lines), and quoted for the shell in messages.

Names are bytes, as the file system and the checksum files spell them; they are
decoded only to tell which characters a quoted name can show as they are.
"""

from __future__ import annotations

# typing.TYPE_CHECKING without importing typing; mypy reads the name itself.
TYPE_CHECKING = False

if TYPE_CHECKING:
    from collections.abc import Iterator


def escape_name(name: bytes) -> bytes:
    """coreutils' escaping of a name in an output line: backslash, newline and CR."""
    return name.replace(b'\\', b'\\\\').replace(b'\n', b'\\n').replace(b'\r', b'\\r')


def unescape_name(escaped: bytes) -> bytes | None:
    """The inverse of escape_name for a checksum line; None if the line is malformed
    (an escape other than \\\\, \\n, \\r, a trailing backslash, or a NUL)."""
    out = bytearray()
    index = 0
    while index < len(escaped):
        byte = escaped[index]
        if byte == 0:
            return None
        if byte == 0x5C:  # backslash
            index += 1
            if index == len(escaped):
                return None
            replacement = {0x5C: 0x5C, 0x6E: 0x0A, 0x72: 0x0D}.get(escaped[index])
            if replacement is None:
                return None
            out.append(replacement)
        else:
            out.append(byte)
        index += 1
    return bytes(out)


# Characters a shell takes literally anywhere in a word.
_SHELL_SAFE = frozenset(b'%+,-./0123456789:ABCDEFGHIJKLMNOPQRSTUVWXYZ]_abcdefghijklmnopqrstuvwxyz')
_SHELL_SPECIAL = frozenset(b' !"$&()*;<=>[^`|\'?\\')
_C_ESCAPES = {0x07: b'a', 0x08: b'b', 0x0C: b'f', 0x0A: b'n', 0x0D: b'r', 0x09: b't', 0x0B: b'v'}


def _locale_is_utf8() -> bool:
    """Whether names are read as UTF-8 (as coreutils' mbrtowc does in such a locale)
    or byte by byte, with every byte >= 0x80 unprintable (the C locale)."""
    try:
        import locale

        return locale.nl_langinfo(locale.CODESET).replace('-', '').upper() == 'UTF8'
    except (ImportError, AttributeError, ValueError):
        return True


def _split_characters(name: bytes) -> Iterator[tuple[bytes, bool]]:
    """Yield (bytes of one character, printable?) the way mbrtowc/iswprint see it."""
    utf8 = max(name, default=0) >= 0x80 and _locale_is_utf8()
    index = 0
    while index < len(name):
        byte = name[index]
        if byte < 0x80 or not utf8:
            yield name[index : index + 1], 0x20 <= byte < 0x7F
            index += 1
            continue
        for length in (2, 3, 4):
            piece = name[index : index + length]
            try:
                character = piece.decode('utf-8')
            except UnicodeDecodeError:
                continue
            # iswprint also counts the spaces (Zs) that str.isprintable leaves out.
            printable = character.isprintable() or _is_space_separator(character)
            yield piece, printable
            index += length
            break
        else:
            # An invalid or truncated sequence: escaped byte by byte.
            yield name[index : index + 1], False
            index += 1


def _is_space_separator(character: str) -> bool:
    import unicodedata

    return unicodedata.category(character) == 'Zs'


def quote_name(name: bytes) -> bytes:
    """A name as coreutils' quotef shows it in a message (gnulib's shell-escape style,
    with ':' also quoted): bare when the shell would take it literally, else in
    single quotes, with $'\\n'-style escapes for unprintable characters."""
    characters = list(_split_characters(name))
    needs_quotes = not name
    for position, (piece, printable) in enumerate(characters):
        byte = piece[0]
        if len(piece) > 1:
            needs_quotes |= not printable
        elif byte in _SHELL_SPECIAL or byte == ord(':') or not printable:
            needs_quotes = True
        elif byte in b'#~' and position == 0:
            needs_quotes = True
        elif byte in b'{}' and len(name) == 1:
            needs_quotes = True
    if not needs_quotes:
        return name

    has_single_quote = b"'" in name
    # gnulib prefers "..." when the only trouble is an apostrophe among
    # characters that mean the same inside C and shell double quotes.
    if has_single_quote and all(_double_quote_compatible(p, ok, i, len(name)) for i, (p, ok) in enumerate(characters)):
        return b'"' + name + b'"'

    quoted, escape_open = _single_quoted(characters, escape_open=False)
    if has_single_quote and escape_open:
        # gnulib writes names with an apostrophe twice, the first time only to
        # measure, and its second pass starts with the $'...' escape flag left
        # over from the first; coreutils 9.1 prints the result, so do we.
        quoted, _ = _single_quoted(characters, escape_open=True)
    return quoted


def _double_quote_compatible(piece: bytes, printable: bool, position: int, length: int) -> bool:
    byte = piece[0]
    if len(piece) > 1 or byte >= 0x80:
        return printable
    if byte in _SHELL_SAFE or byte in b" '":
        return True
    if byte in b'#~':
        return position == 0
    if byte in b'{}':
        return length == 1
    if byte in _SHELL_SPECIAL or byte < 0x20 or byte == 0x7F:
        return False
    return printable  # '@' and the like


def _single_quoted(characters: list[tuple[bytes, bool]], escape_open: bool) -> tuple[bytes, bool]:
    out = bytearray(b"'")
    for piece, printable in characters:
        byte = piece[0]
        if printable or (len(piece) == 1 and byte not in _C_ESCAPES and 0x20 <= byte < 0x7F):
            if piece == b"'":
                # gnulib closes a pending $'...' with the quote itself here.
                out += b"'\\''"
                escape_open = False
            else:
                if escape_open:
                    out += b"''"
                    escape_open = False
                out += piece
            continue
        if not escape_open:
            out += b"'$'"
            escape_open = True
        if len(piece) == 1 and byte in _C_ESCAPES:
            out += b'\\' + _C_ESCAPES[byte]
        else:
            for raw in piece:
                out += b'\\%03o' % raw
    out += b"'"
    return bytes(out), escape_open
