from django.apps import AppConfig


class StudiesConfig(AppConfig):
    name = "qoelab.studies"
    label = "studies"
    verbose_name = "Studies"
    default_auto_field = "django.db.models.BigAutoField"
