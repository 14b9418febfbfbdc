from django.apps import AppConfig


class DatasetsConfig(AppConfig):
    name = "qoelab.datasets"
    label = "datasets"
    default_auto_field = "django.db.models.BigAutoField"
