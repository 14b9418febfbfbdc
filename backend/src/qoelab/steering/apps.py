from django.apps import AppConfig


class SteeringConfig(AppConfig):
    name = "qoelab.steering"
    label = "steering"
    default_auto_field = "django.db.models.BigAutoField"
