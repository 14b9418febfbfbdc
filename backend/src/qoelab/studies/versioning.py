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

from django.db import transaction
from django.db.models import F, Max

from qoelab.studies.models import Scenario, Study

SCENARIO_VALUE_FIELDS = (
    "label",
    "position",
    "is_baseline",
    "us_delay_ms",
    "us_jitter_ms",
    "us_loss_pct",
    "ds_delay_ms",
    "ds_jitter_ms",
    "ds_loss_pct",
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
