"""The Celery application, configured from Django settings (CELERY_* variables)."""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "qoelab.settings")

app = Celery("qoelab")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
