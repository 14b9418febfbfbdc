from django.apps import AppConfig


class StationsConfig(AppConfig):
    name = "qoelab.stations"
    label = "stations"
    default_auto_field = "django.db.models.BigAutoField"
