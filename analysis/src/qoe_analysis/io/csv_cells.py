"""Text cells of the CSV files QoE Lab writes, safe to open in a spreadsheet.

A spreadsheet runs a cell that starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage
return as a formula (CSV or formula injection: a game named ``=cmd|' /C calc'!A0``). The
rule of OWASP's "CSV Injection" page: prefix such a *text* cell with a single quote, which
spreadsheets show as text and never evaluate. Numeric cells (a negative delay, a rating)
are written as numbers and never escaped.

The escape is reversible so that exported names import back unchanged: a text that
already starts with quotes followed by a formula character gets one more quote, and
:func:`unescape_text_cell` removes exactly one quote from such a cell. Every reader of the
tidy CSV (``load_ratings``, the backend's import, the results explorer) un-escapes its text
columns.

Standard library only (the backend imports it at start-up).
"""

from __future__ import annotations

__all__ = ["FORMULA_STARTS", "escape_text_cell", "unescape_text_cell"]

#: First characters that make a spreadsheet evaluate a cell (OWASP, "CSV Injection").
FORMULA_STARTS = frozenset("=+-@\t\r")
QUOTE = "'"


def _needs_quote(text: str) -> bool:
    return text.lstrip(QUOTE)[:1] in FORMULA_STARTS


def escape_text_cell(text: str) -> str:
    """``text`` as a CSV text cell: prefixed with ``'`` when a spreadsheet would run it."""
    return QUOTE + text if _needs_quote(text) else text


def unescape_text_cell(text: str) -> str:
    """The inverse of :func:`escape_text_cell` (other cells are returned unchanged)."""
    return text[1:] if text.startswith(QUOTE) and _needs_quote(text) else text
