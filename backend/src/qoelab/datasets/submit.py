"""Submitting a dataset for import: the descriptor and its files checked as far as they can
be at once, then a queued job (docs/api.md, "Importing a dataset").

Refused at once (400 ``{"detail", "problems", "more"}``, nothing stored) for every problem
the descriptor and the files' headers show: the descriptor not JSON/YAML or breaking its
rules (two roles for one column, an unknown role, factor, direction or unit…), a resource
without an uploaded file (a file is a resource's when its name is the resource's ``path``,
or that path's last part), an uploaded file no resource names, a declared column a file
lacks. The files' limits (:mod:`qoelab.datasets.uploads`) apply before that. What only the
cells show (a rating off its scale, a missing rater…) is found by the job, which then
fails with the same list. The same submission again (descriptor and files, SHA-256) by the
same researcher answers with its job while it is queued or running, or has made a study
that still exists: a retry never imports twice.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db.models import Q

from qoelab.core.background_jobs import JobState
from qoelab.core.parsers import max_depth, nesting_depth
from qoelab.datasets.models import DatasetJob
from qoelab.datasets.problems import DatasetRefused, problem
from qoelab.datasets.run import finish_failed
from qoelab.datasets.tasks import run_dataset_import
from qoelab.datasets.uploads import (
    StoredFile,
    header_table,
    new_folder,
    remove_folder,
    store_files,
)

if TYPE_CHECKING:
    from qoe_analysis.dataset.descriptor import Descriptor
    from qoe_analysis.dataset.problems import Problems

#: The most bytes of a descriptor (a real one has a few KiB).
DESCRIPTOR_BYTES = 1024 * 1024
DEFAULT_TITLE = "Imported dataset"
#: The most values a YAML descriptor may hold once its aliases are expanded.
YAML_NODES = 100_000


@dataclass(frozen=True)
class Submission:
    job: DatasetJob
    created: bool


def _parse_text(data: bytes, name: str) -> Any:
    """The descriptor's bytes parsed (YAML when the file's name ends .yaml/.yml)."""
    if len(data) > DESCRIPTOR_BYTES:
        rule = f"the descriptor is larger than {DESCRIPTOR_BYTES // 1024} KiB"
        raise DatasetRefused([problem(rule, file=name)])
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        rule = f"the descriptor is not UTF-8 text ({exc.reason})"
        raise DatasetRefused([problem(rule, file=name)]) from None
    if name.lower().endswith((".yaml", ".yml")):
        import yaml

        try:
            loaded = yaml.safe_load(text)
        except (yaml.YAMLError, RecursionError) as exc:
            mark = getattr(exc, "problem_mark", None)
            line = mark.line + 1 if mark is not None else None
            rule = "the descriptor is not YAML"
            raise DatasetRefused([problem(rule, file=name, line=line)]) from None
        return _as_json(loaded, name)
    if nesting_depth(data, max_depth()) > max_depth():
        rule = f"the descriptor nests deeper than {max_depth()} levels"
        raise DatasetRefused([problem(rule, file=name)])
    try:
        return json.loads(text, parse_constant=_no_constant)
    except (json.JSONDecodeError, ValueError) as exc:
        reason = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
        line = exc.lineno if isinstance(exc, json.JSONDecodeError) else None
        rule = f"the descriptor is not JSON ({reason})"
        raise DatasetRefused([problem(rule, file=name, line=line)]) from None


def _no_constant(word: str) -> Any:
    raise ValueError(f"{word} is not a JSON value")


def _as_json(value: Any, name: str) -> Any:
    """A YAML document as JSON values (a date as its text), refused when it nests deeper
    than the JSON limit or its aliases expand beyond :data:`YAML_NODES` values."""
    budget = [YAML_NODES]

    def walk(item: Any, depth: int) -> Any:
        budget[0] -= 1
        if budget[0] < 0 or depth > max_depth():
            rule = f"the descriptor is larger than {YAML_NODES} values or {max_depth()} levels"
            raise DatasetRefused([problem(rule, file=name)])
        if isinstance(item, dict):
            return {str(k): walk(v, depth + 1) for k, v in item.items()}
        if isinstance(item, list):
            return [walk(v, depth + 1) for v in item]
        if item is None or isinstance(item, bool | int | str):
            return item
        if isinstance(item, float):
            return item if math.isfinite(item) else str(item)
        return str(item)

    return walk(value, 0)


def read_descriptor(value: Any) -> tuple[Any, str]:
    """(the parsed descriptor, its name): the form field's JSON text, or an uploaded
    .json/.yaml file."""
    if value is None or value == "":
        rule = (
            "send the descriptor in the form field 'descriptor': JSON text, or a .json or "
            ".yaml file"
        )
        raise DatasetRefused([problem(rule)])
    if hasattr(value, "read"):
        name = PurePosixPath(str(value.name or "descriptor")).name[:200]
        return _parse_text(value.read(DESCRIPTOR_BYTES + 1), name), name
    return _parse_text(str(value).encode(), "descriptor"), "descriptor"


def match_files(
    descriptor: Descriptor, uploads: Sequence[Any], problems: Problems
) -> dict[str, Any]:
    """Resource path → its upload; a resource without one, an upload no resource names
    and two uploads of one name are problems."""
    by_name: dict[str, Any] = {}
    for upload in uploads:
        name = str(upload.name or "")
        if name in by_name:
            problems.add("two uploaded files have this name: rename one", file=name)
        by_name[name] = upload
    matched: dict[str, Any] = {}
    for resource in descriptor.resources:
        path = resource.path
        name = path if path in by_name else PurePosixPath(path).name
        if name in by_name and name not in matched.values():
            matched[path] = name
        else:
            rule = (
                "no uploaded file has this name: send the resource's file in the form field 'files'"
            )
            problems.add(rule, file=path)
    for name in by_name:
        if name not in matched.values():
            rule = (
                "no resource of the descriptor names this file: add it to resources, or "
                "leave it out"
            )
            problems.add(rule, file=name)
    return {path: by_name[name] for path, name in matched.items()}


def header_problems(
    descriptor: Descriptor, stored: dict[str, StoredFile], problems: Problems
) -> None:
    """What the headers show against the descriptor (a declared column a file lacks), as
    the loader reports it (:func:`qoe_analysis.dataset.part.read_part` on no rows)."""
    from qoe_analysis.dataset.loader import namespaces
    from qoe_analysis.dataset.part import read_part

    for i, (resource, space) in enumerate(
        zip(descriptor.resources, namespaces(descriptor), strict=True)
    ):
        if resource.path not in stored:
            continue
        try:
            header = header_table(stored[resource.path].path, resource.delimiter)
        except ValueError as exc:
            problems.add(f"the file cannot be read: {exc}", file=resource.path)
            continue
        read_part(header, i, resource, descriptor, problems, space)


def _digest(raw: Any, stored: dict[str, StoredFile]) -> str:
    text = json.dumps(raw, sort_keys=True, default=str)
    files = "\n".join(f"{path}\t{f.sha256}" for path, f in sorted(stored.items()))
    return hashlib.sha256(f"{text}\n{files}".encode()).hexdigest()


def live_job(user: Any, digest: str) -> DatasetJob | None:
    """The same researcher's job of the same submission that is still worth answering with."""
    live = Q(state__in=[JobState.QUEUED, JobState.RUNNING]) | Q(
        state=JobState.SUCCEEDED, study__isnull=False
    )
    return DatasetJob.objects.filter(live, created_by=user, digest=digest).first()


def _title(given: str, raw: Any) -> str:
    named = raw.get("title") or raw.get("name") if isinstance(raw, dict) else None
    return (given.strip() or str(named or "").strip() or DEFAULT_TITLE)[:200]


def submit_dataset(
    *, descriptor: Any, uploads: Sequence[Any], title: str = "", user: Any
) -> Submission:
    """Check the submission as far as the descriptor and the headers go (see the module
    doc), store its files and queue its job (or answer with the same submission's job)."""
    from qoe_analysis.dataset.descriptor import parse_descriptor
    from qoe_analysis.dataset.problems import Problems

    raw, name = read_descriptor(descriptor)
    problems = Problems()
    spec = parse_descriptor(raw, name, problems)
    uploads_of = match_files(spec, uploads, problems)
    folder = new_folder()
    try:
        paths = list(uploads_of)
        stored = dict(zip(paths, store_files([uploads_of[p] for p in paths], folder), strict=True))
        header_problems(spec, stored, problems)
        if problems:
            raise DatasetRefused(problems.items, problems.count)
        digest = _digest(raw, stored)
        existing = live_job(user, digest)
        if existing is not None:
            remove_folder(folder)
            return Submission(existing, created=False)
        job = DatasetJob.objects.create(
            title=_title(title, raw),
            descriptor=raw,
            descriptor_name=name,
            files=[_file_entry(path, f) for path, f in stored.items()],
            digest=digest,
            file_bytes=sum(f.bytes for f in stored.values()),
            rows_total=sum(f.rows for f in stored.values()),
            created_by=user if getattr(user, "is_authenticated", False) else None,
        )
    except BaseException:
        remove_folder(folder)
        raise
    _enqueue(job.pk)
    return Submission(job, created=True)


def _file_entry(path: str, f: StoredFile) -> dict[str, Any]:
    return {
        "path": path,
        "name": f.name,
        "stored": str(f.path.relative_to(Path(settings.DATA_DIR))),
        "bytes": f.bytes,
        "rows": f.rows,
        "sha256": f.sha256,
    }


def _enqueue(job_id: int) -> None:
    """Queue the job's task (run in-process at once when no broker is configured)."""
    try:
        result = run_dataset_import.delay(job_id)
    except Exception as exc:  # broker down: the job must not stay "queued" for ever
        finish_failed(job_id, f"could not queue the import: {exc}")
        return
    DatasetJob.objects.filter(pk=job_id).update(task_id=str(result.id or ""))
