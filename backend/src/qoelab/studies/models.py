"""Studies and what they are made of: games (with pace class) and impairment scenarios.

Directions follow the dissertation's testbed: *upstream* is client→server (the player's
inputs), *downstream* is server→client (the game video). Delay is one-way per direction.
A scenario sets every field of the netem agent's profile per direction (see
:mod:`qoelab.studies.directions`); limits are the agent's (:mod:`netem_profile.fields`).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator, RegexValidator
from django.db import models
from netem_profile import FIELDS

from qoelab.core.counters import save_kwargs_without
from qoelab.studies.design_generator import session_minutes
from qoelab.studies.directions import full_direction
from qoelab.studies.quality_control import default_quality_control
from qoelab.studies.rating_items import (
    DEFAULT_MIN_RESPONSE_MS,
    default_acceptance,
    default_rating_items,
    default_training,
)

#: The agent's limits (tc-netem(8)), so the database never refuses what the agent accepts.
MAX_DELAY_MS = float(FIELDS["delay_ms"].maximum or 0)
MAX_JITTER_MS = float(FIELDS["jitter_ms"].maximum or 0)

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


#: The ACR scale of ITU-T P.800 / P.910: score 1..5.
ACR_LABELS = ["bad", "poor", "fair", "good", "excellent"]


def default_scale_labels() -> list[str]:
    return list(ACR_LABELS)


def default_questionnaire() -> list[dict[str, Any]]:
    """The end-of-session questions of the dissertation's survey process (ch. 4.2.1)."""
    return [
        {
            "key": "willing_to_pay",
            "phase": "post",
            "kind": "choice",
            "text": (
                "Would you pay a monthly fee for the experience you just had, "
                "if you could play any game you wanted?"
            ),
            "choices": ["yes", "no"],
            "required": True,
        },
        {
            "key": "attitude",
            "phase": "post",
            "kind": "choice",
            "text": "What is your general attitude towards cloud gaming?",
            "choices": ["negative", "neutral", "positive"],
            "required": True,
        },
        {
            "key": "attitude_comment",
            "phase": "post",
            "kind": "text",
            "text": "What potential do you see in cloud gaming? (optional)",
            "required": False,
        },
    ]


class OrderPolicy(models.TextChoices):
    """How the non-baseline scenarios of a session are ordered (the baseline is first)."""

    RANDOM = "random", "Random order per session (seed stored)"
    LATIN_SQUARE = "latin_square", "Balanced Latin square across participants"


class Language(models.TextChoices):
    """Languages of the participant's screens (the researcher's console is English)."""

    EN = "en", "English"
    DE = "de", "Deutsch"


class Study(models.Model):
    slug = models.SlugField(max_length=80, unique=True)
    title = models.CharField(max_length=200)
    description = models.TextField(blank=True)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="owned_studies",
    )
    members = models.ManyToManyField(
        settings.AUTH_USER_MODEL, blank=True, related_name="shared_studies"
    )
    #: Bumped whenever a scenario of a study that has sessions is added, changed or removed.
    version = models.PositiveIntegerField(default=1)
    #: Bumped (``F() + 1``, in the writing transaction) whenever the data the analysis reads
    #: changes by an import, an analysis setting or a participant (a rating or a completed
    #: session bumps its session's counter). The analysis cache is keyed by it plus the
    #: sessions' counters, and ``version`` (:mod:`qoelab.studies.data_version`).
    data_version = models.PositiveIntegerField(default=0, editable=False)
    scale_labels = models.JSONField(
        default=default_scale_labels,
        help_text="Labels of the rating scale, lowest score first; scores run 1..len(labels).",
    )
    seconds_per_scenario = models.PositiveIntegerField(
        default=60, validators=[MinValueValidator(5), MaxValueValidator(3600)]
    )
    free_play_minutes = models.PositiveIntegerField(default=10, validators=[MaxValueValidator(120)])
    order_policy = models.CharField(
        max_length=20, choices=OrderPolicy.choices, default=OrderPolicy.RANDOM
    )
    retest_round = models.BooleanField(
        default=False,
        help_text="Repeat every non-baseline scenario in a second round (test–retest).",
    )
    questionnaire = models.JSONField(default=default_questionnaire)
    rating_items = models.JSONField(
        default=default_rating_items,
        help_text="The items rated after each scenario, in screen order (rating_items.py).",
    )
    acceptance = models.JSONField(
        default=default_acceptance,
        help_text='What makes a rating "acceptable": {"item": key} (yes/no) or {"item", "min"}.',
    )
    training = models.JSONField(
        default=default_training,
        help_text='Training on anchor scenarios first: {"enabled", "scenarios", "seconds"}.',
    )
    quality_control = models.JSONField(
        default=default_quality_control,
        help_text="ITU-T P.808 quality control: trapping items and a hidden reference "
        "(qoelab.studies.quality_control).",
    )
    min_response_ms = models.PositiveIntegerField(
        default=DEFAULT_MIN_RESPONSE_MS,
        help_text="A rating given faster than this after the rating screen is flagged fast.",
    )
    language = models.CharField(
        max_length=5,
        choices=Language.choices,
        default=Language.EN,
        help_text="The participant's screens start in this language (the participant may "
        "switch; a session link's lang= overrides it).",
    )
    rehearsal = models.BooleanField(
        default=False,
        help_text="A rehearsal may run on dry-run agents in production (nothing is applied "
        "to a kernel); its ratings are marked dry-run. Off: a dry-run station is refused.",
    )
    #: A study imported from a dataset collected elsewhere (qoelab.datasets): analysed like
    #: any study, never run at a station; its conditions are capped by
    #: QOELAB_MAX_IMPORTED_CONDITIONS, not QOELAB_MAX_SCENARIOS (issue 32).
    analysis_only = models.BooleanField(
        default=False,
        editable=False,
        help_text="Imported from a dataset: analysed like any study, never run at a station.",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["id"]
        verbose_name_plural = "studies"

    def __str__(self) -> str:
        return self.title

    def save(self, *args: Any, **kwargs: Any) -> None:
        """Save, but never write ``data_version`` back from memory on an update.

        The counter only moves by ``F("data_version") + 1`` (:func:`bump_data_version`); a
        full ``save()`` of a study loaded before a concurrent bump would otherwise put the
        old value back, and the analysis cache would serve a document of older data.
        """
        save_kwargs_without(self, "data_version", kwargs)
        super().save(*args, **kwargs)

    def active_scenarios(self) -> models.QuerySet[Scenario]:
        """The scenarios of the current version (retired ones stay for their ratings)."""
        return self.scenarios.filter(retired_in_version__isnull=True)

    @property
    def current_scenarios(self) -> list[Scenario]:
        prefetched = getattr(self, "prefetched_current_scenarios", None)
        return list(prefetched if prefetched is not None else self.active_scenarios())

    @property
    def session_minutes(self) -> float:
        """Estimated length of one session in minutes (formula: design_generator)."""
        return session_minutes(
            len(self.current_scenarios),
            seconds_per_scenario=self.seconds_per_scenario,
            free_play_minutes=self.free_play_minutes,
            retest_round=self.retest_round,
        )

    def rating_item(self, key: str) -> dict[str, Any] | None:
        return next((item for item in self.rating_items if item["key"] == key), None)

    def questions(self, phase: str) -> list[dict[str, Any]]:
        return [q for q in self.questionnaire if q.get("phase") == phase]


#: The study's settings, listed once: what the researcher edits (the study serializer), what
#: a clone copies (:mod:`qoelab.studies.cloning`). Every other field of :class:`Study` is in
#: :data:`NOT_SETTINGS` (a test fails on a field in neither).
STUDY_SETTINGS: tuple[str, ...] = (
    "description",
    "scale_labels",
    "seconds_per_scenario",
    "free_play_minutes",
    "order_policy",
    "retest_round",
    "questionnaire",
    "rating_items",
    "acceptance",
    "training",
    "quality_control",
    "min_response_ms",
    "language",
    "rehearsal",
)
#: The settings the tidy CSV or its sidecar (and so the analysis) depend on: the items and
#: their scales, the acceptance rule, the fast-rating floor, the questionnaire's factor
#: columns, and the legacy scale labels (which define the overall item's scale). A change
#: bumps the data version (:mod:`qoelab.studies.data_version`).
ANALYSIS_SETTINGS: tuple[str, ...] = (
    "rating_items",
    "acceptance",
    "min_response_ms",
    "questionnaire",
    "scale_labels",
    "quality_control",
)
#: The fields of :class:`Study` that are no settings: identity, title (a clone gets its
#: own), people, the counters and the timestamps.
NOT_SETTINGS: tuple[str, ...] = (
    "id",
    "slug",
    "title",
    "owner",
    "members",
    "version",
    "data_version",
    "analysis_only",
    "created_at",
    "updated_at",
)


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
    """One network condition, applied by the station's netem agent for one play period.

    Rows are immutable once a study has sessions: a change then retires the row
    (``retired_in_version``) and adds a new one, so ratings never change their meaning.
    """

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
    #: The direction's other agent fields (jitter distribution, correlations, Gilbert–Elliott
    #: loss, rate, reordering, duplication, corruption), only those that are not neutral.
    us_extra = models.JSONField("upstream: other fields", default=dict, blank=True)
    ds_extra = models.JSONField("downstream: other fields", default=dict, blank=True)
    #: The study version that introduced this row, and the one that retired it (if any).
    version = models.PositiveIntegerField(default=1)
    retired_in_version = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["study", "position", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["study", "code"],
                condition=models.Q(retired_in_version__isnull=True),
                name="active_scenario_code_unique_in_study",
            ),
            models.UniqueConstraint(
                fields=["study"],
                condition=models.Q(is_baseline=True, retired_in_version__isnull=True),
                name="one_active_baseline_per_study",
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

    def direction(self, prefix: str) -> dict[str, Any]:
        """The full profile of one direction (``us`` or ``ds``): every scenario field."""
        columns = {
            "delay_ms": getattr(self, f"{prefix}_delay_ms"),
            "jitter_ms": getattr(self, f"{prefix}_jitter_ms"),
            "loss_pct": getattr(self, f"{prefix}_loss_pct"),
        }
        return full_direction(columns, getattr(self, f"{prefix}_extra"))

    def profile(self) -> dict[str, dict[str, Any]]:
        """The agent's profile document for this scenario (the station sets the queue)."""
        return {"upstream": self.direction("us"), "downstream": self.direction("ds")}
