"""Study documents: a study's definition as JSON (format ``qoelab.study/v1``).

The example study in ``fixtures/studies/`` is such a document. Loading validates the
whole document first and writes it in one transaction, so a bad document changes nothing;
loading the same document again is a no-op (idempotent by the study's slug).

A scenario's ``upstream``/``downstream`` take every field of the netem agent's profile but
the station's queue limit (see :mod:`qoelab.studies.directions`); omitted fields are
neutral. Exported documents always carry ``delay_ms``, ``jitter_ms`` and ``loss_pct`` and
the other fields only where they are not neutral, so a delay/jitter/loss study exports
exactly as it did before the other fields existed. Likewise the optional rating settings
(``rating_items``, ``acceptance``, ``training``, ``min_response_ms``; see
:mod:`qoelab.studies.rating_items`) are written only where they are not the defaults.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.db import transaction
from rest_framework import serializers

from qoelab.core.labels import validate_label
from qoelab.studies.analysis_only import design_refusal
from qoelab.studies.data_version import ANALYSIS_SETTINGS, bump_data_version
from qoelab.studies.direction_serializers import DirectionSerializer
from qoelab.studies.directions import checked_direction, compact_direction
from qoelab.studies.models import Game, Language, Study, scenario_code_validator
from qoelab.studies.pace import PaceField
from qoelab.studies.quality_control import default_quality_control, validate_quality_control
from qoelab.studies.rating_items import (
    DEFAULT_MIN_RESPONSE_MS,
    default_acceptance,
    default_rating_items,
    default_training,
    validate_acceptance,
    validate_items,
    validate_min_response_ms,
    validate_training,
)
from qoelab.studies.serializers import flatten_directions
from qoelab.studies.versioning import (
    create_scenario,
    max_scenarios,
    retire_scenario,
    study_is_locked,
    update_scenario,
)

DOCUMENT_FORMAT = "qoelab.study/v1"
RATING_SETTINGS = ("rating_items", "acceptance", "training", "min_response_ms", "quality_control")


class StudyDocumentError(ValueError):
    """The document is not a valid study definition; the message says where and why."""


class _GameEntry(serializers.Serializer[dict[str, Any]]):
    name = serializers.CharField(max_length=120, validators=[validate_label])
    pace = PaceField()
    genre = serializers.CharField(
        max_length=60, required=False, allow_blank=True, default="", validators=[validate_label]
    )


class _ScenarioEntry(serializers.Serializer[dict[str, Any]]):
    code = serializers.CharField(max_length=8, validators=[scenario_code_validator])
    # A field named "label" shadows Field.label in the stubs; DRF handles it at run time.
    label = serializers.CharField(  # type: ignore[assignment]
        max_length=120, required=False, allow_blank=True, default="", validators=[validate_label]
    )
    is_baseline = serializers.BooleanField(required=False, default=False)
    upstream = DirectionSerializer(required=False)
    downstream = DirectionSerializer(required=False)


class _StudyDocument(serializers.Serializer[dict[str, Any]]):
    format = serializers.ChoiceField(choices=[DOCUMENT_FORMAT])
    slug = serializers.SlugField(max_length=80)
    title = serializers.CharField(max_length=200, validators=[validate_label])
    description = serializers.CharField(required=False, allow_blank=True, default="")
    # Optional (documents written before it existed have none): see load_study_document.
    language = serializers.ChoiceField(choices=Language.choices, required=False)
    # Optional, like language: a rehearsal may run on dry-run agents in production.
    rehearsal = serializers.BooleanField(required=False)
    games = _GameEntry(many=True, allow_empty=False)
    scenarios = _ScenarioEntry(many=True, allow_empty=False)
    # The rating instrument (issue 15), optional: a document without them keeps the defaults.
    rating_items = serializers.JSONField(required=False)
    acceptance = serializers.JSONField(required=False)
    training = serializers.JSONField(required=False)
    min_response_ms = serializers.JSONField(required=False)
    quality_control = serializers.JSONField(required=False)  # ITU-T P.808 checks

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        """The rating settings checked as the study API checks them."""
        items = attrs.get("rating_items", default_rating_items())
        codes = {scenario["code"] for scenario in attrs["scenarios"]}
        checks: dict[str, Callable[[Any], Any]] = {
            "rating_items": validate_items,
            "acceptance": lambda value: validate_acceptance(value, items),
            "training": lambda value: validate_training(value, codes),
            "min_response_ms": validate_min_response_ms,
            "quality_control": lambda value: validate_quality_control(
                value, items=items, codes=codes
            ),
        }
        for name, check in checks.items():
            if name not in attrs:
                continue
            try:
                attrs[name] = check(attrs[name])
            except ValueError as exc:
                raise serializers.ValidationError({name: str(exc)}) from None
            if name == "rating_items":
                items = attrs[name]
        if "rating_items" in attrs and "acceptance" not in attrs:
            try:
                validate_acceptance(default_acceptance(), items)
            except ValueError:
                raise serializers.ValidationError(
                    {
                        "acceptance": "required: the default rule (overall >= 3) does not fit "
                        "the document's rating_items"
                    }
                ) from None
        return attrs

    def validate_games(self, games: list[dict[str, Any]]) -> list[dict[str, Any]]:
        _reject_duplicates([game["name"] for game in games], "game name")
        return games

    def validate_scenarios(self, scenarios: list[dict[str, Any]]) -> list[dict[str, Any]]:
        limit = max_scenarios()
        if len(scenarios) > limit:
            raise serializers.ValidationError(
                f"the document has {len(scenarios)} scenarios; a study may have at most "
                f"{limit} (QOELAB_MAX_SCENARIOS)"
            )
        _reject_duplicates([scenario["code"] for scenario in scenarios], "scenario code")
        baselines = [s["code"] for s in scenarios if s["is_baseline"]]
        if len(baselines) != 1:
            raise serializers.ValidationError(
                f"exactly one scenario must be the baseline; found {len(baselines)}"
                + (f" ({', '.join(baselines)})" if baselines else "")
            )
        return scenarios


def _reject_duplicates(values: list[str], what: str) -> None:
    seen: set[str] = set()
    for value in values:
        if value in seen:
            raise serializers.ValidationError(f"duplicate {what} {value!r}")
        seen.add(value)


def _flatten_errors(errors: Any, path: str = "") -> list[str]:
    if isinstance(errors, dict):
        return [
            message
            for key, value in errors.items()
            for message in _flatten_errors(value, _join_path(path, key))
        ]
    if isinstance(errors, list):
        if all(isinstance(item, str) for item in errors):
            return [_located(path or "document", item) for item in errors]
        return [
            message
            for index, value in enumerate(errors)
            if value
            for message in _flatten_errors(value, f"{path}[{index}]")
        ]
    return [f"{path or 'document'}: {errors}"]


def _located(path: str, message: str) -> str:
    """``path: message``, once: the profile check's messages start with their own path
    (``upstream.loss_pct: …``), which the document path already ends with."""
    head, separator, rest = message.partition(": ")
    if separator and " " not in head and path.endswith(head):
        return f"{path}: {rest}"
    return f"{path}: {message}"


def _join_path(path: str, key: object) -> str:
    if isinstance(key, int) or (isinstance(key, str) and key.isdigit()):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else str(key)


def validate_study_document(document: Any) -> dict[str, Any]:
    """Validate a study document; raise StudyDocumentError listing every problem."""
    if not isinstance(document, dict):
        raise StudyDocumentError("A study document is a JSON object.")
    parsed = _StudyDocument(data=document)
    if not parsed.is_valid():
        raise StudyDocumentError("; ".join(_flatten_errors(parsed.errors)))
    return dict(parsed.validated_data)


def read_study_document(path: Path) -> dict[str, Any]:
    """Read and validate a study document file."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise StudyDocumentError(f"{path}: no such file") from exc
    except json.JSONDecodeError as exc:
        raise StudyDocumentError(
            f"{path}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from exc
    try:
        return validate_study_document(document)
    except StudyDocumentError as exc:
        raise StudyDocumentError(f"{path}: {exc}") from exc


@dataclass(frozen=True)
class LoadResult:
    study: Study
    created: bool
    changed: bool


@transaction.atomic
def load_study_document(
    document: Any, owner: Any = None, *, create_only: bool = False
) -> LoadResult:
    """Create the study, or bring an existing one with the same slug in line with it.

    Games and scenarios are matched by name and code; entries missing from the document
    are removed. Scenario positions follow the document's order. A study with sessions
    keeps its rated scenario rows: changes become a new study version (see versioning).
    ``owner`` (a user) becomes the study's owner when given. ``language`` (the
    participant's screens, ``en`` or ``de``) is optional: a new study without it gets
    English, an existing study keeps its language unless the document names one;
    ``rehearsal`` likewise (default False: a dry-run agent is refused in production).
    ``create_only`` refuses a slug that exists; an analysis-only study is never changed.
    """
    data = validate_study_document(document)
    study, created = Study.objects.select_for_update().get_or_create(
        slug=data["slug"],
        defaults={
            "title": data["title"],
            "description": data["description"],
            "language": data.get("language", Language.EN),
            "rehearsal": data.get("rehearsal", False),
        },
    )
    if create_only and not created:
        raise StudyDocumentError(
            f"slug: a study {data['slug']!r} exists already; choose another slug"
        )
    if study.analysis_only:
        raise StudyDocumentError(f"slug: study '{study.slug}': {design_refusal('its design')}")
    changed = created
    if owner is not None and study.owner_id != owner.pk:
        study.owner = owner
        study.save(update_fields=["owner", "updated_at"])
        changed = True
    if not created and (study.title, study.description) != (data["title"], data["description"]):
        study.title, study.description = data["title"], data["description"]
        study.save(update_fields=["title", "description", "updated_at"])
        changed = True
    if not created and "language" in data and study.language != data["language"]:
        study.language = data["language"]
        study.save(update_fields=["language", "updated_at"])
        changed = True
    if not created and "rehearsal" in data and study.rehearsal != data["rehearsal"]:
        study.rehearsal = data["rehearsal"]
        study.save(update_fields=["rehearsal", "updated_at"])
        changed = True

    changed |= _sync_games(study, data["games"])
    changed |= _sync_scenarios(study, data["scenarios"])
    changed |= _sync_rating_settings(study, data)
    return LoadResult(study=study, created=created, changed=changed)


def _sync_rating_settings(study: Study, data: dict[str, Any]) -> bool:
    """Apply the document's rating settings; the items of a study with sessions are frozen."""
    changes = {
        name: data[name]
        for name in RATING_SETTINGS
        if name in data and getattr(study, name) != data[name]
    }
    if not changes:
        return False
    if "rating_items" in changes and study_is_locked(study):
        raise StudyDocumentError(
            "rating_items: the study has sessions; changing its rating items would relabel "
            "their ratings (import the design under a new slug instead)"
        )
    for name, value in changes.items():
        setattr(study, name, value)
    study.save(update_fields=[*changes, "updated_at"])
    if set(changes) & set(ANALYSIS_SETTINGS):
        bump_data_version(study)
    return True


def _sync_games(study: Study, games: list[dict[str, Any]]) -> bool:
    existing = {game.name: game for game in study.games.all()}
    wanted = {entry["name"] for entry in games}
    changed = False
    for name, game in existing.items():
        if name in wanted:
            continue
        if game_has_sessions(game):
            raise StudyDocumentError(
                f"game {name!r} has sessions and cannot be removed from the study"
            )
        game.delete()
        changed = True
    for entry in games:
        current = existing.get(entry["name"])
        if current is None:
            Game.objects.create(study=study, **entry)
            changed = True
        elif (current.pace, current.genre) != (entry["pace"], entry["genre"]):
            if game_has_sessions(current):
                raise StudyDocumentError(
                    f"game {current.name!r} has sessions; its pace and genre cannot change "
                    "(add the game under a new name instead)"
                )
            current.pace, current.genre = entry["pace"], entry["genre"]
            current.save(update_fields=["pace", "genre"])
            changed = True
    return changed


def game_has_sessions(game: Game) -> bool:
    return bool(game.sessions.exists())


def _sync_scenarios(study: Study, scenarios: list[dict[str, Any]]) -> bool:
    existing = {scenario.code: scenario for scenario in study.active_scenarios()}
    wanted = {entry["code"] for entry in scenarios}
    changed = False
    for code, scenario in existing.items():
        if code not in wanted:
            retire_scenario(scenario)
            changed = True
    # Clear the baseline flag first so the one-baseline constraint holds mid-update.
    new_baseline = next(s["code"] for s in scenarios if s["is_baseline"])
    old_baseline = next((s for s in study.active_scenarios() if s.is_baseline), None)
    if old_baseline is not None and old_baseline.code != new_baseline:
        existing[old_baseline.code] = update_scenario(old_baseline, {"is_baseline": False})
        changed = True
    for position, entry in enumerate(scenarios):
        values = flatten_directions(
            {
                **{k: v for k, v in entry.items() if k != "code"},
                "upstream": entry.get("upstream") or checked_direction("upstream", {}),
                "downstream": entry.get("downstream") or checked_direction("downstream", {}),
            }
        )
        values["position"] = position
        row = existing.get(entry["code"])
        if row is None:
            create_scenario(study, {"code": entry["code"], **values})
            changed = True
            continue
        if any(getattr(row, field) != value for field, value in values.items()):
            update_scenario(row, values)
            changed = True
    return changed


def export_study_document(study: Study) -> dict[str, Any]:
    """The study as a ``qoelab.study/v1`` document (the inverse of loading).

    The rating settings are written only where they differ from the defaults, so a study
    with the single ACR-5 item exports exactly as before they existed.
    """
    defaults = {
        "rating_items": default_rating_items(),
        "acceptance": default_acceptance(),
        "training": default_training(),
        "min_response_ms": DEFAULT_MIN_RESPONSE_MS,
        "quality_control": default_quality_control(),
    }
    settings = {
        name: getattr(study, name)
        for name, default in defaults.items()
        if getattr(study, name) != default
    }
    return {
        "format": DOCUMENT_FORMAT,
        "slug": study.slug,
        "title": study.title,
        "description": study.description,
        "language": study.language,
        # only a rehearsal says so (the default, a real study, keeps documents unchanged)
        **({"rehearsal": True} if study.rehearsal else {}),
        "games": [
            {"name": game.name, "pace": game.pace, "genre": game.genre}
            for game in study.games.all()
        ],
        "scenarios": [
            {
                "code": scenario.code,
                "label": scenario.label,
                "is_baseline": scenario.is_baseline,
                "upstream": compact_direction(scenario.direction("us")),
                "downstream": compact_direction(scenario.direction("ds")),
            }
            for scenario in study.active_scenarios()
        ],
        **settings,
    }
