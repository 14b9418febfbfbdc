from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "qoelab.accounts"
    label = "accounts"
    verbose_name = "Researcher accounts (sign-in)"

    def ready(self) -> None:
        from django.contrib import admin

        from qoelab.accounts.admin_login import ThrottledAdminAuthenticationForm

        # The admin's form catches the guessing limit of ThrottledModelBackend.
        admin.site.login_form = ThrottledAdminAuthenticationForm
