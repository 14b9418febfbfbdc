"""The messages for a missing, empty or unknown pace class (issue 35, item 1).

DRF's own ``"" is not a valid choice.`` names neither the field nor the choices. The game
API answers ``pace: choose fast, medium or slow``; a study design document answers with
the game's path and what is wrong, e.g. ``games[1].pace: missing; choose fast, medium or
slow`` (the document's path is prefixed by :mod:`qoelab.studies.study_document`).
"""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from qoelab.studies.models import PaceClass

__all__ = ["PACE_DOCUMENT_ERRORS", "PACE_ERRORS", "PACE_MESSAGE", "PaceField"]


def _choices_text(values: list[str]) -> str:
    """``fast, medium or slow``: the choices as a researcher reads them."""
    return f"{', '.join(values[:-1])} or {values[-1]}" if len(values) > 1 else values[0]


CHOICES = f"choose {_choices_text([str(v) for v in PaceClass.values])}"
#: The game API's message, one for every way of getting it wrong.
PACE_MESSAGE = f"pace: {CHOICES}"
PACE_ERRORS = {key: PACE_MESSAGE for key in ("required", "null", "blank", "invalid_choice")}
#: A study document's messages: what is wrong, then the choices.
PACE_DOCUMENT_ERRORS = {
    "required": f"missing; {CHOICES}",
    "null": f"missing; {CHOICES}",
    "blank": f"empty; {CHOICES}",
    "invalid_choice": f'"{{input}}" is not a pace class; {CHOICES}',
}


class PaceField(serializers.ChoiceField):
    """A pace class of a study document; an empty string is "empty", not an invalid choice."""

    def __init__(self, **kwargs: Any) -> None:
        messages: dict[str, Any] = dict(PACE_DOCUMENT_ERRORS)
        super().__init__(PaceClass.choices, error_messages=messages, **kwargs)

    def to_internal_value(self, data: Any) -> Any:
        if data == "":
            self.fail("blank")
        return super().to_internal_value(data)
