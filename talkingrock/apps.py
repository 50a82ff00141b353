from django.apps import AppConfig


class TalkingRockConfig(AppConfig):
    name = "talkingrock"
    verbose_name = "Household"
