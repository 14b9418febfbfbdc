"""A synthetic ratings CSV for a study's design: as many rows as asked, all importable.

For the import job tests (the 40,000-row job; ``backend/bench/bench_import.py`` generates
its own, export-shaped file): rater ``<prefix>N`` plays every game of the study once,
rating every active scenario, so each session is one rater and one game; the ratings cycle
through the item's 1..5 scale. The impairment columns are the scenarios' own delay and
loss per direction.
"""

from __future__ import annotations

from collections.abc import Iterator

from netem_profile import flatten_direction

from qoelab.exports.tidy_cells import scenario_labels
from qoelab.studies.models import Study

HEADER = (
    "rater_id,session_id,game,game_pace,scenario,ds_delay_ms,us_delay_ms,ds_loss_pct,"
    "us_loss_pct,rating"
)


def scenario_cells(study: Study) -> list[str]:
    """Per active scenario, in position order, its CSV cells ``scenario,ds_delay_ms,
    us_delay_ms,ds_loss_pct,us_loss_pct`` (the label as the tidy export writes it)."""
    labels = scenario_labels(study)
    cells: list[str] = []
    for scenario in study.scenarios.filter(retired_in_version__isnull=True).order_by("position"):
        down = flatten_direction(scenario.direction("ds"))
        up = flatten_direction(scenario.direction("us"))
        cells.append(
            f"{labels[scenario.pk]},{down['delay_ms']:g},{up['delay_ms']:g},"
            f"{down['loss_pct']:g},{up['loss_pct']:g}"
        )
    return cells


def sample_lines(study: Study, rows: int, prefix: str = "S") -> Iterator[str]:
    """The header and ``rows`` data lines (newline-terminated)."""
    scenarios = scenario_cells(study)
    games = [f"{game.name},{game.pace}" for game in study.games.order_by("pk")]
    yield HEADER + "\n"
    written = 0
    rater = 0
    while written < rows:
        rater += 1
        for game_index, game in enumerate(games):
            for scenario_index, cells in enumerate(scenarios):
                if written == rows:
                    return
                rating = 1 + (rater + game_index + scenario_index) % 5
                session = f"{prefix}{rater}-{game_index}"
                yield f"{prefix}{rater},{session},{game},{cells},{rating}\n"
                written += 1


def sample_csv(study: Study, rows: int, prefix: str = "S") -> str:
    return "".join(sample_lines(study, rows, prefix))
