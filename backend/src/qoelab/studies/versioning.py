"""Scenario changes that never relabel ratings.

A study whose scenarios are referenced by sessions (and so, possibly, by ratings) is
*locked*: its scenario rows are then immutable. Changing a scenario retires the old row
(``retired_in_version``) and adds a new one; adding or removing a scenario likewise bumps
the study's version. Sessions keep pointing at the rows they were created with, ratings
at the row that was played, so an old rating keeps the impairment it was given under.
A study without sessions is edited in place (nothing can be mislabelled yet).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F, Max

from qoelab.core.errors import BadRequest
from qoelab.studies.models import Scenario, Study

SCENARIO_VALUE_FIELDS = (
    "label",
    "position",
    "is_baseline",
    "us_delay_ms",
    "us_jitter_ms",
    "us_loss_pct",
    "us_extra",
    "ds_delay_ms",
    "ds_jitter_ms",
    "ds_loss_pct",
    "ds_extra",
)
#: What a scenario row means for its ratings (the position only orders the editor's list
#: and new sessions; a session keeps its own order).
SCENARIO_MEANING_FIELDS = tuple(f for f in SCENARIO_VALUE_FIELDS if f != "position")
#: The model's defaults, for values an entry leaves out.
_UNSET_VALUES: dict[str, Any] = {
    "label": "",
    "is_baseline": False,
    **{f"{p}_{q}": 0.0 for p in ("us", "ds") for q in ("delay_ms", "jitter_ms", "loss_pct")},
    "us_extra": {},
    "ds_extra": {},
}


def max_scenarios() -> int:
    """The most scenarios a study may have (setting ``QOELAB_MAX_SCENARIOS``, default 100)."""
    return int(settings.QOELAB_MAX_SCENARIOS)


def check_scenario_count(count: int) -> None:
    """Refuse a study that would have more than :func:`max_scenarios` scenarios (400)."""
    limit = max_scenarios()
    if count > limit:
        raise BadRequest(
            f"The study would have {count} scenarios; a study may have at most {limit} "
            "(QOELAB_MAX_SCENARIOS)."
        )


def study_is_locked(study: Study) -> bool:
    """True when sessions reference the study's scenarios."""
    return bool(study.sessions.exists())


def _bump_version(study: Study) -> int:
    Study.objects.filter(pk=study.pk).update(version=F("version") + 1)
    study.refresh_from_db(fields=["version", "updated_at"])
    return study.version


def _lock(study: Study) -> Study:
    return Study.objects.select_for_update().get(pk=study.pk)


@transaction.atomic
def create_scenario(study: Study, values: dict[str, Any]) -> Scenario:
    study = _lock(study)
    check_scenario_count(study.active_scenarios().count() + 1)
    if "position" not in values:
        last = study.active_scenarios().aggregate(m=Max("position"))["m"]
        values = {**values, "position": 0 if last is None else last + 1}
    version = _bump_version(study) if study_is_locked(study) else study.version
    return Scenario.objects.create(study=study, version=version, **values)


@transaction.atomic
def update_scenario(scenario: Scenario, values: dict[str, Any]) -> Scenario:
    """Apply ``values``; returns the row that now holds them (a new row if versioned)."""
    study = _lock(scenario.study)
    scenario = Scenario.objects.select_for_update().get(pk=scenario.pk)
    code = values.get("code", scenario.code)
    changed = code != scenario.code or any(
        getattr(scenario, field) != value
        for field, value in values.items()
        if field in SCENARIO_VALUE_FIELDS
    )
    if not changed:
        return scenario
    if not study_is_locked(study):
        for field, value in values.items():
            setattr(scenario, field, value)
        scenario.save()
        return scenario
    version = _bump_version(study)
    Scenario.objects.filter(pk=scenario.pk).update(retired_in_version=version)
    fields = {field: getattr(scenario, field) for field in SCENARIO_VALUE_FIELDS}
    fields.update({k: v for k, v in values.items() if k in SCENARIO_VALUE_FIELDS})
    return Scenario.objects.create(study=study, code=code, version=version, **fields)


@transaction.atomic
def retire_scenario(scenario: Scenario) -> None:
    """Remove a scenario from the current version (deleted outright if never used)."""
    study = _lock(scenario.study)
    if not study_is_locked(study):
        scenario.delete()
        return
    version = _bump_version(study)
    Scenario.objects.filter(pk=scenario.pk).update(retired_in_version=version)


@transaction.atomic
def replace_scenarios(study: Study, entries: list[dict[str, Any]]) -> list[Scenario]:
    """Make ``entries`` (model values with ``code``, in order) the study's scenarios.

    An active row with the same code and the same meaning (label, baseline flag,
    impairment) is kept and only moves to its new position; every other active row is
    retired — deleted outright while the study has no sessions — and the new rows are
    created. A study with sessions gets one new version for the whole replacement.
    Returns the study's active scenarios in order.
    """
    study = _lock(study)
    check_scenario_count(len(entries))
    active = {
        s.code: s
        for s in Scenario.objects.select_for_update().filter(
            study=study, retired_in_version__isnull=True
        )
    }
    kept: dict[str, Scenario] = {}
    for entry in entries:
        row = active.get(entry["code"])
        if row is not None and all(
            getattr(row, field) == entry.get(field, _UNSET_VALUES[field])
            for field in SCENARIO_MEANING_FIELDS
        ):
            kept[row.code] = row
    gone = [row for code, row in active.items() if code not in kept]
    new = [entry for entry in entries if entry["code"] not in kept]
    locked = study_is_locked(study)
    version = _bump_version(study) if locked and (gone or new) else study.version
    if locked:
        Scenario.objects.filter(pk__in=[row.pk for row in gone]).update(retired_in_version=version)
    else:
        Scenario.objects.filter(pk__in=[row.pk for row in gone]).delete()
    for position, entry in enumerate(entries):
        row = kept.get(entry["code"])
        if row is None:
            values = {k: v for k, v in entry.items() if k in SCENARIO_VALUE_FIELDS}
            values["position"] = position
            Scenario.objects.create(study=study, code=entry["code"], version=version, **values)
        elif row.position != position:
            Scenario.objects.filter(pk=row.pk).update(position=position)
    return list(study.active_scenarios().order_by("position", "id"))
