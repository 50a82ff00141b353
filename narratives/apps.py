from django.apps import AppConfig


class NarrativesConfig(AppConfig):
    name = "narratives"
