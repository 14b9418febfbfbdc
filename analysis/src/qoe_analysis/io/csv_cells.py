"""Text cells of the CSV files QoE Lab writes, safe to open in a spreadsheet.

A spreadsheet runs a cell that starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage
return as a formula (CSV or formula injection: a game named ``=cmd|' /C calc'!A0``). The
rule of OWASP's "CSV Injection" page: prefix such a *text* cell with a single quote, which
spreadsheets show as text and never evaluate. Numeric cells (a negative delay, a rating)
are written as numbers and never escaped.

The prefix test (:func:`formula_start`, issue 34) does not stop at the first character:
leading invisible characters — format characters (Unicode category Cf: U+200B zero width
space, U+FEFF byte order mark, U+2060 word joiner, bidi marks) and white space — are
skipped, and each character is normalised by NFKC first, so that a full-width ``＝``
(U+FF1D), ``＋``, ``－`` or ``＠`` counts as ``=``, ``+``, ``-``, ``@``. A spreadsheet or a
converter in between may drop or fold exactly these, and the cell would run.

The escape is reversible so that exported names import back unchanged: a text that
already starts with quotes followed by a formula start gets one more quote, and
:func:`unescape_text_cell` removes exactly one quote from such a cell. Every reader of the
tidy CSV (``load_ratings``, the backend's import, the results explorer) un-escapes its text
columns.

The one implementation of the rule: the backend's tidy and sureal exports, its name check
(``qoelab.core.labels``) and the analysis' CSV writers import it. Standard library only
(the backend imports it at start-up).
"""

from __future__ import annotations

import unicodedata

__all__ = ["FORMULA_STARTS", "QUOTE", "escape_text_cell", "formula_start", "unescape_text_cell"]

#: First characters that make a spreadsheet evaluate a cell (OWASP, "CSV Injection").
FORMULA_STARTS = frozenset("=+-@\t\r")
QUOTE = "'"


def _invisible(char: str) -> bool:
    """Skipped before the prefix test: white space and format characters (category Cf)."""
    return char.isspace() or unicodedata.category(char) == "Cf"


def formula_start(text: str) -> str | None:
    """The formula start (one of :data:`FORMULA_STARTS`) that ``text`` begins with once
    leading invisible characters are skipped and each character is NFKC-normalised, or
    None. ``"\\u200b=x"`` and ``"＝x"`` give ``"="``; a tab or carriage return counts
    itself, wherever it stands among the leading white space.

    Characters are normalised one at a time, so a combining mark after ``=`` (NFKC of
    ``"=\\u0338"`` is ``"≠"``) cannot hide it.
    """
    for char in text:
        for normal in unicodedata.normalize("NFKC", char):
            if normal in FORMULA_STARTS:
                return normal
            if not _invisible(normal):
                return None
    return None


def _needs_quote(text: str) -> bool:
    rest = text.lstrip(QUOTE)
    first = rest[:1]
    if first.isascii() and not first.isspace():
        return first in FORMULA_STARTS  # the usual cell: a letter or digit decides at once
    return formula_start(rest) is not None


def escape_text_cell(text: str) -> str:
    """``text`` as a CSV text cell: prefixed with ``'`` when a spreadsheet would run it."""
    return QUOTE + text if _needs_quote(text) else text


def unescape_text_cell(text: str) -> str:
    """The inverse of :func:`escape_text_cell` (other cells are returned unchanged)."""
    return text[1:] if text.startswith(QUOTE) and _needs_quote(text) else text
