from django.apps import AppConfig


class ConversationsConfig(AppConfig):
    name = "conversations"

    def ready(self) -> None:
        from django.contrib.auth import get_user_model
        from django.db.models.signals import post_migrate, post_save

        from conversations.services import give_new_member_a_story
        from conversations.tasks import ensure_schedules

        # A module-level receiver: signals hold weak references, and a function defined in here
        # would be collected as soon as ready() returns, silently never firing.
        post_save.connect(
            give_new_member_a_story,
            sender=get_user_model(),
            dispatch_uid="conversations.give_new_member_a_story",
        )
        post_migrate.connect(ensure_schedules, sender=self, dispatch_uid="conversations.schedules")
