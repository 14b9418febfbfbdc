"""Writing a study's data to files: the study-level part of a backup (deploy/backup.sh).

Each study gets a folder ``study-<id>-<slug>/`` with its design (``study.json``, format
``qoelab.study/v1``, loadable with ``manage.py load_study``), the tidy ratings
(``ratings.csv``, what ``qoe-analysis analyze`` reads and ``POST …/import/`` takes), the full
JSON export (``export.json``), the rating items of the CSV's ``item`` column (``items.json``,
the sidecar) and the sureal dataset of each rating item (``sureal.json`` for the first item,
``sureal-<item>.json`` for each further one). Files are written to
a temporary name and renamed, so an interrupted backup never leaves a truncated file.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from qoelab.exports.study_exports import study_json, sureal_dataset
from qoelab.exports.tidy import tidy_csv
from qoelab.studies.models import Study
from qoelab.studies.rating_items import sidecar
from qoelab.studies.study_document import export_study_document


def _write_atomically(path: Path, text: str) -> None:
    partial = path.with_name(f".{path.name}.partial")
    with partial.open("w", encoding="utf-8", newline="") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())
    partial.replace(path)


def _json(document: Any) -> str:
    return json.dumps(document, indent=2, ensure_ascii=False, default=str) + "\n"


def write_study_export(study: Study, output_dir: Path) -> Path:
    """Write the study's export files into a folder of ``output_dir``; return it."""
    folder = output_dir / f"study-{study.pk}-{study.slug}"
    folder.mkdir(parents=True, exist_ok=True)
    _write_atomically(folder / "study.json", _json(export_study_document(study)))
    _write_atomically(folder / "ratings.csv", tidy_csv(study))
    _write_atomically(folder / "export.json", _json(study_json(study)))
    _write_atomically(folder / "items.json", _json(sidecar(study)))
    for index, item in enumerate(study.rating_items):
        name = "sureal.json" if index == 0 else f"sureal-{item['key']}.json"
        _write_atomically(folder / name, _json(sureal_dataset(study, item["key"])))
    return folder
