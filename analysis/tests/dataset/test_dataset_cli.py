"""``qoe-analysis analyze --dataset`` on the P.809-like dataset of fixtures/data/p809_dataset
(issue 32's acceptance): analysed with no conversion code, undeclared columns named and not
analysed, the parts' "Player 1"s kept apart, bad descriptors refused with every problem and
nothing written; the fixture is what its generator writes."""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import shutil
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from qoe_analysis.cli import main
from qoe_analysis.dataset.reading import load_dataset_file
from qoe_analysis.schema.export import document_schema

from .conftest import DATASET, DESCRIPTOR, REPO


def run(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def analysed(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], str, Path]:
    out = tmp_path_factory.mktemp("p809") / "out"
    code, stdout, stderr = run(
        "analyze", "--dataset", str(DESCRIPTOR), "--out", str(out), "--no-plots"
    )
    assert code == 0, stderr
    return json.loads(stdout), stderr, out


def test_the_fixture_is_what_its_generator_writes(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location(
        "make", REPO / "fixtures/data/make_p809_dataset.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.main(tmp_path)
    names = sorted(p.name for p in DATASET.iterdir())
    assert names == ["descriptor.json", "mobile.csv", "wired_a.csv", "wired_b.csv"]
    for name in names:
        assert (tmp_path / name).read_bytes() == (DATASET / name).read_bytes(), name


def test_the_cli_analyses_the_dataset(analysed: tuple[dict[str, Any], str, Path]) -> None:
    doc, stderr, out = analysed
    assert json.loads((out / "analysis.json").read_text()) == doc
    meta = doc["meta"]
    assert meta["games"] == {"Racing": "fast", "Puzzle": "slow"}
    assert meta["primary_item"] == "quality" and meta["acceptance"] == {"item": "quality", "min": 4}
    dataset = meta["dataset"]
    assert dataset["n_raters"] == meta["n_raters"] == 16 + 14 + 12
    assert dataset["ratings"]["kept"] == meta["n_ratings"]
    assert dataset["sessions"] == "derived" and dataset["sessions_from_repeats"] > 0
    assert dataset["scenarios"] == "generated" and dataset["n_conditions"] > 1000
    # a code per condition rated: 21 conditions whose only ratings are missing get none
    codes = {c["scenario"] for c in doc["conditions"]}
    assert dataset["n_conditions"] == len(codes) == 1551 and max(codes) == "C1551"
    errors = jsonschema.Draft202012Validator(document_schema()).iter_errors(
        json.loads(json.dumps(doc))
    )
    assert [e.message for e in errors] == []
    # stderr: the loader's warnings first, as the document has them
    assert stderr.splitlines()[0].startswith("warning: [undeclared_columns] meta.dataset:")


def test_undeclared_and_ignored_columns_are_never_factors(
    analysed: tuple[dict[str, Any], str, Path],
) -> None:
    doc = analysed[0]
    factors = doc["meta"]["factors"]
    assert doc["meta"]["dataset"]["undeclared_columns"] == ["Round", "Comment"]
    warning = doc["warnings"][0]
    assert warning["code"] == "undeclared_columns" and "Round, Comment" in warning["message"]
    for column in ("Round", "Comment", "Play again", "CPU [%]", "Play time [s]"):
        assert column not in factors and column not in json.dumps(doc["tree"]["rules"])
    # the context and the questionnaire answers are analysed as rater/session factors
    assert {"testbed", "Age", "Gaming hours"} <= set(factors)
    assert set(doc["weights"]["weka"]) == set(factors)


def test_the_parts_keep_their_player_1_apart(analysed: tuple[dict[str, Any], str, Path]) -> None:
    doc = analysed[0]
    raters = {row["rater_id"] for row in doc["reliability"]["rater_status"]}
    assert {"wired-a.Player_1", "wired-b.Player_1", "mobile.Player_1"} <= raters
    assert doc["meta"]["dataset"]["rater_namespaces"] == {
        "mobile": 12,
        "wired-a": 16,
        "wired-b": 14,
    }


def _bad_dataset(tmp_path: Path) -> Path:
    """The fixture's files with a descriptor that names a missing column, gives a column two
    roles, an unknown unit and a scale the ratings fall outside of."""
    for csv in DATASET.glob("*.csv"):
        shutil.copy(csv, tmp_path / csv.name)
    raw = json.loads(DESCRIPTOR.read_text())
    fields = raw["schema"]["fields"]
    fields.append({"name": "Ping [ms]", "type": "number", "role": "covariate"})
    fields.append({"name": "Game", "type": "string", "role": "questionnaire"})
    by_name = {f["name"]: f for f in fields}
    by_name["DL delay [ms]"]["unit"] = "furlong"
    by_name["QoE"].update(scale={"min": 1, "max": 5}, acceptable_from=3)
    path = tmp_path / "descriptor.json"
    path.write_text(json.dumps(raw))
    return path


def test_a_bad_descriptor_is_refused_with_every_problem_and_nothing_written(tmp_path: Path) -> None:
    out = tmp_path / "out"
    code, stdout, stderr = run(
        "analyze", "--dataset", str(_bad_dataset(tmp_path)), "--out", str(out)
    )
    assert code == 2 and stdout == "" and not out.exists()
    lines = stderr.splitlines()
    assert lines[0].startswith("qoe-analysis: invalid dataset: ") and lines[0].endswith(
        " problems:"
    )
    text = "\n".join(lines)
    assert (
        "descriptor.json, column 'DL delay [ms]', value 'furlong': unit of delay_ms is one of"
        in text
    )
    assert (
        "descriptor.json, column 'Game': one field per column: the column has roles game and"
        in text
    )
    assert "wired_a.csv, line 1, column 'Ping [ms]': the descriptor declares this column" in text
    assert "mobile.csv, line 1, column 'Ping [ms]'" in text  # every file, not the first only
    assert "column 'QoE', value '6': a rating of item quality is an integer from 1 to 5" in text
    assert lines[-1].startswith("  … and ") and "np." not in text


def test_strict_refuses_the_undeclared_columns(tmp_path: Path) -> None:
    code, _, stderr = run(
        "analyze", "--dataset", str(DESCRIPTOR), "--strict", "--out", str(tmp_path / "o")
    )
    assert code == 2 and not (tmp_path / "o").exists()
    assert "6 problems" in stderr.splitlines()[0]  # Round and Comment in each of 3 files
    assert (
        "mobile.csv, line 1, column 'Comment': the descriptor does not declare this column"
        in stderr
    )


def test_the_input_is_a_ratings_file_or_a_dataset() -> None:
    for args in (["analyze"], ["analyze", "r.csv", "--dataset", "d.json"]):
        with pytest.raises(SystemExit) as exited:
            run(*args)
        assert exited.value.code == 2
    with pytest.raises(SystemExit):
        run("analyze", "--dataset", "d.json", "--items", "i.json")


def test_a_yaml_descriptor_reads_the_same(tmp_path: Path) -> None:
    for csv in DATASET.glob("*.csv"):
        shutil.copy(csv, tmp_path / csv.name)
    (tmp_path / "descriptor.yaml").write_text(yaml.safe_dump(json.loads(DESCRIPTOR.read_text())))
    from_yaml = load_dataset_file(tmp_path / "descriptor.yaml")
    from_json = load_dataset_file(DESCRIPTOR)
    assert from_yaml.ratings.equals(from_json.ratings)
    assert from_yaml.summary == from_json.summary


def test_policy_export_takes_a_dataset() -> None:
    code, stdout, stderr = run(
        "policy", "export", "--dataset", str(DESCRIPTOR), "--generated-at", "2026-01-02T03:04:05Z"
    )
    assert code == 0, stderr
    policy = json.loads(stdout)
    assert policy["provenance"]["source"] == "descriptor.json"
    assert {"fast", "slow"} <= {c["pace"] for c in policy["classes"]}


def test_an_unreadable_descriptor_is_one_problem(tmp_path: Path) -> None:
    (tmp_path / "d.json").write_text('{"profile": "qoe-lab-dataset",\n "resources": [}')
    code, _, stderr = run("analyze", "--dataset", str(tmp_path / "d.json"))
    assert code == 2
    assert stderr.splitlines() == [
        "qoe-analysis: invalid dataset: 1 problem:",
        "  d.json: the descriptor is not JSON (Expecting value, line 2)",
    ]
    code, _, stderr = run("analyze", "--dataset", str(tmp_path / "none.json"))
    assert code == 2 and "No such file or directory" in stderr
