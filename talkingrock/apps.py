from django.apps import AppConfig
from django.contrib.admin import apps as admin_apps


class TalkingRockConfig(AppConfig):
    name = "talkingrock"
    verbose_name = "Household"

    def ready(self) -> None:
        from django.contrib.auth.signals import user_logged_in

        from talkingrock import passwords

        user_logged_in.connect(passwords.tell_at_sign_in, dispatch_uid="password-reset-notice")


class HouseholdAdminConfig(admin_apps.AdminConfig):
    """Django's admin with the household's site (talkingrock/admin_site.py)."""

    default = False  # named in INSTALLED_APPS; the talkingrock app is TalkingRockConfig
    default_site = "talkingrock.admin_site.HouseholdAdminSite"
