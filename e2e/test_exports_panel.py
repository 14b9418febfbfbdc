"""The study's Exports tab (issue 35, item 5): every button downloads a file of its format.

A copy of the example study (its own slug, owned by the researcher) gets the synthetic
ratings (790, imported: not dry-run) and its analysis (opened from the Results tab, which
links to the Exports tab). Then each button of the panel is clicked: the browser saves a
non-empty file under the panel's file name whose first bytes fit the format — the tidy
CSV's header, JSON that parses to the expected document, YAML for Faucet, a shell script
for Open vSwitch.

The DOM contract (change it together with frontend/src/console/exports/ExportsPanel.tsx):
``[data-testid=exports-panel]`` holds one ``li[data-export=<id>]`` per export, each with one
button "Download …" and its purpose; the file name is shown in the purpose's parentheses.
"""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path
from typing import Any

import yaml
from flows import import_ratings_csv, open_settled_results, sign_in
from live_server import EXAMPLE_STUDY, RESEARCHER, LiveApp, fixture_ratings_csv
from playwright.sync_api import expect

TIMEOUT_MS = 60_000


def _json(text: str) -> Any:
    return json.loads(text)


def _check(export_id: str, text: str) -> None:
    """The saved file's text fits its export's format (AssertionError or ValueError if not)."""
    if export_id == "tidy-csv":
        header = next(csv.reader(io.StringIO(text)))
        assert {"rater_id", "session_id", "game", "scenario", "rating"} <= set(header), header
        assert len(text.strip().splitlines()) == 1 + 790
    elif export_id.startswith("sureal-"):
        dataset = _json(text)
        assert dataset["dis_videos"] and dataset["ref_videos"], list(dataset)
    elif export_id == "study-json":
        document = _json(text)
        assert document["format"] == "qoelab.ratings/v1"
        assert len(document["study"]["scenarios"]) == 10
    elif export_id == "items-sidecar":
        assert [item["key"] for item in _json(text)["items"]] == ["overall"]
    elif export_id == "policy-json":
        assert _json(text)["policy_version"].startswith("2.")
    elif export_id == "policy-faucet":
        config = yaml.safe_load(text)
        assert isinstance(config, dict) and {"acls", "meters"} & set(config), list(config)
    elif export_id == "policy-ovs":
        assert text.startswith("#!/bin/sh\n") and "ovs-" in text
    elif export_id in {"policy-onos", "policy-rest_qos"}:
        assert _json(text)["controller"] == export_id.removeprefix("policy-")
    elif export_id == "policy-ietf":
        assert "ietf-network-slice-service:network-slice-services" in _json(text)
    else:
        raise AssertionError(f"no check for the export {export_id!r}")


def test_every_export_downloads_a_file_of_its_format(
    live_app: LiveApp, browser: Any, tmp_path: Path
) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900}, accept_downloads=True)
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        _exports(live_app, page, tmp_path)
        assert not errors, errors
    finally:
        page.screenshot(path=str(tmp_path / "exports-last.png"), full_page=True)
        context.close()


def _copy_of_the_example(app: LiveApp, tmp: Path) -> tuple[str, str]:
    suffix = re.sub(r"\D", "", tmp.name)[-6:] or "0"
    document = json.loads(EXAMPLE_STUDY.read_text(encoding="utf-8"))
    slug, title = f"exports-{suffix}", f"Exports {suffix}"
    document.update(slug=slug, title=title)
    path = tmp / "study.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    app.manage("load_study", str(path), "--owner", RESEARCHER[0])
    return slug, title


def _exports(app: LiveApp, page: Any, tmp: Path) -> None:
    sign_in(page, app)
    slug, title = _copy_of_the_example(app, tmp)
    studies = page.request.get(f"{app.url}/api/v1/studies/")
    assert studies.ok, studies.status
    listed = studies.json()
    rows = listed["results"] if isinstance(listed, dict) else listed
    study_id = next(s["id"] for s in rows if s["slug"] == slug)
    page.goto(f"{app.url}/console/studies/{study_id}")
    page.get_by_role("form", name="Study settings").wait_for()
    import_ratings_csv(page, app, fixture_ratings_csv(), "Imported 790 ratings in 79 sessions")
    open_settled_results(page, app, study_id, title)

    page.get_by_role("link", name=re.compile("^Exports: ")).click()
    panel = page.get_by_test_id("exports-panel")
    expect(panel).to_be_visible()
    exports = panel.locator("li[data-export]")
    ids = [exports.nth(i).get_attribute("data-export") for i in range(exports.count())]
    assert ids[:4] == ["tidy-csv", "sureal-overall", "study-json", "items-sidecar"], ids
    assert [i for i in ids if i and i.startswith("policy-")] == [
        f"policy-{f}" for f in ("json", "faucet", "ovs", "onos", "rest_qos", "ietf")
    ], ids

    for export_id in ids:
        row = panel.locator(f"li[data-export='{export_id}']")
        name = re.search(r"\(([^()]+)\)\s*$", row.locator("p").first.inner_text())
        assert name, f"{export_id}: no file name shown"
        with page.expect_download() as caught:
            row.get_by_role("button", name=re.compile("^Download ")).click()
        download = caught.value
        assert download.suggested_filename == name.group(1), export_id
        saved = tmp / download.suggested_filename
        download.save_as(saved)
        text = saved.read_text(encoding="utf-8")
        assert text.strip(), f"{export_id}: an empty file"
        _check(str(export_id), text)
        expect(row.get_by_role("status")).to_have_text(f"Saved as {name.group(1)}.")
    expect(panel.get_by_role("alert")).to_have_count(0)
