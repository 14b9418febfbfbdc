"""Cloning a study: a new study with the same design and settings, and no data.

Copied: every setting of the study (:data:`~qoelab.studies.models.STUDY_SETTINGS`), the
games and the *current* scenarios (codes, labels, baseline, every impairment field,
positions). Not copied: sessions, ratings,
participants, members and retired scenario rows; the clone starts at version 1 with the
caller as its owner. Stations belong to the lab, not to a study, so nothing binds them.

A clone is always a runnable lab study, also of an analysis-only study (imported from a
dataset, issue 32): the copy of the dataset's design (games, conditions as scenarios,
rating items, questionnaire) to collect new ratings under, editable like any study. So it
is capped by ``QOELAB_MAX_SCENARIOS`` like any runnable design, not by the import's
``QOELAB_MAX_IMPORTED_CONDITIONS``; a dataset with more conditions is refused (400) with a
message that says so (design a study of fewer scenarios instead).
"""

from __future__ import annotations

from typing import Any

from django.db import transaction

from qoelab.core.errors import BadRequest
from qoelab.studies.models import STUDY_SETTINGS, Game, Scenario, Study
from qoelab.studies.versioning import SCENARIO_VALUE_FIELDS, check_scenario_count, max_scenarios


@transaction.atomic
def clone_study(source: Study, *, slug: str, title: str, owner: Any) -> Study:
    """Create the clone (the slug must be free: the caller checks it, the DB enforces it)."""
    scenarios = list(source.active_scenarios().order_by("position", "id"))
    if source.analysis_only and len(scenarios) > max_scenarios():
        raise BadRequest(
            f"study '{source.title}' was imported from a dataset with {len(scenarios)} "
            f"conditions; a clone is a runnable study of at most {max_scenarios()} scenarios "
            "(QOELAB_MAX_SCENARIOS): create a study and design fewer scenarios instead"
        )
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
