from django.apps import AppConfig


class ConversationsConfig(AppConfig):
    name = "conversations"

    def ready(self) -> None:
        from django.contrib.auth import get_user_model
        from django.db.models.signals import post_migrate, post_save
        from django_q.signals import post_spawn

        from conversations import tools  # noqa: F401 - the reasoning tools join the registry
        from conversations.services import give_new_member_a_story
        from conversations.tasks import ensure_schedules, sweep_on_spawn
        from talkingrock import nlp

        nlp.check_model_package()  # fail at start-up, naming the package, not at the first close

        # A module-level receiver: signals hold weak references, and a function defined in here
        # would be collected as soon as ready() returns, silently never firing.
        post_save.connect(
            give_new_member_a_story,
            sender=get_user_model(),
            dispatch_uid="conversations.give_new_member_a_story",
        )
        post_migrate.connect(ensure_schedules, sender=self, dispatch_uid="conversations.schedules")
        # A worker that starts (after a crash, a kill, a reboot) recovers lost work at once.
        post_spawn.connect(sweep_on_spawn, dispatch_uid="conversations.sweep_on_spawn")
