"""Participants: pseudonymous raters of one study (no names, no e-mail)."""

from __future__ import annotations

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator, RegexValidator
from django.db import models

from qoelab.studies.models import Study

participant_code_validator = RegexValidator(
    r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$",
    "A participant code is 1–40 letters, digits, '_', '.' or '-' (a pseudonym, not a name).",
)


class Skill(models.TextChoices):
    """Self-rated gaming skill (dissertation ch. 4.2.2)."""

    LOW = "low", "Low"
    MEDIUM = "medium", "Medium"
    HIGH = "high", "High"


class WithdrawalMode(models.TextChoices):
    """How a participant was withdrawn (docs/running-a-study.md, "Withdrawing a participant").

    ``erase``: sessions, ratings and answers deleted; the participant row stays as a
    tombstone (pseudonym only). ``exclude``: everything kept, left out of analysis and exports.
    """

    ERASE = "erase", "Erased"
    EXCLUDE = "exclude", "Excluded and kept"


#: A participant's withdrawal state: "" while taking part, else the :class:`WithdrawalMode`.
PARTICIPANT_WITHDRAWAL = [("", "Taking part"), *WithdrawalMode.choices]


class Participant(models.Model):
    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="participants")
    code = models.CharField(max_length=40, validators=[participant_code_validator])
    consent_at = models.DateTimeField(null=True, blank=True)
    age = models.PositiveSmallIntegerField(
        null=True, blank=True, validators=[MinValueValidator(10), MaxValueValidator(120)]
    )
    skill = models.CharField(max_length=10, choices=Skill.choices, blank=True)
    #: Whether the participant favours games of a genre: {"racing": true, ...}
    genre_preferences = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    #: "" while taking part; else how the participant was withdrawn (:class:`WithdrawalMode`).
    #: Analysis and exports read only participants with "" (``qoelab.participants.withdrawal``).
    withdrawal = models.CharField(
        max_length=10, choices=PARTICIPANT_WITHDRAWAL, blank=True, default="", editable=False
    )
    withdrawn_at = models.DateTimeField(null=True, blank=True, editable=False)

    class Meta:
        ordering = ["study", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["study", "code"], name="participant_code_unique_in_study"
            ),
        ]

    def __str__(self) -> str:
        return self.code


class Withdrawal(models.Model):
    """The audit of one withdrawal: who, when, which pseudonym, how, and how many rows were
    erased. Never the erased data itself (no values, answers or participant facts)."""

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="withdrawals")
    #: The tombstone (erase) or the kept participant (exclude).
    participant = models.ForeignKey(
        Participant, on_delete=models.SET_NULL, null=True, related_name="withdrawals"
    )
    participant_code = models.CharField(max_length=40)
    mode = models.CharField(max_length=10, choices=WithdrawalMode.choices)
    reason = models.CharField(max_length=500, blank=True)
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    #: The user name at the time (kept when the account is deleted).
    by_username = models.CharField(max_length=150)
    at = models.DateTimeField()
    #: Rows deleted: {"sessions": n, "ratings": n, "answers": n} (zeros for exclude).
    erased = models.JSONField(default=dict)

    class Meta:
        ordering = ["study", "id"]

    def __str__(self) -> str:
        return f"{self.participant_code} ({self.mode})"
