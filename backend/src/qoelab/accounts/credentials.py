"""Which user names and passwords are text a password check may be asked about at all.

RFC 7617 §2 (HTTP basic auth): "The user-id and password MUST NOT contain any control
characters". Beyond the standard, a NUL byte cannot be sent to PostgreSQL at all (a user
name with one gave HTTP 500 on every endpoint, issue 34 finding 3), and a lone surrogate
cannot be encoded to send it anywhere. Account names never contain either (Django's
username validator allows letters, digits and ``@.+-_``), so such a check is refused
without a query, a hash or a counted attempt.
"""

from __future__ import annotations

import unicodedata

#: Unicode categories refused: Cc (C0 controls incl. NUL, DEL, C1 controls) and Cs
#: (lone surrogates).
FORBIDDEN_CATEGORIES = frozenset({"Cc", "Cs"})


def forbidden_character(text: str) -> str | None:
    """The first control character or lone surrogate of ``text``, as ``U+XXXX``; or None."""
    for char in text:
        if unicodedata.category(char) in FORBIDDEN_CATEGORIES:
            return f"U+{ord(char):04X}"
    return None


def unusable(username: str, password: str) -> bool:
    """True if no account can match: a control character or surrogate in the user name,
    a NUL or a surrogate in the password (other controls in a password are the
    password's business outside basic auth)."""
    if forbidden_character(username):
        return True
    return "\x00" in password or any(unicodedata.category(c) == "Cs" for c in password)
