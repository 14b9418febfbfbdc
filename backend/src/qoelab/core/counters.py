"""Counters that only move by ``F(field) + 1`` in the database (the results cache's data
versions): a model's full ``save()`` must never write such a field back from memory."""

from __future__ import annotations

from typing import Any

from django.db import models


def save_kwargs_without(instance: models.Model, field: str, kwargs: dict[str, Any]) -> None:
    """Make an update ``save()`` of ``instance`` write every concrete field but ``field``.

    A row loaded before a concurrent ``F(field) + 1`` would otherwise put the old value
    back. Inserts (the counter starts at its default) and saves that name their
    ``update_fields`` are left as they are."""
    if not instance._state.adding and kwargs.get("update_fields") is None:
        kwargs["update_fields"] = [
            f.name for f in instance._meta.concrete_fields if not f.primary_key and f.name != field
        ]
