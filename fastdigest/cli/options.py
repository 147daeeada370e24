"""The command line: the options coreutils' checksum tools take, parsed as GNU getopt_long
parses them, and the combinations they reject, with their messages."""

from __future__ import annotations

import os

import fastdigest

# typing.TYPE_CHECKING without importing typing; mypy reads the name itself.
TYPE_CHECKING = False

if TYPE_CHECKING:
    from collections.abc import Sequence


PROGRAM = 'fastdigest'
DEFAULT_ALGORITHM = 'sha256'

# The name each algorithm carries in BSD-style (--tag) lines: hashlib's name in capitals, with a slash for
# its underscore. That is what coreutils writes for the algorithms it has tools for (MD5, SHA1, ...
# SHA512); it has none for SHA-512/224 and /256, which take the spelling of Perl's shasum --tag
# (SHA512/224). The names are the extension's, from its table of algorithms (_fastdigest, which the stubs
# leave out), made all at once from the names joined: the command's start-up pays for each call.
_ALGORITHMS = fastdigest._fastdigest._algorithms  # type: ignore[attr-defined]
TAG_NAMES: dict[str, bytes] = dict(
    zip(_ALGORITHMS, ' '.join(_ALGORITHMS).upper().replace('_', '/').encode().split(), strict=True)
)

# The long options in the order getopt_long lists them when an abbreviation is
# ambiguous, each with whether it takes an argument.
LONG_OPTIONS: tuple[tuple[str, bool], ...] = (
    ('algorithm', True),
    ('binary', False),
    ('check', False),
    ('ignore-missing', False),
    ('part-size', True),
    ('quiet', False),
    ('recursive', False),
    ('s3-etag', False),
    ('self-test', False),
    ('status', False),
    ('strict', False),
    ('tag', False),
    ('text', False),
    ('warn', False),
    ('zero', False),
    ('help', False),
    ('version', False),
)
SHORT_OPTIONS = {
    'a': 'algorithm',
    'b': 'binary',
    'c': 'check',
    'r': 'recursive',
    't': 'text',
    'w': 'warn',
    'z': 'zero',
}


class UsageError(Exception):
    """A bad command line: the message goes to stderr, followed by the --help hint."""


class Options:
    def __init__(self) -> None:
        # Each file is hashed with every algorithm, in this order; more than
        # one prints BSD-style lines (see tagged).
        self.algorithms: list[str] = [DEFAULT_ALGORITHM]
        self.check = False
        self.recursive = False
        self.tag = False
        # None: neither -b nor -t given. On POSIX both modes read the same
        # bytes; the mode only chooses the ' ' or '*' before the name.
        self.binary: bool | None = None
        self.zero = False
        self.ignore_missing = False
        self.quiet = False
        self.status = False
        self.strict = False
        self.warn = False
        self.help = False
        self.version = False
        self.self_test = False
        # --s3-etag, and its --part-size in bytes (None: fastdigest.s3_etag's default)
        self.s3_etag = False
        self.part_size: int | None = None
        self.algorithm_given = False
        self.files: list[bytes] = []

    @property
    def algorithm(self) -> str:
        """The first (with one -a ALGO, the only) algorithm."""
        return self.algorithms[0]

    @property
    def tagged(self) -> bool:
        """Whether the output lines are BSD-style: --tag, or several algorithms,
        whose untagged lines could not be told apart."""
        return self.tag or len(self.algorithms) > 1


def _match_long_option(word: str) -> tuple[str, bool]:
    """The long option that *word* (without '--' and '=value') names: exact or a unique prefix."""
    for name, takes_argument in LONG_OPTIONS:
        if name == word:
            return name, takes_argument
    candidates = [(name, arg) for name, arg in LONG_OPTIONS if name.startswith(word)]
    if len(candidates) == 1:
        return candidates[0]
    if not candidates:
        raise UsageError(f"unrecognized option '--{word}'")
    listed = ' '.join(f"'--{name}'" for name, _ in candidates)
    raise UsageError(f"option '--{word}' is ambiguous; possibilities: {listed}")


def _apply_option(options: Options, name: str, value: str | None) -> None:
    if name == 'algorithm':
        assert value is not None
        # As with any option, the last -a wins; within one, a repeated name
        # counts once.
        algorithms = [_canonical_algorithm(part) for part in value.split(',')]
        options.algorithms = list(dict.fromkeys(algorithms))
        options.algorithm_given = True
    elif name == 'part-size':
        assert value is not None
        options.part_size = _part_size(value)
    elif name == 's3-etag':
        options.s3_etag = True
    elif name == 'binary':
        options.binary = True
    elif name == 'text':
        options.binary = False
    elif name == 'tag':
        # As in coreutils, --tag implies binary mode and a later -t undoes it.
        options.tag = True
        options.binary = True
    elif name == 'ignore-missing':
        options.ignore_missing = True
    elif name == 'self-test':
        options.self_test = True
    elif name in ('warn', 'quiet', 'status'):
        # As in coreutils, these three override each other: the last one wins.
        options.warn = name == 'warn'
        options.quiet = name == 'quiet'
        options.status = name == 'status'
    else:
        setattr(options, name, True)


_SIZE_UNITS = {'': 1, 'K': 1 << 10, 'M': 1 << 20, 'G': 1 << 30}


def _part_size(value: str) -> int:
    """--part-size's SIZE: digits, then K, M or G (with or without B or iB, binary all, as aws-cli reads
    its multipart_chunksize)."""
    text = value.strip().upper()
    for suffix in ('IB', 'B'):
        if text.endswith(suffix) and text[: -len(suffix)][-1:] in ('K', 'M', 'G'):
            text = text[: -len(suffix)]
            break
    unit = text[-1:] if text[-1:] in _SIZE_UNITS else ''
    digits = text[: len(text) - len(unit)]
    if not digits.isdigit() or not digits.isascii():
        raise UsageError(f"invalid part size: '{value}'")
    return int(digits) * _SIZE_UNITS[unit]


def _canonical_algorithm(value: str) -> str:
    try:
        name = fastdigest.new(value).name
    except (ValueError, TypeError):
        name = None
    if name not in TAG_NAMES:
        valid = ''.join(f"\n  - '{known}'" for known in TAG_NAMES)
        raise UsageError(f"invalid argument '{value}' for '--algorithm'\nValid arguments are:{valid}")
    return name


def parse_arguments(argv: Sequence[str | bytes]) -> Options:
    """Parse like GNU getopt_long: options and operands may be mixed, '--' ends the options,
    long options may be abbreviated, short options may be bundled (-cw, -asha1)."""
    options = Options()
    words = [os.fsdecode(word) for word in argv]
    index = 0
    while index < len(words):
        word = words[index]
        index += 1
        if word == '--':
            options.files.extend(os.fsencode(rest) for rest in words[index:])
            break
        if word.startswith('--'):
            body, has_value, value = word[2:].partition('=')
            name, takes_argument = _match_long_option(body)
            if has_value and not takes_argument:
                raise UsageError(f"option '--{name}' doesn't allow an argument")
            if takes_argument and not has_value:
                if index == len(words):
                    raise UsageError(f"option '--{name}' requires an argument")
                value = words[index]
                index += 1
            _apply_option(options, name, value if takes_argument else None)
        elif word.startswith('-') and word != '-':
            position = 1
            while position < len(word):
                letter = word[position]
                position += 1
                if letter not in SHORT_OPTIONS:
                    raise UsageError(f"invalid option -- '{letter}'")
                name = SHORT_OPTIONS[letter]
                if name == 'algorithm':
                    if position < len(word):
                        value = word[position:]
                    elif index < len(words):
                        value = words[index]
                        index += 1
                    else:
                        raise UsageError(f"option requires an argument -- '{letter}'")
                    _apply_option(options, name, value)
                    break
                _apply_option(options, name, None)
        else:
            options.files.append(os.fsencode(word))
    return options


def validate_options(options: Options) -> None:
    """Reject the combinations coreutils rejects, with its messages, in its order."""
    if options.self_test and options.files:
        raise UsageError('the --self-test option takes no FILE')
    if options.tag and options.binary is False:
        raise UsageError('--tag does not support --text mode')
    if options.zero and options.check:
        raise UsageError('the --zero option is not supported when verifying checksums')
    if len(options.algorithms) > 1 and options.binary is False and not options.check:
        raise UsageError('several algorithms print BSD-style lines, which do not support --text mode')
    if options.part_size is not None and not options.s3_etag:
        raise UsageError('the --part-size option is meaningful only with --s3-etag')
    if options.s3_etag and (options.tag or options.algorithm_given):
        raise UsageError('--s3-etag prints ETags, which are of MD5: --tag and --algorithm do not apply')
    if options.part_size is not None:
        from fastdigest import _s3

        try:
            _s3._check_sizes(options.part_size, None)
        except ValueError as problem:
            raise UsageError(f'invalid part size: {problem}') from None
    if options.tag and options.check:
        raise UsageError('the --tag option is meaningless when verifying checksums')
    if options.recursive and options.check:
        raise UsageError('the --recursive option is meaningless when verifying checksums')
    if options.binary is not None and options.check:
        raise UsageError('the --binary and --text options are meaningless when verifying checksums')
    for flag, option in (
        (options.ignore_missing, '--ignore-missing'),
        (options.status, '--status'),
        (options.warn, '--warn'),
        (options.quiet, '--quiet'),
        (options.strict, '--strict'),
    ):
        if flag and not options.check:
            raise UsageError(f'the {option} option is meaningful only when verifying checksums')
