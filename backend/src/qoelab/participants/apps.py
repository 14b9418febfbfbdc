from django.apps import AppConfig


class ParticipantsConfig(AppConfig):
    name = "qoelab.participants"
    label = "participants"
    default_auto_field = "django.db.models.BigAutoField"
