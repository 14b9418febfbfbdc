"""Every row of every QoE Lab table, to prove that a refused request changed nothing."""

from __future__ import annotations

from typing import Any

from django.apps import apps
from django.contrib.auth import get_user_model

APP_LABELS = ("studies", "stations", "participants", "runs", "ratings", "analysis_jobs")


def snapshot() -> dict[str, list[dict[str, Any]]]:
    """Every row of every QoE Lab table (and the users), to compare before/after."""
    tables: dict[str, list[dict[str, Any]]] = {}
    for label in APP_LABELS:
        for model in apps.get_app_config(label).get_models():
            tables[model._meta.label] = list(model.objects.order_by("pk").values())
    tables["auth.User"] = list(get_user_model().objects.order_by("pk").values())
    return tables
