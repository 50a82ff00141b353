from django.apps import AppConfig
from django.contrib.admin import apps as admin_apps


class HouseholdConfig(AppConfig):
    """The top floor: members and setup, the pages' URLs, the HTTP tool API, the MCP server,
    the admin site, and household backup and restore."""

    name = "household"
    verbose_name = "Household pages and transports"

    def ready(self) -> None:
        from django.contrib.auth.signals import user_logged_in

        from household import passwords

        user_logged_in.connect(passwords.tell_at_sign_in, dispatch_uid="password-reset-notice")


class HouseholdAdminConfig(admin_apps.AdminConfig):
    """Django's admin with the household's site (household/admin_site.py)."""

    default = False  # named in INSTALLED_APPS; the household app is HouseholdConfig
    default_site = "household.admin_site.HouseholdAdminSite"
