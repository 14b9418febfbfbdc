"""Studies and what they are made of: games (with pace class) and impairment scenarios.

Directions follow the dissertation's testbed: *upstream* is client→server (the player's
inputs), *downstream* is server→client (the game video). Delay is one-way per direction.
"""

from __future__ import annotations

from django.core.validators import MaxValueValidator, MinValueValidator, RegexValidator
from django.db import models

MAX_DELAY_MS = 10_000.0
MAX_JITTER_MS = 10_000.0

delay_validators = [MinValueValidator(0.0), MaxValueValidator(MAX_DELAY_MS)]
jitter_validators = [MinValueValidator(0.0), MaxValueValidator(MAX_JITTER_MS)]
loss_validators = [MinValueValidator(0.0), MaxValueValidator(100.0)]
scenario_code_validator = RegexValidator(
    r"^[A-Z][A-Z0-9]{0,7}$", "A scenario code is 1–8 capital letters or digits, e.g. D1."
)


class PaceClass(models.TextChoices):
    """Game pace classes after Claypool & Claypool's game perspectives."""

    FAST = "fast", "Fast (first-person avatar)"
    MEDIUM = "medium", "Medium (third-person avatar)"
    SLOW = "slow", "Slow (omnipresent)"


class Study(models.Model):
    slug = models.SlugField(max_length=80, unique=True)
    title = models.CharField(max_length=200)
    description = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["id"]
        verbose_name_plural = "studies"

    def __str__(self) -> str:
        return self.title


class Game(models.Model):
    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="games")
    name = models.CharField(max_length=120)
    pace = models.CharField(max_length=10, choices=PaceClass.choices)
    genre = models.CharField(max_length=60, blank=True)

    class Meta:
        ordering = ["study", "id"]
        constraints = [
            models.UniqueConstraint(fields=["study", "name"], name="game_name_unique_in_study"),
            models.CheckConstraint(
                condition=models.Q(pace__in=PaceClass.values), name="game_pace_valid"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.pace})"


class Scenario(models.Model):
    """One network condition, applied by the station's netem agent for one play period."""

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="scenarios")
    code = models.CharField(max_length=8, validators=[scenario_code_validator])
    label = models.CharField(max_length=120, blank=True)
    position = models.PositiveIntegerField(default=0)
    is_baseline = models.BooleanField(default=False)

    us_delay_ms = models.FloatField("upstream delay (ms)", default=0.0, validators=delay_validators)
    us_jitter_ms = models.FloatField(
        "upstream jitter (ms)", default=0.0, validators=jitter_validators
    )
    us_loss_pct = models.FloatField("upstream loss (%)", default=0.0, validators=loss_validators)
    ds_delay_ms = models.FloatField(
        "downstream delay (ms)", default=0.0, validators=delay_validators
    )
    ds_jitter_ms = models.FloatField(
        "downstream jitter (ms)", default=0.0, validators=jitter_validators
    )
    ds_loss_pct = models.FloatField("downstream loss (%)", default=0.0, validators=loss_validators)

    class Meta:
        ordering = ["study", "position", "id"]
        constraints = [
            models.UniqueConstraint(fields=["study", "code"], name="scenario_code_unique_in_study"),
            models.UniqueConstraint(
                fields=["study"],
                condition=models.Q(is_baseline=True),
                name="one_baseline_per_study",
            ),
            *[
                models.CheckConstraint(
                    condition=models.Q(**{f"{field}__gte": 0.0, f"{field}__lte": upper}),
                    name=f"scenario_{field}_in_range",
                )
                for field, upper in [
                    ("us_delay_ms", MAX_DELAY_MS),
                    ("ds_delay_ms", MAX_DELAY_MS),
                    ("us_jitter_ms", MAX_JITTER_MS),
                    ("ds_jitter_ms", MAX_JITTER_MS),
                    ("us_loss_pct", 100.0),
                    ("ds_loss_pct", 100.0),
                ]
            ],
        ]

    def __str__(self) -> str:
        return self.code

    def direction(self, prefix: str) -> dict[str, float]:
        """The impairment of one direction (``us`` or ``ds``) as a profile fragment."""
        return {
            "delay_ms": getattr(self, f"{prefix}_delay_ms"),
            "jitter_ms": getattr(self, f"{prefix}_jitter_ms"),
            "loss_pct": getattr(self, f"{prefix}_loss_pct"),
        }
