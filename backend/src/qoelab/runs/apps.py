from django.apps import AppConfig


class RunsConfig(AppConfig):
    name = "qoelab.runs"
    label = "runs"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from qoelab.runs import schema  # noqa: F401  (registers the OpenAPI extension)
