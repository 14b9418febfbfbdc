"""Participants: pseudonymous raters of one study (no names, no e-mail)."""

from __future__ import annotations

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

    class Meta:
        ordering = ["study", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["study", "code"], name="participant_code_unique_in_study"
            ),
        ]

    def __str__(self) -> str:
        return self.code
