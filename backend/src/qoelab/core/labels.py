"""Free-text names that end up in exports: study titles, game names and genres, scenario
labels, questionnaire choices.

The rule (docs/api.md, "Names and labels"): the API strips surrounding white space (DRF's
``CharField``), bounds the length (each field's ``max_length``) and refuses

* control characters anywhere (tab, carriage return, line feed, escape …: Unicode
  category Cc), and
* a first character that makes a spreadsheet run the text as a formula: ``=``, ``+``,
  ``@``, or ``-`` (OWASP, "CSV Injection"). A plain negative number (``-1``, ``-2.5``) is
  a legitimate name and is allowed: a spreadsheet reads it as that number, nothing runs.

The exports escape such cells anyway (:mod:`qoe_analysis.io.csv_cells`), for rows stored
before this rule.
"""

from __future__ import annotations

import re
import unicodedata

from django.core.exceptions import ValidationError

FORMULA_FIRST = frozenset("=+-@")
_NEGATIVE_NUMBER = re.compile(r"-\d+(\.\d+)?")


def validate_label(value: str) -> None:
    """Refuse a name with a control character or a formula-like start (see module doc)."""
    for char in value:
        if unicodedata.category(char) == "Cc":
            raise ValidationError(
                f"must not contain control characters (found {char!r}); use plain text"
            )
    if value[:1] in FORMULA_FIRST and not _NEGATIVE_NUMBER.fullmatch(value):
        raise ValidationError(
            f"must not start with {value[0]!r}: spreadsheets run text starting with "
            "=, +, - or @ as a formula (a plain negative number such as -1 is fine)"
        )
