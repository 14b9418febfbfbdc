"""Free-text names that end up in exports: study titles, game names and genres, scenario
labels, questionnaire choices.

The rule (docs/api.md, "Names and labels"): the API strips surrounding white space (DRF's
``CharField``), bounds the length (each field's ``max_length``) and refuses

* control characters anywhere (tab, carriage return, line feed, escape …: Unicode
  category Cc), and
* a start that makes a spreadsheet run the text as a formula: ``=``, ``+``, ``@``, or
  ``-`` (OWASP, "CSV Injection"), also behind leading invisible characters (U+200B,
  U+FEFF, U+2060 …) and in full-width form (``＝``): the exports' one prefix rule,
  :func:`qoe_analysis.io.csv_cells.formula_start` (issue 34). A plain negative number
  (``-1``, ``-2.5``) is a legitimate name and is allowed: a spreadsheet reads it as that
  number, nothing runs.

The exports escape such cells anyway (:mod:`qoe_analysis.io.csv_cells`), for rows stored
before this rule.
"""

from __future__ import annotations

import re
import unicodedata

from django.core.exceptions import ValidationError
from qoe_analysis.io.csv_cells import formula_start

_NEGATIVE_NUMBER = re.compile(r"-\d+(\.\d+)?")


def validate_label(value: str) -> None:
    """Refuse a name with a control character or a formula-like start (see module doc)."""
    for char in value:
        if unicodedata.category(char) == "Cc":
            raise ValidationError(
                f"must not contain control characters (found {char!r}); use plain text"
            )
    start = formula_start(value)
    if start is None or _NEGATIVE_NUMBER.fullmatch(value):
        return
    # Control characters are refused above: a tab or carriage return never gets here.
    hidden = "" if value[0] == start else f" (its first character is U+{ord(value[0]):04X})"
    raise ValidationError(
        f"must not start with {start!r}{hidden}: spreadsheets run text starting with "
        "=, +, - or @ as a formula, also behind invisible characters or in full-width "
        "form (a plain negative number such as -1 is fine)"
    )
