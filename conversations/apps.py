from django.apps import AppConfig


class ConversationsConfig(AppConfig):
    name = "conversations"

    def ready(self) -> None:
        from django.db.models.signals import post_migrate
        from django_q.signals import post_spawn

        from conversations import tools  # noqa: F401 - the conversation tools join the registry
        from conversations.tasks import ensure_schedules, sweep_on_spawn
        from talkingrock import nlp

        nlp.check_model_package()  # fail at start-up, naming the package, not at the first close

        post_migrate.connect(ensure_schedules, sender=self, dispatch_uid="conversations.schedules")
        # A worker that starts (after a crash, a kill, a reboot) recovers lost work at once.
        post_spawn.connect(sweep_on_spawn, dispatch_uid="conversations.sweep_on_spawn")
