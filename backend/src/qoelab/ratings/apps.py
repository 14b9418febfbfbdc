from django.apps import AppConfig


class RatingsConfig(AppConfig):
    name = "qoelab.ratings"
    label = "ratings"
    default_auto_field = "django.db.models.BigAutoField"
