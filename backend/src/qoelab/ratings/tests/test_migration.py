"""The rating-items migrations: old ratings become the item "overall", old scales items."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

# runs 0001: the sessions made below have the columns of that time (later migrations of
# runs add NOT NULL columns that the old model state would not fill).
BEFORE = [
    ("studies", "0004_scenario_extra_fields"),
    ("runs", "0001_initial"),
    ("ratings", "0001_initial"),
]
AFTER = [
    ("studies", "0005_rating_items_training"),
    ("runs", "0001_initial"),
    ("ratings", "0002_rating_values"),
]


def migrate(targets: list[tuple[str, str]]) -> Any:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


@pytest.mark.django_db(transaction=True)
def test_scores_become_overall_values_and_scales_keep_their_range() -> None:
    old = migrate(BEFORE)
    Study = old.get_model("studies", "Study")
    acr = Study.objects.create(slug="acr", title="ACR")
    Study.objects.create(slug="seven", title="7", scale_labels=list("abcdefg"))
    game = old.get_model("studies", "Game").objects.create(study=acr, name="G", pace="fast")
    scenario = old.get_model("studies", "Scenario").objects.create(
        study=acr, code="B", is_baseline=True
    )
    participant = old.get_model("participants", "Participant").objects.create(study=acr, code="P1")
    session = old.get_model("runs", "Session").objects.create(
        study=acr,
        study_version=1,
        participant=participant,
        game=game,
        order_policy="random",
        seed=1,
        order=[{"scenario": scenario.pk, "code": "B", "round": 1}],
        token="t" * 20,
    )
    old.get_model("ratings", "Rating").objects.create(
        session=session,
        scenario=scenario,
        order_index=0,
        score=4,
        rated_at=timezone.now(),
        applied_profile={},
        idempotency_key="k" * 10,
        source="participant",
    )
    new = migrate(AFTER)
    rating = new.get_model("ratings", "Rating").objects.get()
    assert (rating.values, rating.training, rating.response_ms) == ({"overall": 4}, False, None)
    studies = {s.slug: s for s in new.get_model("studies", "Study").objects.all()}
    assert studies["acr"].rating_items[0]["key"] == "overall"
    assert studies["acr"].rating_items[0]["scale"]["kind"] == "acr5"
    assert studies["acr"].acceptance == {"item": "overall", "min": 3}
    scale = studies["seven"].rating_items[0]["scale"]
    assert (scale["kind"], scale["min"], scale["max"]) == ("discrete", 1, 7)
    assert [label["text"]["en"] for label in scale["labels"]] == list("abcdefg")
    # Leave every app fully migrated for the tests that follow.
    executor = MigrationExecutor(connection)
    migrate(executor.loader.graph.leaf_nodes())
