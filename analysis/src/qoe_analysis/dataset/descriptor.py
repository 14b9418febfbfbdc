"""The dataset descriptor: a Frictionless Data Package-like document naming the data files
and, in one Table Schema, what each column is (docs/importing-data.md).

    {"profile": "qoe-lab-dataset", "version": 1, "name": …, "title": …,
     "resources": [{"path": "wired_a.csv", "namespace": "wired-a",
                    "context": {"testbed": "wired-a"}, "missing_fields": ["CPU"]}, …],
     "game_paces": {"Racing": "fast"},                       (optional)
     "schema": {"missingValues": ["", "NA"], "fields": [ … ]}}

Rules checked here, all reported together (:class:`~qoe_analysis.dataset.problems.DatasetError`):
one field per column (a column with two roles is refused), exactly one rater and one game
field, at least one rating and one factor field, at most one session, pace, scenario and
training field; rating items distinct, ``acceptable_from`` on one rating field at most and a
value of its scale; no two factor fields setting the same tidy column; a resource's ``path``
given and distinct, its ``namespace`` a code (letters, digits, '-', '_'; it prefixes the
rater ids), every resource giving the same ``context`` keys, none of them a field's name;
``missing_fields`` naming questionnaire, covariate or ignored fields only; ``game_paces`` or a
pace field, not both. Unknown keys are refused (a typo would otherwise be ignored silently).

Standard library only.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from qoe_analysis.dataset.fields import FieldSpec, parse_field
from qoe_analysis.dataset.problems import Problems
from qoe_analysis.scales import parse_sidecar
from qoe_analysis.tidy.columns import TIDY_COLUMNS
from qoe_analysis.tidy.design import PACE_CLASSES

__all__ = ["PROFILE", "Descriptor", "ResourceSpec", "parse_descriptor"]

PROFILE = "qoe-lab-dataset"
NAMESPACE_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,19}")
#: Data Package properties read as documentation, and this profile's own
_PACKAGE_KEYS = {
    "profile",
    "version",
    "name",
    "id",
    "title",
    "description",
    "homepage",
    "licenses",
    "sources",
    "contributors",
    "keywords",
    "created",
    "image",
    "$schema",
    "resources",
    "schema",
    "game_paces",
}
_RESOURCE_KEYS = {
    "path",
    "name",
    "title",
    "description",
    "format",
    "mediatype",
    "encoding",
    "profile",
    "dialect",
    "namespace",
    "context",
    "missing_fields",
    "sources",
    "licenses",
}
_SCHEMA_KEYS = {"fields", "missingValues", "primaryKey"}
_ONE = ("rater", "game")
_AT_MOST_ONE = ("session", "pace", "scenario", "training")
_MAY_BE_MISSING = ("questionnaire", "covariate", "ignore")


@dataclass(frozen=True)
class ResourceSpec:
    """One data file: its path (relative to the descriptor), the rater namespace, the
    context values of its rows and the declared fields it lacks."""

    path: str
    namespace: str | None
    context: dict[str, float | str]
    missing_fields: tuple[str, ...] = ()
    delimiter: str = ","


@dataclass(frozen=True)
class Descriptor:
    """A checked descriptor."""

    source: str
    name: str | None
    title: str | None
    resources: tuple[ResourceSpec, ...]
    fields: tuple[FieldSpec, ...]
    missing_values: frozenset[str]
    game_paces: dict[str, str] = field(default_factory=dict)

    def role(self, role: str) -> list[FieldSpec]:
        return [f for f in self.fields if f.role == role]

    def one(self, role: str) -> FieldSpec | None:
        found = self.role(role)
        return found[0] if found else None

    @property
    def context_keys(self) -> list[str]:
        return list(self.resources[0].context) if self.resources else []

    def sidecar(self) -> dict[str, Any]:
        """The items sidecar of the rating fields (:func:`qoe_analysis.scales.parse_sidecar`)."""
        items = []
        acceptance: dict[str, Any] | None = None
        for f in self.role("rating"):
            question = f.title or f.name
            items.append(
                {"key": f.item, "question": {"en": question, "de": question}, "scale": f.scale}
            )
            if f.acceptable_from is not None:
                acceptance = {"item": f.item, "min": f.acceptable_from}
        return {"items": items, **({"acceptance": acceptance} if acceptance else {})}


def _fields(schema: Mapping[str, Any], source: str, problems: Problems) -> list[FieldSpec]:
    raw = schema.get("fields")
    if not isinstance(raw, list) or not raw:
        problems.add("schema.fields is a non-empty list of fields", file=source)
        return []
    parsed = [parse_field(f, i, source, problems) for i, f in enumerate(raw)]
    fields = [f for f in parsed if f is not None]
    seen: dict[str, str] = {}
    for f in fields:
        if f.name in seen:
            problems.add(
                f"one field per column: the column has roles {seen[f.name]} and {f.role}",
                file=source,
                column=f.name,
            )
        seen.setdefault(f.name, f.role)
    return fields


def _roles(fields: list[FieldSpec], source: str, problems: Problems) -> None:
    """How many fields each role has; rating items and factor columns distinct."""
    count = {role: sum(f.role == role for f in fields) for role in (*_ONE, *_AT_MOST_ONE)}
    for role in _ONE:
        if count[role] != 1:
            problems.add(
                f"the schema has exactly one {role} field (found {count[role]})", file=source
            )
    for role in _AT_MOST_ONE:
        if count[role] > 1:
            problems.add(
                f"the schema has at most one {role} field (found {count[role]})", file=source
            )
    for role in ("rating", "factor"):
        if not any(f.role == role for f in fields):
            problems.add(f"the schema has at least one {role} field", file=source)
    items: set[str] = set()
    columns: dict[str, str] = {}
    cuts = [f for f in fields if f.acceptable_from is not None]
    for f in cuts[1:]:
        problems.add(
            "acceptable_from is given on one rating field only", file=source, column=f.name
        )
    for f in fields:
        if f.item is not None:
            if f.item in items:
                problems.add(
                    "two rating fields have this item key", file=source, column=f.name, value=f.item
                )
            items.add(f.item)
        for column in f.columns:
            if column in columns:
                problems.add(
                    f"the factor column {column} is also set by field '{columns[column]}'",
                    file=source,
                    column=f.name,
                )
            columns.setdefault(column, f.name)
        if f.role in ("questionnaire", "covariate") and f.name in TIDY_COLUMNS:
            problems.add(
                f"a {f.role} column may not have the name of a tidy column (rename it)",
                file=source,
                column=f.name,
            )


def _context(raw: Any, where: str, source: str, problems: Problems) -> dict[str, float | str]:
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        problems.add(f"{where}.context is an object of names and values", file=source)
        return {}
    out: dict[str, float | str] = {}
    for key, value in raw.items():
        if isinstance(value, bool):
            out[str(key)] = "true" if value else "false"
        elif isinstance(value, int | float):
            out[str(key)] = float(value)
        elif isinstance(value, str) and value.strip():
            out[str(key)] = value.strip()
        else:
            problems.add(
                f"{where}.context values are texts or numbers", file=source, column=str(key)
            )
    return out


def _resource(raw: Any, i: int, source: str, problems: Problems) -> ResourceSpec | None:
    where = f"resources[{i}]"
    if not isinstance(raw, Mapping):
        problems.add(f"{where} is an object with a path", file=source)
        return None
    for key in sorted(set(raw) - _RESOURCE_KEYS):
        problems.add(f"{where}: not a resource property", file=source, value=key)
    path = raw.get("path")
    if not isinstance(path, str) or not path.strip():
        problems.add(f"{where}.path names the data file (relative to the descriptor)", file=source)
        return None
    namespace = raw.get("namespace")
    if namespace is not None and not (
        isinstance(namespace, str) and NAMESPACE_PATTERN.fullmatch(namespace)
    ):
        problems.add(
            f"{where}.namespace is 1-20 letters, digits, '-' and '_', the first a letter or digit",
            file=source,
            value=namespace,
        )
        namespace = None
    missing = raw.get("missing_fields") or []
    if not isinstance(missing, list) or not all(isinstance(m, str) for m in missing):
        problems.add(f"{where}.missing_fields is a list of field names", file=source)
        missing = []
    dialect = raw.get("dialect") or {}
    delimiter = dialect.get("delimiter", ",") if isinstance(dialect, Mapping) else ","
    if not isinstance(delimiter, str) or len(delimiter) != 1:
        problems.add(f"{where}.dialect.delimiter is one character", file=source, value=delimiter)
        delimiter = ","
    context = _context(raw.get("context"), where, source, problems)
    return ResourceSpec(path.strip(), namespace, context, tuple(missing), delimiter)


def _resources(
    raw: Any, fields: list[FieldSpec], source: str, problems: Problems
) -> list[ResourceSpec]:
    if not isinstance(raw, list) or not raw:
        problems.add("resources is a non-empty list of data files", file=source)
        return []
    parsed = [_resource(entry, i, source, problems) for i, entry in enumerate(raw)]
    resources = [r for r in parsed if r is not None]
    by_name = {f.name: f for f in fields}
    paths: set[str] = set()
    keys = list(resources[0].context) if resources else []
    for r in resources:
        if r.path in paths:
            problems.add("two resources name this file", file=source, value=r.path)
        paths.add(r.path)
        if sorted(r.context) != sorted(keys):
            problems.add(
                f"every resource gives the same context keys ({', '.join(keys) or 'none'})",
                file=source,
                value=r.path,
            )
        for key in r.context:
            if key in by_name or key in TIDY_COLUMNS:
                problems.add("a context key may not be a column's name", file=source, column=key)
        for name in r.missing_fields:
            f = by_name.get(name)
            if f is None or f.role not in _MAY_BE_MISSING:
                problems.add(
                    f"{r.path}: missing_fields names {', '.join(_MAY_BE_MISSING)} fields only",
                    file=source,
                    column=name,
                )
    return resources


def _game_paces(
    raw: Any, fields: list[FieldSpec], source: str, problems: Problems
) -> dict[str, str]:
    if raw is None:
        return {}
    if not isinstance(raw, Mapping) or not all(p in PACE_CLASSES for p in raw.values()):
        problems.add(f"game_paces maps each game to one of {', '.join(PACE_CLASSES)}", file=source)
        return {}
    if any(f.role == "pace" for f in fields):
        problems.add("give game_paces or a pace field, not both", file=source)
    return {str(g): str(p) for g, p in raw.items()}


def _sidecar_problems(descriptor: Descriptor, problems: Problems) -> None:
    """The rating items as the items sidecar: at most 8, the acceptance a value of its scale."""
    if any(f.scale is None for f in descriptor.role("rating")):
        return  # already reported
    try:
        parse_sidecar(descriptor.sidecar())
    except ValueError as exc:
        problems.add(f"the rating fields as rating items: {exc}", file=descriptor.source)


def parse_descriptor(
    raw: Any, source: str = "descriptor", problems: Problems | None = None
) -> Descriptor:
    """Check ``raw`` (the parsed JSON/YAML) and return the descriptor; raises
    :class:`~qoe_analysis.dataset.problems.DatasetError` with every problem found (or adds
    them to ``problems`` when given, for the caller to raise)."""
    own = problems is None
    problems = Problems() if problems is None else problems
    if not isinstance(raw, Mapping):
        problems.add("the descriptor is an object with resources and schema", file=source)
        raw = {}
    for key in sorted(set(raw) - _PACKAGE_KEYS):
        problems.add("not a descriptor property", file=source, value=key)
    if raw.get("profile", PROFILE) != PROFILE:
        problems.add(f"profile is {PROFILE}", file=source, value=raw.get("profile"))
    if raw.get("version", 1) != 1:
        problems.add("version is 1", file=source, value=raw.get("version"))
    schema = raw.get("schema")
    if not isinstance(schema, Mapping):
        problems.add("schema is a Table Schema object with fields", file=source)
        schema = {}
    for key in sorted(set(schema) - _SCHEMA_KEYS):
        problems.add(
            "not a schema property (this profile reads fields, missingValues)",
            file=source,
            value=key,
        )
    fields = _fields(schema, source, problems)
    _roles(fields, source, problems)
    missing = schema.get("missingValues", [""])
    if not isinstance(missing, list) or not all(isinstance(m, str) for m in missing):
        problems.add("schema.missingValues is a list of texts", file=source)
        missing = [""]
    descriptor = Descriptor(
        source=source,
        name=raw.get("name") if isinstance(raw.get("name"), str) else None,
        title=raw.get("title") if isinstance(raw.get("title"), str) else None,
        resources=tuple(_resources(raw.get("resources"), fields, source, problems)),
        fields=tuple(fields),
        missing_values=frozenset(missing),
        game_paces=_game_paces(raw.get("game_paces"), fields, source, problems),
    )
    _sidecar_problems(descriptor, problems)
    if own:
        problems.raise_if_any()
    return descriptor
