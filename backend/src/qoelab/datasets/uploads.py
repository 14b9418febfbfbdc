"""A dataset's uploaded files: stored for its job, or sampled for ``describe``.

The CSV import's limits apply (docs/api.md, "Importing ratings"): the shape of every file
(``QOELAB_IMPORT_MAX_COLUMNS``, ``_LINE_BYTES``, ``_CELL_BYTES``; checked on the bytes as
they are read, :mod:`qoelab.exports.import_shape`), and for an import the files together
at most ``QOELAB_IMPORT_MAX_BYTES`` bytes (413) and ``QOELAB_IMPORT_MAX_ROWS`` data rows
(400). A file is stored under ``QOELAB_DATA_DIR/imports/dataset-<uuid>/`` by its position,
never by the name the client gave it, and the folder is removed once its job is done.

``describe`` reads no more than :data:`SAMPLE_BYTES` of a file, cut after its last whole
record: the draft's types and counts are the sample's (``complete`` says whether it was
the whole file).
"""

from __future__ import annotations

import hashlib
import io
import shutil
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Protocol

from django.conf import settings

from qoelab.datasets.problems import DatasetRefused, problem
from qoelab.exports.import_cells import ImportRejected
from qoelab.exports.import_jobs import READ_CHUNK, FileTooLarge, count_rows, max_bytes_text
from qoelab.exports.import_shape import ShapeScan
from qoelab.exports.uploads import imports_dir

if TYPE_CHECKING:
    import pandas as pd

#: The most bytes of a file ``describe`` reads.
SAMPLE_BYTES = 2 * 1024 * 1024
_QUOTE, _LF = 0x22, 0x0A


class Upload(Protocol):
    """An uploaded file (Django's ``UploadedFile``)."""

    name: str | None
    size: int | None

    def chunks(self, chunk_size: int | None = None) -> Iterable[bytes]: ...


@dataclass(frozen=True)
class StoredFile:
    """One stored data file of a dataset import."""

    name: str
    path: Path
    bytes: int
    rows: int
    sha256: str


def too_large() -> FileTooLarge:
    return FileTooLarge(
        "the dataset's files are larger than the import limit of "
        f"{max_bytes_text()} together (QOELAB_IMPORT_MAX_BYTES)"
    )


def refused_file(name: str, exc: ImportRejected) -> DatasetRefused:
    """A file's shape or encoding refusal as a problem of that file."""
    return DatasetRefused([problem(exc.reason, file=name, line=exc.line, column=exc.column)])


def new_folder() -> Path:
    folder = imports_dir() / f"dataset-{uuid.uuid4().hex}"
    folder.mkdir()
    return folder


def remove_folder(folder: Path | None) -> None:
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)


def _store_one(upload: Upload, path: Path, room: int) -> tuple[int, str]:
    """Write ``upload`` to ``path`` while scanning its shape; (bytes, SHA-256)."""
    digest = hashlib.sha256()
    shape = ShapeScan()
    size = 0
    with path.open("wb") as out:
        for chunk in upload.chunks(READ_CHUNK):
            size += len(chunk)
            if size > room:
                raise too_large()
            shape.feed(chunk)
            digest.update(chunk)
            out.write(chunk)
    shape.finish()
    return size, digest.hexdigest()


def store_files(uploads: Sequence[Upload], folder: Path) -> list[StoredFile]:
    """Store every upload in ``folder`` (see the module doc for the limits)."""
    room = int(settings.QOELAB_IMPORT_MAX_BYTES)
    if sum(u.size or 0 for u in uploads) > room:
        raise too_large()
    stored: list[StoredFile] = []
    rows_left = int(settings.QOELAB_IMPORT_MAX_ROWS)
    for i, upload in enumerate(uploads):
        name = str(upload.name or f"file {i + 1}")
        path = folder / f"{i + 1}.csv"
        try:
            size, sha = _store_one(upload, path, room)
            rows = count_rows(path)
        except ImportRejected as exc:
            raise refused_file(name, exc) from None
        room -= size
        rows_left -= rows
        if rows_left < 0:
            limit = settings.QOELAB_IMPORT_MAX_ROWS
            raise DatasetRefused(
                [
                    problem(
                        f"the dataset's files have more than the import limit of {limit} data "
                        "rows together (QOELAB_IMPORT_MAX_ROWS)",
                        file=name,
                    )
                ]
            )
        stored.append(StoredFile(name, path, size, rows, sha))
    return stored


def _read_cells(source: Path | IO[bytes], delimiter: str, nrows: int | None = None) -> pd.DataFrame:
    """A CSV as text cells, exactly as the loader reads a file, optionally its header only."""
    from qoe_analysis.dataset.reading import read_csv_cells  # pandas: first dataset request

    table: pd.DataFrame = read_csv_cells(source, delimiter, nrows)
    return table


def header_table(path: Path, delimiter: str) -> pd.DataFrame:
    """The stored file's header as an empty table (no rows read)."""
    return _read_cells(path, delimiter, nrows=0)


def data_table(path: Path, delimiter: str) -> pd.DataFrame:
    """The stored file as text cells (the job's read)."""
    return _read_cells(path, delimiter)


def _whole_records(head: bytes) -> bytes:
    """``head`` up to its last line end outside quotes (a record cut in two is dropped)."""
    import numpy as np

    a = np.frombuffer(head, dtype=np.uint8)
    outside = (np.cumsum(a == _QUOTE) % 2) == 0
    ends = np.flatnonzero((a == _LF) & outside)
    return head[: int(ends[-1]) + 1] if len(ends) else head


@dataclass(frozen=True)
class Sample:
    """The first records of an uploaded file, as text cells."""

    name: str
    table: pd.DataFrame
    complete: bool


def sample_file(upload: Any, name: str) -> Sample:
    """At most :data:`SAMPLE_BYTES` of ``upload``, shape-checked, as a table."""
    head = upload.read(SAMPLE_BYTES + 1)
    complete = len(head) <= SAMPLE_BYTES
    if not complete:
        head = _whole_records(head[:SAMPLE_BYTES])
    shape = ShapeScan()
    try:
        shape.feed(head)
        shape.finish()
    except ImportRejected as exc:
        raise refused_file(name, exc) from None
    try:
        table = _read_cells(io.BytesIO(head), ",")
    except ValueError as exc:
        raise DatasetRefused([problem(f"the file cannot be read: {exc}", file=name)]) from None
    return Sample(name, table, complete)
