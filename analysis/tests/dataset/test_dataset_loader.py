"""The loader's rules on small hand-made tables (qoe_analysis.dataset.loader): cells read by
type, missing values per role, conversions, namespaces, derived sessions and scenario codes,
per-rater answers, and every problem at once."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest
from qoe_analysis.dataset.loader import load_dataset
from qoe_analysis.dataset.problems import DatasetError
from qoe_analysis.tidy.validation import is_validated

from .conftest import small_descriptor, small_rows, table


def problems(raw: dict[str, Any], tables: dict[str, pd.DataFrame], **kw: Any) -> list[str]:
    with pytest.raises(DatasetError) as caught:
        load_dataset(raw, tables, **kw)
    return caught.value.lines()  # file by file, by line


def test_a_small_dataset_becomes_the_validated_tidy_table() -> None:
    ds = load_dataset(small_descriptor(), {"a.csv": small_rows()})
    ratings = ds.ratings
    assert is_validated(ratings)  # analyze() takes it as it is
    assert len(ratings) == 12 and ratings["rating"].dtype == np.int64
    assert set(ratings["rater_id"].astype(str)) == {"Player_1", "Player_2", "Player_3"}
    # "both": the same value in both columns (the analysis merges them as both_delay_ms)
    assert (ratings["ds_delay_ms"] == ratings["us_delay_ms"]).all()
    assert ratings["game_pace"].astype(str).unique().tolist() == ["medium"]
    assert ds.items["acceptance"] == {"item": "qoe", "min": 4.0}
    codes = [w["code"] for w in ds.warnings]
    assert codes == ["derived_sessions", "generated_scenarios", "assumed_pace"]
    assert ds.summary["n_conditions"] == 4 and ds.summary["n_sessions"] == 3
    assert ds.origin["line"].tolist()[:3] == [2, 3, 4]


def test_missing_values_per_role() -> None:
    rows = small_rows()
    rows.loc[1, "QoE"] = "NA"  # a rating: dropped and counted
    rows.loc[2, "QoE"] = ""
    ds = load_dataset(small_descriptor(), {"a.csv": rows})
    assert len(ds.ratings) == 10
    assert ds.summary["ratings"] == {
        "read": 12,
        "kept": 10,
        "dropped": 2,
        "dropped_by_reason": {"missing value in qoe": 2},
    }
    assert ds.summary["missing"] == {"QoE": 2}
    assert "QoE 2 (ratings dropped)" in ds.warnings[0]["message"]
    rows.loc[4, "Player"] = "NA"  # a rater, a game, a factor: a problem each, with its line
    rows.loc[5, "Game"] = " "
    rows.loc[6, "Delay"] = ""
    assert problems(small_descriptor(), {"a.csv": rows}) == [
        "a.csv, line 6, column 'Player', value 'NA': every rating has a rater: the cell is missing",
        "a.csv, line 7, column 'Game': every rating has a game: the cell is missing",
        "a.csv, line 8, column 'Delay': every rating has its network condition: the cell is "
        "missing",
    ]


def test_type_mismatch_and_ratings_off_the_scale_are_listed_with_their_lines() -> None:
    rows = small_rows()
    rows.loc[0, "QoE"] = "7"
    rows.loc[3, "QoE"] = "4.5"
    rows.loc[5, "Delay"] = "fast"
    rows.loc[6, "Delay"] = "-5"
    assert problems(small_descriptor(), {"a.csv": rows}) == [
        "a.csv, line 2, column 'QoE', value '7': a rating of item qoe is an integer from 0 to 6 "
        "(the field's scale)",
        "a.csv, line 5, column 'QoE', value '4.5': a value of type integer is a whole number",
        "a.csv, line 7, column 'Delay', value 'fast': a value of type number is a decimal number "
        "(digits, one decimal mark '.')",
        "a.csv, line 8, column 'Delay', value '-5': delay lies in the registry's range 0 to 60000 "
        "ms (after conversion from ms)",
    ]


def test_units_convert_to_the_registry_units() -> None:
    raw = small_descriptor()
    raw["schema"]["fields"][3]["unit"] = "s"
    raw["schema"]["fields"].append(
        {"name": "Loss", "role": "factor", "factor": "loss", "direction": "upstream",
         "unit": "fraction"}
    )  # fmt: skip
    rows = small_rows(delays=(0, 1))
    rows["Delay"] = ["0.05", "0.1"] * 3
    rows["Loss"] = ["0.005", "0.03"] * 3
    ratings = load_dataset(raw, {"a.csv": rows}).ratings
    assert ratings["ds_delay_ms"].tolist()[:2] == [50.0, 100.0]
    assert ratings["us_loss_pct"].tolist()[:2] == [0.5, 3.0]  # exactly: 0.005 × 100 rounded


def test_files_merge_with_namespaces_and_a_context_factor() -> None:
    raw = small_descriptor()
    raw["resources"] = [
        {"path": "wired.csv", "namespace": "wired", "context": {"testbed": "wired"}},
        {"path": "mobile.csv", "context": {"testbed": "mobile"}},  # namespace: its file's name
    ]
    ds = load_dataset(raw, {"wired.csv": small_rows(), "mobile.csv": small_rows(2)})
    raters = set(ds.ratings["rater_id"].astype(str))
    assert "wired.Player_1" in raters and "mobile.Player_1" in raters and len(raters) == 5
    assert ds.summary["rater_namespaces"] == {"mobile": 2, "wired": 3}
    assert set(ds.ratings["testbed"].astype(str)) == {"wired", "mobile"}
    assert [f["ratings_kept"] for f in ds.summary["files"]] == [12, 8]


def test_a_repeated_condition_starts_a_new_derived_session() -> None:
    rows = table(
        [["P1", "Racing", "5", "0"], ["P1", "Racing", "3", "100"], ["P1", "Racing", "4", "0"],
         ["P1", "Puzzle", "5", "0"], ["P1", "Racing", "2", "100"]],
        ["Player", "Game", "QoE", "Delay"],
    )  # fmt: skip
    ds = load_dataset(small_descriptor(), {"a.csv": rows})
    sessions = ds.ratings["session_id"].astype(str).tolist()
    # rows 1-2 one session; row 3 repeats delay 0: a new one, which row 5 continues
    assert sessions == ["P1.s1", "P1.s1", "P1.s2", "P1.s3", "P1.s2"]
    assert ds.summary["sessions_from_repeats"] == 1
    assert "1 of them begun where a rater rated a condition again" in ds.warnings[0]["message"]


def test_scenario_codes_follow_the_sorted_conditions_not_the_row_order() -> None:
    rows = small_rows()
    ds = load_dataset(small_descriptor(), {"a.csv": rows})
    shuffled = load_dataset(small_descriptor(), {"a.csv": rows.iloc[::-1].reset_index(drop=True)})
    code = dict(zip(ds.ratings["ds_delay_ms"], ds.ratings["scenario"].astype(str), strict=True))
    assert code == {0.0: "C0001", 50.0: "C0002", 100.0: "C0003", 200.0: "C0004"}
    scenarios = shuffled.ratings["scenario"].astype(str)
    assert dict(zip(shuffled.ratings["ds_delay_ms"], scenarios, strict=True)) == code


def test_a_condition_without_a_rating_gets_no_scenario_code() -> None:
    """Only conditions that keep a rating are counted and coded (the web import makes a
    scenario per code: the warning and the import's count agree)."""
    rows = small_rows()
    rows.loc[rows["Delay"] == "50", "QoE"] = "NA"  # delay 50: every rating missing
    ds = load_dataset(small_descriptor(), {"a.csv": rows})
    code = dict(zip(ds.ratings["ds_delay_ms"], ds.ratings["scenario"].astype(str), strict=True))
    assert code == {0.0: "C0001", 100.0: "C0002", 200.0: "C0003"}
    assert ds.summary["n_conditions"] == 3
    (generated,) = [w for w in ds.warnings if w["code"] == "generated_scenarios"]
    expected = "3 scenario codes generated, one per distinct condition rated (C0001 to C0003"
    assert expected in generated["message"]
    raw = small_descriptor()
    raw["schema"]["fields"].append({"name": "Scenario", "role": "scenario"})
    rows["Scenario"] = ["B", "D50", "D100", "D200"] * 3  # declared codes: counted alike
    assert load_dataset(raw, {"a.csv": rows}).summary["n_conditions"] == 3


def test_declared_sessions_and_scenarios_are_checked() -> None:
    raw = small_descriptor()
    raw["schema"]["fields"] += [
        {"name": "Session", "role": "session"},
        {"name": "Scenario", "role": "scenario"},
    ]
    rows = small_rows(1)
    rows["Session"] = ["1", "1", "1", "1"]
    rows["Scenario"] = ["B", "D1", "D2", "D1"]  # D1 with two delays
    rows.loc[3, "Game"] = "Puzzle"  # session 1 with two games
    assert problems(raw, {"a.csv": rows}) == [
        "a.csv, line 5, column 'Delay', value '200': each scenario has one network condition: "
        "Scenario 'D1' has Delay '50' on line 3",
        "a.csv, line 5, column 'Game', value 'Puzzle': a session is one rater playing one game: "
        "Session 'Player_1.1' has Game 'Racing' on line 2",
        "a.csv, line 5, column 'Scenario': a session rates each scenario once: rater Player_1 "
        "rated scenario D1 in session Player_1.1 on line 3",
    ]


def test_questionnaire_answers_are_per_rater_and_gaps_are_a_level() -> None:
    raw = small_descriptor()
    raw["schema"]["fields"] += [
        {"name": "Age", "type": "integer", "role": "questionnaire"},
        {"name": "Hours", "type": "string", "role": "questionnaire"},
        {"name": "CPU", "type": "number", "role": "covariate"},
    ]
    rows = small_rows()
    rows["Age"] = ["30", "", "30", "30", "25", "25", "25", "25", "", "", "", ""]
    rows["Hours"] = ["a", "a", "a", "a", "b", "b", "b", "b", "c", "c", "c", "c"]
    rows["CPU"] = ["50", "", "70", "80"] * 3
    ds = load_dataset(raw, {"a.csv": rows})
    ages = ds.ratings["Age"].astype(str).tolist()
    assert ages[:4] == ["30"] * 4  # the gap takes the rater's answer
    assert ages[8:] == ["(missing)"] * 4  # a rater who never answered: a level of its own
    assert ds.ratings["Hours"].dtype.name == "category" and "CPU" not in ds.ratings.columns
    assert ds.covariates["CPU"].iloc[0] == 50.0 and np.isnan(ds.covariates["CPU"].iloc[1])
    assert ds.summary["unanswered"] == {"Age": 1}
    assert ds.summary["missing"] == {"Age": 5, "CPU": 3}
    rows.loc[2, "Age"] = "31"
    assert problems(raw, {"a.csv": rows}) == [
        "a.csv, line 4, column 'Age', value '31': a questionnaire answer is one per session: "
        "rater Player_1 answered '30' on line 2"
    ]


def test_undeclared_columns_are_named_and_refused_when_strict() -> None:
    rows = small_rows()
    rows["Play again"] = "yes"
    ds = load_dataset(small_descriptor(), {"a.csv": rows})
    assert "Play again" not in ds.ratings.columns
    warning = ds.warnings[0]
    assert warning["code"] == "undeclared_columns" and "Play again" in warning["message"]
    assert problems(small_descriptor(), {"a.csv": rows}, strict=True) == [
        "a.csv, line 1, column 'Play again': the descriptor does not declare this column "
        "(--strict): give it a role, or the role ignore"
    ]


def test_pace_from_a_column_or_game_paces() -> None:
    raw = small_descriptor()
    raw["game_paces"] = {"Racing": "fast"}
    assert load_dataset(raw, {"a.csv": small_rows()}).ratings["game_pace"].iloc[0] == "fast"
    raw["game_paces"] = {"Puzzle": "slow"}
    assert problems(raw, {"a.csv": small_rows()}) == [
        "a.csv, line 2, column 'Game', value 'Racing': game_paces gives no pace for this game"
    ]
    raw = small_descriptor()
    raw["schema"]["fields"].append({"name": "Pace", "role": "pace"})
    rows = small_rows()
    rows["Pace"] = ["Fast"] * 11 + ["warp"]
    assert problems(raw, {"a.csv": rows}) == [
        "a.csv, line 13, column 'Pace', value 'warp': a pace is one of fast, medium, slow"
    ]


def test_several_rating_fields_make_a_long_table() -> None:
    raw = small_descriptor()
    raw["schema"]["fields"].append(
        {"name": "Video", "type": "number", "role": "rating", "scale": {"min": 1, "max": 7}}
    )
    rows = small_rows()
    rows["Video"] = ["6.5", "NA", "3", "2"] * 3
    ds = load_dataset(raw, {"a.csv": rows})
    assert ds.ratings["item"].astype(str).tolist()[:3] == ["qoe", "video", "qoe"]
    assert len(ds.ratings) == 12 + 9 and [i["key"] for i in ds.items["items"]] == ["qoe", "video"]


def test_a_missing_file_or_column_is_a_problem() -> None:
    raw = small_descriptor()
    raw["resources"].append({"path": "b.csv"})
    raw["schema"]["fields"].append({"name": "CPU", "role": "covariate"})
    assert problems(raw, {"a.csv": small_rows()}) == [
        "a.csv, line 1, column 'CPU': the descriptor declares this column but the file has none "
        "(list it in the resource's missing_fields)",
        "b.csv: no table was given for this resource",
    ]
    raw["resources"] = [{"path": "a.csv", "missing_fields": ["CPU"]}]
    assert load_dataset(raw, {"a.csv": small_rows()}).covariates["CPU"].isna().all()
