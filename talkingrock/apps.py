from django.apps import AppConfig
from django.contrib.admin import apps as admin_apps


class TalkingRockConfig(AppConfig):
    name = "talkingrock"
    verbose_name = "Household"


class HouseholdAdminConfig(admin_apps.AdminConfig):
    """Django's admin with the household's site (talkingrock/admin_site.py)."""

    default = False  # named in INSTALLED_APPS; the talkingrock app is TalkingRockConfig
    default_site = "talkingrock.admin_site.HouseholdAdminSite"
