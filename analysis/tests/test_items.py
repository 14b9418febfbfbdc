"""Splitting the long table per item; training rows removed before anything else."""

from __future__ import annotations

import pandas as pd
import pytest
from qoe_analysis import analyze
from qoe_analysis.items import item_of_rows, split_items
from qoe_analysis.scales import default_sidecar, parse_sidecar
from qoe_analysis.synthetic import generate_study
from qoe_analysis.synthetic_items import gaming_sidecar, generate_item_study
from qoe_analysis.tidy.validation import validate_ratings


def test_a_table_without_item_columns_is_one_item_unchanged() -> None:
    table = validate_ratings(generate_study(4, 4, seed=1)[0])
    split = split_items(table, default_sidecar())
    assert split.rated_keys == ["overall"] and split.tables["overall"] is table
    assert split.training_excluded == 0 and (split.long["item"] == "overall").all()


def test_the_implied_item_is_every_row_s_key_as_a_writable_object_array() -> None:
    table = validate_ratings(generate_study(3, 3, seed=2)[0])
    keys = item_of_rows(table, default_sidecar())
    assert keys.dtype == object and keys.shape == (len(table),) and keys.flags.writeable
    assert keys.tolist() == ["overall"] * len(table)


def test_training_rows_are_removed_and_counted_without_an_item_column() -> None:
    wide = generate_study(4, 4, seed=1)[0]
    training = wide.head(6).assign(rating=1, training=1)
    trained = pd.concat([training, wide.assign(training=0)], ignore_index=True)
    split = split_items(validate_ratings(trained), default_sidecar())
    assert split.training_excluded == 6
    kept = split.tables["overall"]
    assert "training" not in kept.columns and len(kept) == len(wide)
    assert kept["rating"].tolist() == wide["rating"].tolist()
    # and the document equals the one without training rows, bar the counter
    doc, plain = analyze(trained), analyze(wide)
    assert doc.pop("training") == {"excluded_rows": 6}
    plain.pop("training")
    assert doc == plain


def test_per_item_tables_drop_the_item_columns_and_cast_per_scale() -> None:
    sidecar = parse_sidecar(gaming_sidecar())
    split = split_items(
        validate_ratings(generate_item_study(4, 4, seed=2), sidecar=sidecar), sidecar
    )
    assert split.rated_keys == ["overall", "input_quality", "video_quality", "acceptance"]
    for key, table in split.tables.items():
        assert not {"item", "training", "response_ms", "since_end_ms"} & set(table.columns)
        assert table["rating"].dtype == ("float64" if "quality" in key else "int64"), key


def test_an_acceptance_item_without_ratings_is_refused() -> None:
    sidecar = gaming_sidecar()
    table = generate_item_study(4, 4, seed=2)
    table = table[table["item"] != "acceptance"]
    with pytest.raises(ValueError, match=r"acceptance\.item: item .acceptance. has no"):
        analyze(table, sidecar=parse_sidecar(sidecar))
