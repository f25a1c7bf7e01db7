"""Text from a submission made fit to show anywhere: the one set of characters no such text may carry as it is.

Printed output, messages and the names of a submission's files and folders (instructor/intake.py) all pass through
here where they enter the grader.
"""

from __future__ import annotations

import re
from typing import Any

MESSAGE_CAP = 16 * 1024  # characters of a child's message kept (protocol.py's, the default cap here)

# The one set of characters no text from a submission may carry as it is (printed output, messages, and the names
# of its files and folders: instructor/intake.py): C0/C1 controls, Unicode's bidirectional overrides and isolates,
# which reorder what a terminal or a browser shows after them (a forged line reads differently from its bytes: red
# team round 4), and the line and paragraph separators str.splitlines splits on. Newline and tab stay in text.
_UNSHOWN = "\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u2028\u2029"
_CONTROL = re.compile(f"[\x00-\x08{_UNSHOWN}]")
_CONTROL_IN_NAMES = re.compile(f"[\x00-\x0a{_UNSHOWN}]")  # a name has no newline or tab either


def _escape(m: re.Match[str]) -> str:
    code = ord(m.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def safe_text(text: Any, cap: int = MESSAGE_CAP) -> str:
    """Text from a submission, fit to show anywhere: valid Unicode, no terminal control codes, bounded length."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    text = str(text)[:cap].encode("utf-8", errors="replace").decode("utf-8")  # lone surrogates become '?'
    return _CONTROL.sub(_escape, text)


def safe_name(text: str) -> str:
    """A name from a submission (a file, a folder, a zip entry) as plain text: every unshown character escaped."""
    return _CONTROL_IN_NAMES.sub(_escape, text)
