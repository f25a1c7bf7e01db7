"""Text from a submission made fit to show anywhere: the one set of characters no such text may carry as it is.

Printed output, messages and the names of a submission's files and folders (instructor/intake.py) all pass through
here where they enter the grader.
"""

from __future__ import annotations

import re
from typing import Any

MESSAGE_CAP = 16 * 1024  # characters of a child's message kept (protocol.py's, the default cap here)

# The one set of characters no text from a submission may carry as it is (printed output, messages, and the names
# of its files and folders: instructor/intake.py), by Unicode category: controls (Cc), format characters (Cf: the
# bidirectional overrides and isolates, which reorder what a terminal or a browser shows after them, red team round
# 4; zero-width spaces and joiners, which make two names look alike, round 9), line and paragraph separators (Zl,
# Zp: str.splitlines splits on them), surrogates, private-use and unassigned code points. Newline and tab stay in
# text. ASCII text, the common case, is checked with a regular expression; other text a character at a time.
UNSHOWN_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"})
_ASCII_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f]")
_ASCII_CONTROL_IN_NAMES = re.compile("[\x00-\x1f\x7f]")  # a name has no newline or tab either


def _escape(char: str) -> str:
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


# In names also the default-ignorable characters outside those categories (a combining grapheme joiner, the Hangul
# fillers, variation selectors): shown as nothing, they made `alice` and `alice\u034f` two rows that look alike on the
# instructor's screen (red team round 26). Printed output keeps them: an emoji's variation selector is text.
_IGNORABLE_IN_NAMES = re.compile("[\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u3164\ufe00-\ufe0f\uffa0"
                                 "\U000e0100-\U000e01ef]")


def _escaped(text: str, keep: str) -> str:
    if text.isascii():
        pattern = _ASCII_CONTROL if keep else _ASCII_CONTROL_IN_NAMES
        return pattern.sub(lambda m: _escape(m.group()), text)
    import unicodedata

    return "".join(_escape(c) if c not in keep and (unicodedata.category(c) in UNSHOWN_CATEGORIES or (
        not keep and _IGNORABLE_IN_NAMES.match(c))) else c for c in text)


def safe_text(text: Any, cap: int = MESSAGE_CAP) -> str:
    """Text from a submission, fit to show anywhere: valid Unicode, no terminal control codes, bounded length.

    At most `cap` characters once escaped: an escape is up to 10 characters (an unassigned astral one), and round 26
    stored ten times the cap of each text that way.
    """
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    text = str(text)[:cap].encode("utf-8", errors="replace").decode("utf-8")  # lone surrogates become '?'
    return _escaped(text, "\n\t")[:cap]


def safe_name(text: str) -> str:
    """A name from a submission (a file, a folder, a zip entry) as plain text: every unshown character escaped."""
    return _escaped(text, "")
