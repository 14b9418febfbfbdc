"""Issue 32, acceptance: a P.809-like randomised dataset through the web import.

The researcher opens "Import a dataset" from the studies page, chooses the three CSV files
of fixtures/data/p809_dataset/ and their descriptor, and the column mapping shows each
column with the descriptor's role; the two columns the descriptor does not declare (Round,
Comment) are "not declared", said not to be analysed. "Download descriptor" saves the JSON
the mapping writes: the same roles. "Import" runs a background job (a Celery worker) that
makes one new analysis-only study; the job's summary counts the loader's ratings, raters,
sessions and conditions and its undeclared_columns warning names Round and Comment. The
new study's results page analyses it as it would a lab study: the marginals figure shows
MOS by level of a network factor and of the context factor, and no undeclared column is a
factor anywhere.

Bad input: a descriptor naming a column no file has AND giving two roles to one column is
refused at once with both problems listed on the page; no study is written.

No conversion code: the files and the descriptor go in exactly as the fixture has them.
"""

from __future__ import annotations

import copy
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from flows import ANALYSIS_TIMEOUT_MS, sign_in
from live_server import REPO, LiveApp
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

TIMEOUT_MS = 60_000
#: A job on a busy CI machine: the import reads ~1,800 rows and writes ~1,500 scenarios.
IMPORT_TIMEOUT_MS = 300_000
DATASET = REPO / "fixtures" / "data" / "p809_dataset"
CSV_FILES = ["wired_a.csv", "wired_b.csv", "mobile.csv"]
UNDECLARED = ["Round", "Comment"]
#: The marginals chart's factors checked: its label on the page → the tidy column.
MARGINAL_FACTORS = {"Delay, downstream (ms)": "ds_delay_ms", "testbed": "testbed"}
#: The field of the bad descriptor that no file has: a covariate, a role a file may lack
#: when the descriptor says so (missing_fields), which this one does not.
MISSING_COLUMN = "Ping [ms]"


def descriptor() -> dict[str, Any]:
    return dict(json.loads((DATASET / "descriptor.json").read_text(encoding="utf-8")))


@dataclass(frozen=True)
class Expected:
    """What the CLI's loader makes of the same files (``qoe-analysis analyze --dataset``):
    the web import must give the same counts."""

    summary: str
    ratings: int
    sessions: int
    conditions: int
    #: Chart label → its points: one per level in each game and over all games pooled.
    points: dict[str, int]


def expected() -> Expected:
    from qoe_analysis.dataset.reading import load_dataset_file

    loaded = load_dataset_file(DATASET / "descriptor.json")
    s, ratings = loaded.summary, loaded.ratings
    counts = s["ratings"]
    points = {
        label: int(ratings.groupby("game")[column].nunique().sum()) + ratings[column].nunique()
        for label, column in MARGINAL_FACTORS.items()
    }
    return Expected(
        summary=f"{counts['kept']} ratings kept of {counts['read']} ({counts['dropped']} without"
        f" a rating dropped), {s['n_raters']} raters, {s['n_sessions']} sessions,"
        f" {s['n_conditions']} conditions.",
        ratings=len(ratings),
        sessions=int(s["n_sessions"]),
        conditions=int(s["n_conditions"]),
        points=points,
    )


def roles_of(doc: dict[str, Any]) -> dict[str, str]:
    return {str(f["name"]): str(f["role"]) for f in doc["schema"]["fields"]}


def study_ids(page: Any, app: LiveApp) -> set[int]:
    response = page.request.get(f"{app.url}/api/v1/studies/")
    assert response.ok, f"studies: {response.status} {response.text()[:300]}"
    body = response.json()
    rows = body["results"] if isinstance(body, dict) else body
    return {int(row["id"]) for row in rows}


def read_columns(page: Any, descriptor_file: Path) -> Any:
    """The studies page's link, the files and the descriptor, then "Read the columns"."""
    page.get_by_role("link", name="Import a dataset").click()
    page.get_by_role("heading", name="Import a dataset", level=2).wait_for()
    page.get_by_label("Data files (CSV)").set_input_files([str(DATASET / n) for n in CSV_FILES])
    page.get_by_label("Descriptor (optional, JSON or YAML)").set_input_files(str(descriptor_file))
    page.get_by_role("button", name="Read the columns").click()
    mapping = page.get_by_role("table", name="Column mapping")
    mapping.wait_for()
    return mapping


def check_mapping(page: Any, mapping: Any, given: dict[str, Any]) -> None:
    """Every declared column with its role, the undeclared ones "not declared"."""
    for name, role in roles_of(given).items():
        expect(mapping.get_by_label(f"Role of {name}", exact=True)).to_have_value(role)
    rows = mapping.get_by_test_id("mapping-column")
    columns = {c.strip() for n in CSV_FILES for c in (DATASET / n).open().readline().split(",")}
    expect(rows).to_have_count(len(columns))
    undeclared = mapping.locator("tr[data-testid='mapping-column'][data-role='']")
    expect(undeclared).to_have_count(len(UNDECLARED))
    for name in UNDECLARED:
        row = mapping.locator(f"tr[data-column='{name}']")
        expect(row.get_by_label(f"Role of {name}")).to_have_value("")
        expect(row).to_contain_text("Not analysed; named in the warning of undeclared columns.")
    # The rating's scale and the factors' units as the descriptor gives them.
    expect(mapping.get_by_label("Scale minimum of QoE")).to_have_value("0")
    expect(mapping.get_by_label("Scale maximum of QoE")).to_have_value("6")
    expect(mapping.get_by_label("Acceptable from of QoE")).to_have_value("4")
    expect(mapping.get_by_label("Unit of DL loss")).to_have_value("fraction")
    expect(mapping.get_by_label("Direction of UL delay [ms]")).to_have_value("upstream")
    expect(page.get_by_label("Namespace of mobile.csv")).to_have_value("mobile")
    expect(page.get_by_label("Study title")).to_have_value(given["title"])


def check_download(page: Any, given: dict[str, Any]) -> None:
    """The descriptor the mapping writes: the given roles, resources and scale."""
    with page.expect_download() as info:
        page.get_by_role("link", name="Download descriptor").click()
    download = info.value
    assert download.suggested_filename == "descriptor.json"
    written = json.loads(Path(download.path()).read_text(encoding="utf-8"))
    assert roles_of(written) == roles_of(given), roles_of(written)
    assert not set(UNDECLARED) & set(roles_of(written))
    assert written["resources"] == given["resources"], written["resources"]
    assert written["game_paces"] == given["game_paces"]
    quality = next(f for f in written["schema"]["fields"] if f["name"] == "QoE")
    assert quality["scale"] == {"min": 0, "max": 6} and quality["acceptable_from"] == 4, quality


def import_and_wait(page: Any) -> Any:
    page.get_by_role("button", name="Import", exact=True).click()
    imported = page.get_by_test_id("dataset-imported")
    # The job's end, either way: its summary, or every problem it found.
    page.locator("[data-testid='dataset-imported'], [data-testid='dataset-problems']").wait_for(
        timeout=IMPORT_TIMEOUT_MS
    )
    problems = page.get_by_test_id("dataset-problems")
    assert problems.count() == 0, problems.inner_text()
    return imported


def check_imported(page: Any, app: LiveApp, imported: Any, before: set[int], want: Expected) -> int:
    """The job's summary and warnings on the page; one new analysis-only study."""
    expect(imported.get_by_test_id("dataset-summary")).to_have_text(want.summary)
    warnings = imported.get_by_test_id("dataset-warnings")
    undeclared = warnings.locator("li[data-code='undeclared_columns']")
    expect(undeclared).to_have_count(1)
    expect(undeclared).to_contain_text(", ".join(UNDECLARED))
    for code in ("missing_values", "derived_sessions", "generated_scenarios"):
        expect(warnings.locator(f"li[data-code='{code}']")).to_have_count(1)
    link = imported.get_by_test_id("dataset-results-link")
    match = re.search(r"/console/studies/(\d+)/results$", link.get_attribute("href") or "")
    assert match, link.get_attribute("href")
    study_id = int(match.group(1))
    after = study_ids(page, app)
    assert after - before == {study_id}, (sorted(before), sorted(after))
    study = page.request.get(f"{app.url}/api/v1/studies/{study_id}/").json()
    assert study["analysis_only"] is True, study
    assert len(study["scenarios"]) == want.conditions
    return study_id


def marginal_factors(figure: Any) -> list[str]:
    options = figure.get_by_label("Factor", exact=True).locator("option")
    return [t.strip() for t in options.all_inner_texts()]


def check_results(
    page: Any, imported: Any, given: dict[str, Any], want: Expected, errors: list[str]
) -> None:
    """The results page of the new study, analysed from there, with MOS by factor level."""
    imported.get_by_test_id("dataset-results-link").click()
    page.wait_for_url(re.compile(r"/console/studies/\d+/results$"))
    page.get_by_role("heading", name=given["title"]).wait_for()
    summary = page.get_by_test_id("analysis-summary")
    summary.wait_for(timeout=ANALYSIS_TIMEOUT_MS)
    page.wait_for_function(
        "() => !document.querySelector('.analysis-progress')"
        " && document.querySelectorAll('figure[data-chart]').length > 0",
        timeout=ANALYSIS_TIMEOUT_MS,
    )
    expect(page.get_by_role("alert").filter(has_text=re.compile("failed|Could not"))).to_have_count(
        0
    )
    expect(summary).to_contain_text(re.compile(rf"^{want.ratings} ratings"))
    expect(summary).to_contain_text(f"{want.sessions} sessions")

    # The analysis document carries the loader's warnings: the undeclared columns named.
    undeclared = page.locator("li[data-warning='undeclared_columns']")
    expect(undeclared).to_have_count(1)
    expect(undeclared).to_contain_text(", ".join(UNDECLARED))

    figure = page.locator("figure[data-chart='marginals']")
    expect(figure).to_have_count(1)
    expect(figure).to_have_attribute("data-state", "drawn")
    factors = marginal_factors(figure)
    assert set(want.points) <= set(factors), factors
    # The undeclared and ignored columns are nowhere a factor.
    for name in [*UNDECLARED, "Play again", "CPU [%]", "Play time [s]"]:
        assert not any(name in f for f in factors), (name, factors)
    for label, points in want.points.items():
        figure.get_by_label("Factor", exact=True).select_option(label=label)
        expect(figure).to_have_attribute("data-points", str(points))
        expect(figure).to_have_attribute("data-state", "drawn")
    # The same for the factor heatmap's and MOS-by-factor's choices: analysed factors only.
    mos = page.locator("figure[data-chart='mos-by-factor']")
    if mos.count():
        choices = mos.get_by_label("Factor", exact=True).locator("option").all_inner_texts()
        for name in UNDECLARED:
            assert not any(name in c for c in choices), (name, choices)
    assert not errors, errors


def test_p809_dataset_through_the_column_mapping(
    live_app: LiveApp, browser: Any, tmp_path: Path
) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900}, accept_downloads=True)
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        sign_in(page, live_app)
        before = study_ids(page, live_app)
        given, want = descriptor(), expected()
        mapping = read_columns(page, DATASET / "descriptor.json")
        check_mapping(page, mapping, given)
        check_download(page, given)
        imported = import_and_wait(page)
        check_imported(page, live_app, imported, before, want)
        check_results(page, imported, given, want, errors)
        assert not errors, errors
    finally:
        page.screenshot(path=str(tmp_path / "dataset-import-last.png"), full_page=True)
        context.close()


def bad_descriptor() -> dict[str, Any]:
    """The fixture's descriptor with a covariate no file has, and Game declared twice."""
    doc = copy.deepcopy(descriptor())
    fields = doc["schema"]["fields"]
    fields.append({"name": MISSING_COLUMN, "type": "number", "role": "covariate"})
    fields.append({"name": "Game", "type": "string", "role": "questionnaire"})
    return doc


def test_a_bad_descriptor_is_refused_with_every_problem(
    live_app: LiveApp, browser: Any, tmp_path: Path
) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    bad = tmp_path / "descriptor.json"
    bad.write_text(json.dumps(bad_descriptor(), indent=2), encoding="utf-8")
    try:
        sign_in(page, live_app)
        before = study_ids(page, live_app)
        mapping = read_columns(page, bad)
        # The column no file has keeps a row of its own, with its role.
        missing = mapping.locator(f"tr[data-column='{MISSING_COLUMN}']")
        expect(missing).to_contain_text("in no file")
        expect(missing.get_by_label(f"Role of {MISSING_COLUMN}")).to_have_value("covariate")
        # Game keeps its first role; the second is shown, and sent for the import to refuse.
        game = mapping.locator("tr[data-column='Game']")
        expect(game.get_by_label("Role of Game")).to_have_value("game")
        expect(game.get_by_test_id("mapping-repeated")).to_contain_text("again as questionnaire")
        page.get_by_role("button", name="Import", exact=True).click()

        problems = page.get_by_test_id("dataset-problems")
        expect(problems).to_contain_text(re.compile(r"^Import refused: \d+ problems? — nothing"))
        rows = problems.get_by_test_id("dataset-problem")
        # The missing column in each file (none of them lists it as missing).
        absent = rows.filter(has_text=MISSING_COLUMN)
        expect(absent).to_have_count(len(CSV_FILES))
        for name in CSV_FILES:
            expect(absent.filter(has_text=name)).to_contain_text(
                "the descriptor declares this column but the file has none"
            )
        two_roles = rows.filter(has_text="one field per column")
        expect(two_roles).to_have_count(1)
        expect(two_roles).to_contain_text("Game")
        expect(two_roles).to_contain_text("the column has roles game and questionnaire")
        # Both kinds at once, and nothing else wrong with the fixture.
        texts = rows.all_inner_texts()
        assert all(MISSING_COLUMN in t or "one field per column" in t for t in texts), texts
        expect(page.get_by_test_id("dataset-imported")).to_have_count(0)
        expect(page.get_by_test_id("dataset-job")).to_have_count(0)
        assert study_ids(page, live_app) == before
        assert not errors, errors
    finally:
        page.screenshot(path=str(tmp_path / "dataset-refused-last.png"), full_page=True)
        context.close()
