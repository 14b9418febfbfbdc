"""The import file's shape before any row work (issue 34): header columns, line and cell
bytes, refused with 400 at upload (nothing stored) and again by the job."""

from __future__ import annotations

import csv
import io
import itertools
import re
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from unittest import mock

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import override_settings
from hypothesis import given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from qoelab.exports.import_cells import ImportRejected
from qoelab.exports.import_jobs import READ_CHUNK
from qoelab.exports.import_shape import ShapeLimits, ShapeScan, check_bytes
from qoelab.exports.models import ImportJob
from qoelab.exports.sample_ratings import sample_csv
from qoelab.exports.tasks import run_import
from qoelab.exports.tests.import_helpers import imported, post_csv
from qoelab.exports.uploads import imports_dir
from qoelab.ratings.models import Rating
from qoelab.runs.tests.test_bad_input import rejected
from qoelab.studies.models import Study

MILLION = (",".join(f"c{i}" for i in range(1_000_000)) + "\n1,2\n").encode()
WIDE = "line 1: the header has 1,000,000 columns; at most 500 are accepted"
SMALL = ShapeLimits(columns=4, line_bytes=40, cell_bytes=8)


@pytest.fixture
def uploads(tmp_path: Path) -> Iterator[Path]:
    """QOELAB_DATA_DIR in a temporary folder; yields the imports folder."""
    with override_settings(DATA_DIR=tmp_path):
        yield imports_dir()


def verdict(data: bytes, limits: ShapeLimits = SMALL, pieces: int = 1) -> str | None:
    """The scan's message for ``data`` fed in pieces of ``pieces`` bytes, or None."""
    try:
        check_bytes((data[i : i + pieces] for i in range(0, len(data), pieces)), limits)
    except ImportRejected as exc:
        return str(exc)
    return None


# -- the scan ------------------------------------------------------------------------


def test_a_million_column_header_is_refused_with_its_exact_count() -> None:
    """The issue's file, in every piece size a request or a job hands over."""
    limits = ShapeLimits(columns=500, line_bytes=65_536, cell_bytes=4096)
    for size in (READ_CHUNK, 1_000_003, len(MILLION)):
        message = verdict(MILLION, limits, size)
        assert message == f"{WIDE} (QOELAB_IMPORT_MAX_COLUMNS)", message


def test_the_scan_of_the_million_columns_is_small_in_memory() -> None:
    """Bounded memory (numpy's buffers are traced): far below the 7.9 MB header, with no
    cell or row ever built. (Its CPU cost is not a unit test's business: no timing here.)"""
    pieces = [memoryview(MILLION)[i : i + READ_CHUNK] for i in range(0, len(MILLION), READ_CHUNK)]
    limits = ShapeLimits(columns=500, line_bytes=65_536, cell_bytes=4096)
    check = ShapeScan(limits)
    check.feed(b"a,b\n")  # numpy loaded before the measurement
    tracemalloc.start()
    try:
        with pytest.raises(ImportRejected, match="1,000,000 columns"):
            check_bytes(pieces, limits)  # type: ignore[arg-type]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 * 1024 * 1024, peak


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"a,b\n1,2\n", None),
        (b"a,b,c,d\r\n1,2345678,3,4\r\n", None),  # at every limit
        (b"a,b,c,d,e\n1,2\n", "line 1: the header has 5 columns; at most 4 are accepted"),
        (b'a,"b\n,c",d,e,f\n', "line 1: the header has 5 columns; at most 4 are accepted"),
        (b"a,b\n1,123456789\n", "line 2: b: the cell is larger than 8 bytes"),
        (b'a,b\n1,"1\n3,5""7"\n', "line 2: b: the cell is larger than 8 bytes"),  # quoted
        (b'a,b\n1,2\n"unclosed,1\n2\n3\n', "line 3: a: the cell is larger than 8 bytes"),
        (b"a,b\n1,2\r3,4\r5,6" + b",7" * 20 + b"\r", "line 4: the line is longer than 40"),
        (b"a,b\n" + b"1," * 21 + b"\n", "line 2: the line is longer than 40 bytes"),
        (b"a,abcdefghi\n1,2\n", "line 1: the header's column 2 has 9 bytes; at most 8"),
        (b"a,b\n" + b"1," * 20 + b"123456789\n", "line 2: the line is longer"),  # first
        (b"a,b\n" + b"1," * 15 + b"123456789\n", "line 2: column 16: the cell is larger"),
        (b"a," + b"b" * 50, "line 1: the header has 52 bytes; at most 40 are accepted"),
        (b"", None),
    ],
)
def test_lines_and_cells_over_their_limits(data: bytes, expected: str | None) -> None:
    for pieces in (1, 3, 64):
        message = verdict(data, pieces=pieces)
        if expected is None:
            assert message is None, message
        else:
            assert message is not None and message.startswith(expected), (pieces, message)


def test_the_message_names_the_cell_and_the_setting() -> None:
    with pytest.raises(ImportRejected) as caught:
        check_bytes([b"rater_id,game\nS1,", b"x" * 9, b"\n"], SMALL)
    assert caught.value.body() == {
        "detail": "line 2: game: the cell is larger than 8 bytes, the most a cell may have "
        "(QOELAB_IMPORT_MAX_CELL_BYTES)",
        "line": 2,
        "column": "game",
    }


def reference(data: bytes, limits: ShapeLimits) -> tuple[int, str, str | None] | None:
    """The module doc's rules byte by byte: (line, setting, column) of the first refusal."""
    quoted, line, cell, size, index = False, 1, 0, 0, 0
    big: int | None = None  # the header's first cell over the limit
    names: list[str] = []

    def header_verdict() -> tuple[int, str, str | None] | None:
        if index + 1 > limits.columns:
            return (1, "QOELAB_IMPORT_MAX_COLUMNS", None)
        if size > limits.line_bytes:
            return (1, "QOELAB_IMPORT_MAX_LINE_BYTES", None)
        return (1, "QOELAB_IMPORT_MAX_CELL_BYTES", None) if big is not None else None

    for i, byte in enumerate(data):
        quoted ^= byte == 0x22
        end = not quoted and (byte == 0x0A or (byte == 0x0D and data[i + 1 : i + 2] != b"\n"))
        if not quoted and (end or byte == 0x2C):  # a separator: the cell is closed
            if line == 1 and cell > limits.cell_bytes and big is None:
                big = index
            if end and line == 1:
                if found := header_verdict():
                    return found
                names = names_of(data[:i])
            line, size, index = (line + 1, 0, 0) if end else (line, size + 1, index + 1)
            cell = 0
        else:
            cell, size = cell + 1, size + 1
            if line > 1 and cell > limits.cell_bytes:
                name = names[index] if index < len(names) else f"column {index + 1}"
                return (line, "QOELAB_IMPORT_MAX_CELL_BYTES", name)
        if line > 1 and size > limits.line_bytes:
            return (line, "QOELAB_IMPORT_MAX_LINE_BYTES", None)
    if line == 1:
        big = index if cell > limits.cell_bytes and big is None else big
        return header_verdict()
    return None


def names_of(header: bytes) -> list[str]:
    text = header.decode("utf-8-sig", errors="replace").rstrip("\r")
    try:
        return [name.strip() for name in next(csv.reader(io.StringIO(text)), [])]
    except csv.Error:
        return []


TOKENS = [b"a", b"bc", b",", b'"', b'""', b"\n", b"\r", b"\r\n", "é".encode()]


@hypothesis_settings(max_examples=400, deadline=None)
@given(
    data=st.lists(st.sampled_from(TOKENS), max_size=60).map(b"".join),
    limits=st.builds(
        ShapeLimits,
        columns=st.integers(1, 5),
        line_bytes=st.integers(2, 16),
        cell_bytes=st.integers(1, 6),
    ),
    cuts=st.lists(st.integers(0, 100), max_size=12),
)
def test_the_scan_in_any_pieces_is_the_rules_byte_by_byte(
    data: bytes, limits: ShapeLimits, cuts: list[int]
) -> None:
    bounds = sorted({0, len(data), *(c for c in cuts if c < len(data))})
    pieces = [data[a:b] for a, b in itertools.pairwise(bounds)]
    try:
        check_bytes(pieces, limits)
        found = None
    except ImportRejected as exc:
        setting = re.search(r"\((QOELAB_\w+)\)", str(exc))
        assert setting is not None, str(exc)
        found = (exc.line, setting.group(1), exc.column)
    assert found == reference(data, limits), (data, pieces)


# -- at upload -----------------------------------------------------------------------


@pytest.mark.django_db
def test_the_million_column_file_is_refused_at_upload_and_nothing_is_stored(
    researcher_client: APIClient, owned_example_study: Study, uploads: Path
) -> None:
    """The issue's 202 and a worker at full CPU: now 400 before the CSV is parsed."""
    url = f"/api/v1/studies/{owned_example_study.pk}/import/"
    with mock.patch("qoelab.exports.import_jobs.count_rows", side_effect=AssertionError):
        response = rejected(
            lambda: post_csv(researcher_client, owned_example_study, MILLION.decode()), 400, WIDE
        )
        form = rejected(
            lambda: researcher_client.post(
                url,
                {"file": SimpleUploadedFile("wide.csv", MILLION, content_type="text/csv")},
                format="multipart",
            ),
            400,
            WIDE,
        )
    for answer in (response, form):
        assert answer["Content-Type"] == "application/json"
        assert answer.json()["line"] == 1 and answer.json()["column"] is None
    assert not ImportJob.objects.exists()
    assert list(uploads.iterdir()) == []


@pytest.mark.django_db
def test_a_long_line_or_a_huge_cell_is_refused_at_upload(
    researcher_client: APIClient, owned_example_study: Study, uploads: Path
) -> None:
    lines = sample_csv(owned_example_study, 20).splitlines()
    cells = lines[5].split(",")
    cells[1] = "x" * 5000  # the session_id of line 6
    huge = [*lines[:5], ",".join(cells), *lines[6:]]
    response = rejected(
        lambda: post_csv(researcher_client, owned_example_study, "\n".join(huge) + "\n"),
        400,
        "line 6: session_id: the cell is larger than 4,096 bytes",
        "QOELAB_IMPORT_MAX_CELL_BYTES",
    )
    assert response.json()["column"] == "session_id"
    long = [*lines[:3], lines[3] + ",1" * 40_000, *lines[4:]]
    rejected(
        lambda: post_csv(researcher_client, owned_example_study, "\n".join(long) + "\n"),
        400,
        "line 4: the line is longer than 65,536 bytes, the most a line may have "
        "(QOELAB_IMPORT_MAX_LINE_BYTES)",
    )
    assert not ImportJob.objects.exists()
    assert list(uploads.iterdir()) == []


@pytest.mark.django_db
def test_a_normal_file_is_unaffected(
    researcher_client: APIClient, owned_example_study: Study, uploads: Path
) -> None:
    counts = imported(researcher_client, owned_example_study, sample_csv(owned_example_study, 300))
    assert counts["ratings"] == 300


# -- in the job ----------------------------------------------------------------------


@pytest.mark.django_db
def test_the_job_checks_the_shape_before_its_first_row(
    researcher_client: APIClient, owned_example_study: Study, uploads: Path
) -> None:
    """A file stored under other limits (here: lowered after the upload) fails its job
    with the rule, and no row is read: neither the study's split nor the table."""
    app = run_import.app
    eager, broker = app.conf.task_always_eager, app.conf.broker_url
    app.conf.task_always_eager, app.conf.broker_url = False, "memory://"
    try:
        response = post_csv(
            researcher_client, owned_example_study, sample_csv(owned_example_study, 30)
        )
    finally:
        app.conf.task_always_eager, app.conf.broker_url = eager, broker
    assert response.status_code == 202, response.content
    with (
        override_settings(QOELAB_IMPORT_MAX_COLUMNS=5),
        mock.patch("qoelab.exports.import_table.split_file", side_effect=AssertionError) as split,
    ):
        assert run_import.apply(args=(response.json()["id"],)).get() == "failed"
    assert not split.called
    job = researcher_client.get(response["Location"]).json()
    assert job["error"] == (
        "line 1: the header has 10 columns; at most 5 are accepted (QOELAB_IMPORT_MAX_COLUMNS)"
    )
    assert job["error_line"] == 1 and job["state"] == "failed"
    assert not Rating.objects.filter(session__study=owned_example_study).exists()
    assert list(uploads.iterdir()) == []
