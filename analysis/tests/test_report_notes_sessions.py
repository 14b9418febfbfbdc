"""Sessions per game of the pilot notes, on integer codes: by hand and against grouping the
rows' text with pandas."""

from __future__ import annotations

import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st
from qoe_analysis.evidence.notes import _sessions_per_game
from qoe_analysis.stats.reliability import session_codes


def by_text(table: pd.DataFrame) -> dict[str, int]:
    """The reference: distinct (rater, session, game) rows as text, counted per game."""
    pairs = table[["rater_id", "session_id", "game"]].astype(str).drop_duplicates()
    return {str(g): int(n) for g, n in pairs.groupby("game", sort=True).size().items()}


def test_by_hand_with_an_unused_category() -> None:
    table = pd.DataFrame(
        {
            "rater_id": ["p1", "p1", "p1", "p2", "p2", "p3"],
            "session_id": ["s1", "s1", "s2", "s3", "s3", "s4"],
            "game": pd.Categorical(
                ["rpg", "rpg", "shooter", "rpg", "rpg", "rpg"],
                categories=["shooter", "rpg", "chess"],  # chess: no session
            ),
        }
    )
    assert _sessions_per_game(table) == {"rpg": 3, "shooter": 1}
    assert list(_sessions_per_game(table)) == ["rpg", "shooter"]  # text order
    # the report hands over the grouping the reliability rules made: the same counts
    assert _sessions_per_game(table, session_codes(table)) == {"rpg": 3, "shooter": 1}


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 4), st.integers(0, 6), st.sampled_from(["b", "a", "c"])),
        min_size=1,
        max_size=40,
    ),
    st.booleans(),
)
def test_equals_grouping_the_text(rows: list[tuple[int, int, str]], categorical: bool) -> None:
    table = pd.DataFrame(
        {
            "rater_id": [f"p{r}" for r, _, _ in rows],
            "session_id": [f"s{s}" for _, s, _ in rows],
            "game": [g for _, _, g in rows],
        }
    )
    if categorical:
        table = table.astype("category")
    assert _sessions_per_game(table) == by_text(table)
    assert list(_sessions_per_game(table)) == list(by_text(table))
