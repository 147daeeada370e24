"""--help's text: the options coreutils' checksum tools take, with the algorithms of this build.

Imported only for --help, so that no other run loads the text.
"""

from __future__ import annotations

from fastdigest.cli.options import DEFAULT_ALGORITHM, TAG_NAMES

HELP_TEXT = """\
Usage: fastdigest [OPTION]... [FILE]...
Print or check checksums (SHA256 by default), like md5sum, sha1sum, sha256sum
and sha512sum. With no FILE, or when FILE is -, read standard input.

{algorithm_option}
  -b, --binary          read in binary mode (mark the output lines with '*')
  -c, --check           read checksums from the FILEs and check them
  -r, --recursive       hash every file below each directory FILE, in the
                        byte order of the paths; symbolic links met below it
                        are not followed into directories
      --tag             create a BSD-style checksum
  -t, --text            read in text mode (default)
  -z, --zero            end each output line with NUL, not newline,
                          and disable file name escaping

The following five options are useful only when verifying checksums:
      --ignore-missing  don't fail or report status for missing files
      --quiet           don't print OK for each successfully verified file
      --status          don't output anything, status code shows success
      --strict          exit non-zero for improperly formatted checksum lines
  -w, --warn            warn about improperly formatted checksum lines

      --s3-etag         print (or with --check, check) the ETag S3 gives each
                        FILE uploaded in parts, as aws-cli and boto3 upload
                        it: the MD5 of the parts' MD5s and -N for N parts,
                        the file's MD5 below the part size
      --part-size=SIZE  with --s3-etag, the part size (and multipart
                        threshold): bytes, or with K, M or G (KiB, MiB,
                        GiB); 8M by default. --check without it accepts an
                        ETag of any part size boto3, aws-cli or another
                        common uploader uses

      --self-test       run every hashing kernel this CPU runs against known
                        answers and the standard library, print a report
                        and exit: what to run on a new machine
      --help            display this help and exit
      --version         output version information and exit

The output and the checks are those of GNU coreutils; several FILEs are hashed
in parallel. Exit status: 0 if every file was read (and every check passed),
1 otherwise (with --self-test: if any result was wrong).
"""


def help_text() -> str:
    """--help's text, with the algorithms of this build in the paragraph of -a."""
    import textwrap

    names = ', '.join(name + (' (default)' if name == DEFAULT_ALGORITHM else '') for name in TAG_NAMES)
    # No break inside "(-a md5,sha256)" or at a hyphen of an option's name.
    paragraph = textwrap.fill(
        f'{names}; with --check, the algorithm of the checksum lines. Several, separated by commas'
        ' (-a\xa0md5,sha256), are computed from one read of each file and printed as BSD-style lines, one'
        ' per algorithm, which --check reads back',
        width=76,
        initial_indent='  -a, --algorithm=ALGO  ',
        subsequent_indent=' ' * 24,
        break_on_hyphens=False,
    )
    return HELP_TEXT.format(algorithm_option=paragraph.replace('\xa0', ' '))
