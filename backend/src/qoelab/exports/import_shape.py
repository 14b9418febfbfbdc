"""The import file's shape, checked before any per-row work (issue 34).

Three limits (settings, docs/api.md "Importing ratings"), each refused with 400 and a
message that names the rule and its limit:

* the header has at most ``QOELAB_IMPORT_MAX_COLUMNS`` columns (default 500; the widest
  tidy export has 45 columns plus one per questionnaire question);
* no line is longer than ``QOELAB_IMPORT_MAX_LINE_BYTES`` (default 64 KiB);
* no cell is larger than ``QOELAB_IMPORT_MAX_CELL_BYTES`` (default 4 KiB; the longest
  text the export writes is a 120-character game name, at most 4 bytes a character).

A "line" is a CSV record, as the rest of the import counts lines: a line break inside a
quoted cell belongs to its cell (RFC 4180, section 2). Sizes are bytes of the file as
sent, quotes and a CRLF's CR included.

Why before anything else: a 9.9 MB header of 10^6 columns was accepted and held a worker
at full CPU for more than 15 minutes (the CSV parser, the header checks and the table
each go as wide as the header). The scan here never builds a cell or a row: it reads the
bytes in slices of ``SLICE`` keeping a few numbers of state, and finds the separators with
numpy. Whether a byte is inside quotes is the parity of the quotes before it (an escaped
quote ``""`` toggles twice), so a slice costs a few vector operations: a 10 MB header is
refused in a few tens of milliseconds of CPU, in bounded memory. Quoting that never
closes ends as a cell over the limit, so no input escapes the three bounds. The header is
read whole before its verdict (its message gives the exact number of columns; the byte
limit bounds it); any later line is refused as soon as it passes a limit.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

from django.conf import settings

from qoelab.exports.import_cells import ImportRejected

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

#: Bytes scanned at a time: the scan's memory is a few times this, whatever the file.
SLICE = 256 * 1024
QUOTE, COMMA, LF, CR = 0x22, 0x2C, 0x0A, 0x0D


@dataclass(frozen=True)
class ShapeLimits:
    """The three limits (header columns, bytes of a line, bytes of a cell)."""

    columns: int
    line_bytes: int
    cell_bytes: int

    @classmethod
    def from_settings(cls) -> ShapeLimits:
        return cls(
            columns=settings.QOELAB_IMPORT_MAX_COLUMNS,
            line_bytes=settings.QOELAB_IMPORT_MAX_LINE_BYTES,
            cell_bytes=settings.QOELAB_IMPORT_MAX_CELL_BYTES,
        )


@dataclass(frozen=True)
class _Slice:
    """One slice's separators outside quotes (comma, LF, a CR not followed by LF): their
    positions, which of them end a line (``ends``: indices into ``seps``), the bytes of
    the cell and of the line each closes (the first with the bytes carried in)."""

    seps: npt.NDArray[np.intp]
    ends: npt.NDArray[np.intp]
    cells: npt.NDArray[np.intp]
    lines: npt.NDArray[np.intp]
    size: int


CELL, LINE = 0, 1


class _Over(NamedTuple):
    """A cell or line over its limit: ``at`` the byte (in its slice) that passes the
    limit, so the first one in the file is the least (a cell before its line)."""

    at: int
    kind: int
    line: int
    column: int


class ShapeScan:
    """Feed the file's bytes in pieces of any size, then call :meth:`finish`; raises
    :class:`ImportRejected` (see the module doc)."""

    def __init__(self, limits: ShapeLimits | None = None) -> None:
        self.limits = limits or ShapeLimits.from_settings()
        self.line = 1  # the open line's number (the header is line 1)
        self._quoted = 0  # 1 while inside a quoted cell
        self._pending = b""  # a slice's last CR, until the next byte says whether LF follows
        self._line_bytes = 0  # of the open line so far
        self._cell_bytes = 0  # of the open cell so far
        self._cell_index = 0  # the open cell's column index
        self._header = bytearray()  # line 1, kept while within the line limit
        self._header_big: tuple[int, int] | None = None  # (column index, bytes)
        self._names: list[str] = []

    def feed(self, data: bytes | bytearray | memoryview) -> None:
        view = memoryview(data).cast("B")
        for start in range(0, len(view), SLICE):
            piece = self._pending + bytes(view[start : start + SLICE])
            self._pending = b""
            if piece.endswith(b"\r"):  # a CRLF split between pieces: the next byte decides
                piece, self._pending = piece[:-1], b"\r"
            if piece:
                self._scan(piece)

    def finish(self) -> None:
        """The end of the file ends its last line."""
        pending, self._pending = self._pending, b""
        if pending:
            self._scan(pending)
        if self.line == 1:
            if self._cell_bytes > self.limits.cell_bytes and self._header_big is None:
                self._header_big = (self._cell_index, self._cell_bytes)
            self._end_header(self._cell_index + 1, self._line_bytes)

    def _scan(self, data: bytes) -> None:
        part = _separators(data, self._quoted, self._cell_bytes, self._line_bytes)
        self._quoted = (self._quoted + data.count(b'"')) & 1
        if self.line == 1:
            self._header_part(data, part)
        found = self._closed_over(part)
        self._advance(part)
        if self.line > 1:
            found += self._open_over(part.size)
        if found:
            self._refuse(min(found))

    def _header_part(self, data: bytes, part: _Slice) -> None:
        """Line 1's cells in this slice; the verdict once it ends."""
        stop = int(part.ends[0]) if len(part.ends) else len(part.seps) - 1
        upto = int(part.seps[stop]) if len(part.ends) else part.size
        if len(self._header) + upto <= self.limits.line_bytes:
            self._header += data[:upto]
        big = _first_over(part.cells[: stop + 1], self.limits.cell_bytes)
        if big is not None and self._header_big is None:
            self._header_big = (self._cell_index + big, int(part.cells[big]))
        if len(part.ends):
            self._end_header(self._cell_index + stop + 1, int(part.lines[0]))

    def _end_header(self, columns: int, size: int) -> None:
        limits = self.limits
        if columns > limits.columns:
            raise ImportRejected(
                f"the header has {columns:,} columns; at most {limits.columns:,} are accepted "
                "(QOELAB_IMPORT_MAX_COLUMNS)",
                1,
            )
        if size > limits.line_bytes:
            raise ImportRejected(
                f"the header has {size:,} bytes; at most {limits.line_bytes:,} are accepted "
                "(QOELAB_IMPORT_MAX_LINE_BYTES)",
                1,
            )
        if self._header_big is not None:
            index, size = self._header_big
            raise ImportRejected(
                f"the header's column {index + 1} has {size:,} bytes; at most "
                f"{limits.cell_bytes:,} are accepted (QOELAB_IMPORT_MAX_CELL_BYTES)",
                1,
            )
        self._names = _column_names(bytes(self._header))
        self._header = bytearray()

    def _closed_over(self, part: _Slice) -> list[_Over]:
        """The first cell and the first line of line 2 on that close over their limits."""
        import numpy as np

        header_ends = self.line == 1 and len(part.ends) > 0
        if self.line == 1 and not header_ends:
            return []  # still the header
        first = int(part.ends[0]) + 1 if header_ends else 0
        found: list[_Over] = []
        big = _first_over(part.cells[first:], self.limits.cell_bytes)
        if big is not None:
            k = first + big
            line = self.line + int(np.searchsorted(part.ends, k))
            start = int(part.seps[k]) - int(part.cells[k])
            found.append(_Over(start + self.limits.cell_bytes, CELL, line, self._index_at(part, k)))
        skip = 1 if header_ends else 0
        long = _first_over(part.lines[skip:], self.limits.line_bytes)
        if long is not None:
            j = skip + long
            start = int(part.seps[part.ends[j]]) - int(part.lines[j])
            found.append(_Over(start + self.limits.line_bytes, LINE, self.line + j, 0))
        return found

    def _open_over(self, size: int) -> list[_Over]:
        """The open cell or line (carried into the next slice) if already over its limit."""
        found: list[_Over] = []
        if self._cell_bytes > self.limits.cell_bytes:
            start = size - self._cell_bytes
            found.append(_Over(start + self.limits.cell_bytes, CELL, self.line, self._cell_index))
        if self._line_bytes > self.limits.line_bytes:
            start = size - self._line_bytes
            found.append(_Over(start + self.limits.line_bytes, LINE, self.line, 0))
        return found

    def _index_at(self, part: _Slice, k: int) -> int:
        """The column index of the cell that separator ``k`` closes."""
        import numpy as np

        before = int(np.searchsorted(part.ends, k))
        return k - int(part.ends[before - 1]) - 1 if before else self._cell_index + k

    def _refuse(self, over: _Over) -> None:
        if over.kind == CELL:
            index = over.column
            name = self._names[index] if index < len(self._names) else f"column {index + 1}"
            raise ImportRejected(
                f"{name}: the cell is larger than {self.limits.cell_bytes:,} bytes, the most "
                "a cell may have (QOELAB_IMPORT_MAX_CELL_BYTES)",
                over.line,
                name,
            )
        raise ImportRejected(
            f"the line is longer than {self.limits.line_bytes:,} bytes, the most a line may "
            "have (QOELAB_IMPORT_MAX_LINE_BYTES)",
            over.line,
        )

    def _advance(self, part: _Slice) -> None:
        """Carry the open line and cell into the next slice."""
        count = len(part.seps)
        if len(part.ends):
            last_end = int(part.ends[-1])
            self.line += len(part.ends)
            self._line_bytes = part.size - int(part.seps[last_end]) - 1
            self._cell_index = count - last_end - 1
        else:
            self._line_bytes += part.size
            self._cell_index += count
        self._cell_bytes = (
            part.size - int(part.seps[-1]) - 1 if count else self._cell_bytes + part.size
        )


def _first_over(sizes: npt.NDArray[np.intp], limit: int) -> int | None:
    import numpy as np

    over = np.flatnonzero(sizes > limit)
    return int(over[0]) if len(over) else None


def _column_names(header: bytes) -> list[str]:
    """The header's names, for messages only (the table's checks read the header again)."""
    text = header.decode("utf-8-sig", errors="replace").rstrip("\r")
    try:
        return [name.strip() for name in next(csv.reader(io.StringIO(text)), [])]
    except csv.Error:
        return []


def _separators(data: bytes, quoted: int, cell_bytes: int, line_bytes: int) -> _Slice:
    """The slice's separators outside quotes (a trailing CR is never given: see feed)."""
    import numpy as np

    a = np.frombuffer(data, dtype=np.uint8)
    # uint8 sums wrap around, and only the parity matters
    outside = ((np.cumsum(a == QUOTE, dtype=np.uint8) + quoted) & 1) == 0
    lf = a == LF
    lone_cr = a == CR
    lone_cr[:-1] &= ~lf[1:]
    end = (lf | lone_cr) & outside
    seps = np.flatnonzero(end | ((a == COMMA) & outside))
    ends = np.flatnonzero(end[seps])
    cells = np.diff(seps, prepend=-1) - 1
    lines = np.diff(seps[ends], prepend=-1) - 1
    if len(cells):
        cells[0] += cell_bytes
    if len(lines):
        lines[0] += line_bytes
    return _Slice(seps=seps, ends=ends, cells=cells, lines=lines, size=len(a))


def check_bytes(chunks: Iterable[bytes], limits: ShapeLimits | None = None) -> None:
    """Scan a whole file given in pieces (see the module doc)."""
    scan = ShapeScan(limits)
    for chunk in chunks:
        scan.feed(chunk)
    scan.finish()


def check_text(text: str, limits: ShapeLimits | None = None) -> None:
    """Scan a file already read as text, a slice at a time (never a second copy whole)."""
    step = SLICE // 4  # at most 4 bytes a character
    check_bytes((text[i : i + step].encode("utf-8") for i in range(0, len(text), step)), limits)
