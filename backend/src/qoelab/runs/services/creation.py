"""Creating a session: checks, then the scenario order fixed once (seed and order stored)."""

from __future__ import annotations

import random
from typing import Any

from django.db import transaction

from qoelab.participants.models import Participant
from qoelab.runs.models import Session
from qoelab.runs.ordering import build_order, training_scenarios
from qoelab.runs.qc_plan import with_quality_control
from qoelab.runs.services.errors import InvalidInput, WrongState
from qoelab.runs.services.impairment import dry_run_refusal
from qoelab.runs.state_machine import State
from qoelab.stations.models import Station
from qoelab.studies.models import Game, OrderPolicy, Study


def analysis_only_refusal(study: Study) -> str:
    """Why a session of an analysis-only study (imported from a dataset) is refused."""
    return (
        f"study '{study.title}' is analysis-only (imported from a dataset): it cannot be run "
        "at a station; create a lab study to collect new ratings"
    )


def checked_backend(station: Station) -> str | None:
    """The agent backend the station's last check reported (None if never checked)."""
    capabilities = station.agent_capabilities
    backend = capabilities.get("backend") if isinstance(capabilities, dict) else None
    return backend if isinstance(backend, str) else None


def create_session(
    *,
    study: Study,
    participant: Participant,
    game: Game,
    station: Station | None,
    created_by: Any = None,
    seed: int | None = None,
) -> Session:
    """Create a session with its scenario order (seed and order are stored).

    One session per participant and game (aborted ones aside); the Latin-square row is the
    number of earlier sessions with the game, counted under the study's row lock.
    """
    if study.analysis_only:
        raise WrongState(analysis_only_refusal(study), field="study")
    if participant.study_id != study.pk:
        raise InvalidInput(
            f"participant {participant.code!r} belongs to another study", field="participant"
        )
    if participant.withdrawal:
        raise WrongState(f"participant {participant.code!r} was withdrawn", field="participant")
    if game.study_id != study.pk:
        raise InvalidInput(f"game {game.name!r} belongs to another study", field="game")
    if station is not None:
        refusal = dry_run_refusal(station, checked_backend(station), study.rehearsal)
        if refusal is not None:
            raise WrongState(refusal + " (as of the station's last check)", field="station")
    with transaction.atomic():
        study = Study.objects.select_for_update().get(pk=study.pk)
        if (
            Session.objects.filter(participant=participant, game=game)
            .exclude(state=State.ABORTED)
            .exists()
        ):
            raise WrongState(
                f"participant {participant.code!r} already has a session with "
                f"{game.name!r}; a further session needs another game",
                field="game",
            )
        scenarios = list(study.active_scenarios())
        if not any(s.is_baseline for s in scenarios):
            raise InvalidInput("the study has no baseline scenario", field="study")
        if seed is None:
            seed = random.SystemRandom().randrange(2**31)
        row = None
        if study.order_policy == OrderPolicy.LATIN_SQUARE:
            row = (
                Session.objects.filter(study=study, game=game).exclude(state=State.ABORTED).count()
            )
        order = build_order(
            scenarios,
            policy=study.order_policy,
            seed=seed,
            latin_square_row=row,
            retest_round=study.retest_round,
            training=training_scenarios(scenarios, study.training["scenarios"])
            if study.training.get("enabled")
            else [],
        )
        order = with_quality_control(order, study.quality_control, scenarios, seed=seed)
        return Session.objects.create(
            study=study,
            study_version=study.version,
            participant=participant,
            game=game,
            station=station,
            order_policy=study.order_policy,
            seed=seed,
            latin_square_row=row,
            order=order,
            created_by=created_by if getattr(created_by, "is_authenticated", False) else None,
        )
