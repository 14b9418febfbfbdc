"""Submitting a ratings CSV as an import job: store the upload, check the limits, queue it.

The limits (settings ``QOELAB_IMPORT_MAX_BYTES``, ``QOELAB_IMPORT_MAX_ROWS`` and the
file's shape: ``QOELAB_IMPORT_MAX_COLUMNS``, ``_LINE_BYTES``, ``_CELL_BYTES``) are checked
here, before any job exists: a larger file is refused with 413, one with more rows, a
header, line or cell over its limit (or not UTF-8 text, or not CSV) with 400; the shape
while the bytes arrive, before the CSV is parsed at all. The upload is written to
``QOELAB_DATA_DIR/imports/`` while it is read (never held in memory as a whole) and stays
there until its job is done. The same file (SHA-256) submitted again to the same study
returns the job already queued, running or succeeded: a retry never imports twice.
"""

from __future__ import annotations

import csv
import hashlib
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction

from qoelab.core.background_jobs import JobState
from qoelab.core.errors import ServiceError
from qoelab.exports.import_cells import ImportRejected
from qoelab.exports.import_run import finish_failed
from qoelab.exports.import_shape import ShapeScan
from qoelab.exports.models import ImportJob
from qoelab.exports.tasks import run_import
from qoelab.exports.uploads import imports_dir, open_upload
from qoelab.studies.models import Study

READ_CHUNK = 256 * 1024


class FileTooLarge(ServiceError):
    """The upload is larger than ``QOELAB_IMPORT_MAX_BYTES`` (413)."""

    status = 413


def max_bytes_text() -> str:
    size = settings.QOELAB_IMPORT_MAX_BYTES
    return f"{size / (1024 * 1024):g} MiB" if size >= 1024 * 1024 else f"{size} bytes"


@dataclass(frozen=True)
class Submission:
    job: ImportJob
    created: bool


def _store(chunks: Iterable[bytes]) -> tuple[Path, str, int]:
    """Write the upload to a new file under the imports folder, refusing it (and removing
    the partial file) as soon as it passes the byte limit or a limit of its shape
    (:mod:`qoelab.exports.import_shape`, checked on the bytes as they arrive)."""
    limit = settings.QOELAB_IMPORT_MAX_BYTES
    path = imports_dir() / f"upload-{uuid.uuid4().hex}.csv"
    digest = hashlib.sha256()
    shape = ShapeScan()
    size = 0
    try:
        with path.open("wb") as out:
            for chunk in chunks:
                size += len(chunk)
                if size > limit:
                    raise FileTooLarge(
                        f"the file is larger than the import limit of {max_bytes_text()} "
                        "(QOELAB_IMPORT_MAX_BYTES)"
                    )
                shape.feed(chunk)
                digest.update(chunk)
                out.write(chunk)
        shape.finish()
    except BaseException:
        path.unlink(missing_ok=True)
        raise
    return path, digest.hexdigest(), size


def count_rows(path: Path) -> int:
    """Data rows of a stored upload, refusing a file that is not UTF-8 CSV or has more
    rows than ``QOELAB_IMPORT_MAX_ROWS`` (400)."""
    limit = settings.QOELAB_IMPORT_MAX_ROWS
    rows = -1  # the header
    with open_upload(path) as text:
        reader = csv.reader(text, strict=True)
        try:
            for _ in reader:
                rows += 1
                if rows > limit:
                    raise ImportRejected(
                        f"the file has more than the import limit of {limit} rows "
                        "(QOELAB_IMPORT_MAX_ROWS)",
                        reader.line_num,
                    )
        except csv.Error as exc:
            raise ImportRejected(f"malformed CSV ({exc})", reader.line_num) from None
        except UnicodeDecodeError as exc:
            raise ImportRejected(f"the file is not UTF-8 text ({exc.reason})") from None
    if rows < 0:
        raise ImportRejected("the file is empty", 1)
    return rows


def submit_import(
    study: Study, chunks: Iterable[bytes], *, file_name: str = "", user: Any = None
) -> Submission:
    """Store and check the upload, then the job for it: a new, queued one, or the live job
    of the same file."""
    path, digest, size = _store(chunks)
    try:
        rows = count_rows(path)
        existing = live_job(study, digest)
        if existing is not None:
            path.unlink(missing_ok=True)
            return Submission(existing, created=False)
        try:
            with transaction.atomic():
                job = ImportJob.objects.create(
                    study=study,
                    file_name=file_name[:200],
                    stored_path=str(path.relative_to(Path(settings.DATA_DIR))),
                    file_sha256=digest,
                    file_bytes=size,
                    rows_total=rows,
                    created_by=user if getattr(user, "is_authenticated", False) else None,
                )
        except IntegrityError:  # the same file submitted at the same moment
            path.unlink(missing_ok=True)
            winner = live_job(study, digest)
            if winner is None:
                raise
            return Submission(winner, created=False)
    except BaseException:
        path.unlink(missing_ok=True)
        raise
    _enqueue(job.pk)
    return Submission(job, created=True)


def live_job(study: Study, digest: str) -> ImportJob | None:
    return (
        ImportJob.objects.filter(study=study, file_sha256=digest)
        .exclude(state=JobState.FAILED)
        .first()
    )


def _enqueue(job_id: int) -> None:
    """Queue the job's task (run in-process at once when no broker is configured)."""
    try:
        result = run_import.delay(job_id)
    except Exception as exc:  # broker down: the job must not stay "queued" forever
        finish_failed(job_id, f"could not queue the import: {exc}")
        return
    ImportJob.objects.filter(pk=job_id).update(task_id=str(result.id or ""))
