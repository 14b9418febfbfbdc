from django.apps import AppConfig


class AnalysisJobsConfig(AppConfig):
    name = "qoelab.analysis_jobs"
    label = "analysis_jobs"
    default_auto_field = "django.db.models.BigAutoField"
