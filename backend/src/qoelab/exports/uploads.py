"""Where an import's upload is kept until its job is done: ``QOELAB_DATA_DIR/imports/``."""

from __future__ import annotations

import io
from pathlib import Path

from django.conf import settings

from qoelab.exports.models import ImportJob

IMPORTS_DIR = "imports"


def imports_dir() -> Path:
    folder = Path(settings.DATA_DIR) / IMPORTS_DIR
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def stored_file(job: ImportJob) -> Path:
    return Path(settings.DATA_DIR) / job.stored_path


def open_upload(path: Path) -> io.TextIOWrapper:
    """The stored upload as text (UTF-8, a leading byte-order mark dropped), read lazily."""
    return open(path, encoding="utf-8-sig", newline="")


def remove_upload(job_id: int) -> None:
    """Delete the job's stored upload (if any) and forget its path."""
    job = ImportJob.objects.filter(pk=job_id).first()
    if job is not None and job.stored_path:
        stored_file(job).unlink(missing_ok=True)
        ImportJob.objects.filter(pk=job_id).update(stored_path="")
