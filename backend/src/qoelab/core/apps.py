from django.apps import AppConfig


class CoreConfig(AppConfig):
    name = "qoelab.core"
    label = "core"
    verbose_name = "QoE Lab core"
