"""QoE Lab web backend (Django project)."""

from qoelab.celery import app as celery_app

__all__ = ["celery_app"]
__version__ = "0.1.0"
