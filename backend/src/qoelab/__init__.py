"""QoE Lab web backend (Django project)."""

# Set before anything is imported: settings.py reads it (the API schema's version).
__version__ = "1.0.0"

from qoelab.celery import app as celery_app

__all__ = ["celery_app"]
