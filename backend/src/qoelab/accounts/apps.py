from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "qoelab.accounts"
    label = "accounts"
    verbose_name = "Researcher accounts (sign-in)"
