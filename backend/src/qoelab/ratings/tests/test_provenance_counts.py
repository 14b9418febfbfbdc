"""Issue 35, "Counts disagree": the study's ratings per agent backend count the ratings the
analysis counts (training ratings count nowhere), so "N of M ratings were taken on a dry-run
agent" and the results' "M ratings" agree."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from qoelab.participants.models import Participant
from qoelab.ratings.models import Rating
from qoelab.ratings.provenance import ratings_by_backend
from qoelab.runs.services import create_session
from qoelab.studies.models import Study


def _rate(study: Study, backends: list[tuple[str, bool]]) -> None:
    """One rating per (backend, training) pair, in one session of ``study``."""
    participant = Participant.objects.create(study=study, code="P1", age=30, skill="high")
    game = study.games.order_by("id").first()
    assert game is not None
    session = create_session(study=study, participant=participant, game=game, station=None, seed=3)
    scenario = study.scenarios.order_by("id").first()
    assert scenario is not None
    for index, (backend, training) in enumerate(backends):
        Rating.objects.create(
            session=session,
            scenario=scenario,
            order_index=index,
            values={"overall": 3},
            training=training,
            rated_at=datetime(2026, 1, 1, tzinfo=UTC),
            applied_profile=scenario.profile(),
            provenance={"backend": backend},
            idempotency_key=f"key-{index}",
            source="participant",
        )


@pytest.mark.django_db
def test_training_ratings_are_not_counted_per_backend(example_study: Study) -> None:
    _rate(
        example_study,
        [("dry-run", True), ("dry-run", True), ("dry-run", False), ("netlink", False)],
    )
    assert ratings_by_backend(example_study) == {"dry-run": 1, "netlink": 1}


@pytest.mark.django_db
def test_a_study_rated_only_in_training_has_no_rating_per_backend(example_study: Study) -> None:
    _rate(example_study, [("dry-run", True)])
    assert ratings_by_backend(example_study) == {}
