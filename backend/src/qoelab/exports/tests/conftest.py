"""The import tests follow a job to its end in-process, with or without a broker."""

from __future__ import annotations

import pytest

from qoelab.studies.models import Game, Study


@pytest.fixture(autouse=True)
def _imports_in_process(tasks_in_process: None) -> None:
    """Every test here runs the import task in-process (see ``tasks_in_process``)."""


@pytest.fixture
def first_game(owned_example_study: Study) -> Game:
    """The researcher's copy of the example study's first game (by id)."""
    game = owned_example_study.games.order_by("id").first()
    assert game is not None
    return game
