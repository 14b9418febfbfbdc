"""Cloning a study: a new study with the same design and settings, and no data.

Copied: every setting of the study (:data:`~qoelab.studies.models.STUDY_SETTINGS`), the
games and the *current* scenarios (codes, labels, baseline, every impairment field,
positions). Not copied: sessions, ratings,
participants, members and retired scenario rows; the clone starts at version 1 with the
caller as its owner. Stations belong to the lab, not to a study, so nothing binds them.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction

from qoelab.studies.models import STUDY_SETTINGS, Game, Scenario, Study
from qoelab.studies.versioning import SCENARIO_VALUE_FIELDS, check_scenario_count


@transaction.atomic
def clone_study(source: Study, *, slug: str, title: str, owner: Any) -> Study:
    """Create the clone (the slug must be free: the caller checks it, the DB enforces it)."""
    scenarios = list(source.active_scenarios().order_by("position", "id"))
    check_scenario_count(len(scenarios))
    study = Study.objects.create(
        slug=slug,
        title=title,
        owner=owner,
        **{field: getattr(source, field) for field in STUDY_SETTINGS},
    )
    Game.objects.bulk_create(
        Game(study=study, name=game.name, pace=game.pace, genre=game.genre)
        for game in source.games.order_by("id")
    )
    Scenario.objects.bulk_create(
        Scenario(
            study=study,
            code=scenario.code,
            version=1,
            **{field: getattr(scenario, field) for field in SCENARIO_VALUE_FIELDS},
        )
        for scenario in scenarios
    )
    return study
