from django.apps import AppConfig


class TalkingRockConfig(AppConfig):
    """The core every app builds on: the member model, tokens, embeddings, the model client, the
    tool registry, jobs and text helpers. Its pages and transports are the household app's."""

    name = "talkingrock"
    verbose_name = "Household"
