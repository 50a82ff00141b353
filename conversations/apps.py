from django.apps import AppConfig


class ConversationsConfig(AppConfig):
    name = "conversations"

    def ready(self) -> None:
        from django.contrib.auth import get_user_model
        from django.db.models.signals import post_save

        from conversations.services import ensure_your_story

        def give_new_member_a_story(sender, instance, created, raw=False, **kwargs):
            if created and not raw:
                ensure_your_story(owner=instance)

        post_save.connect(
            give_new_member_a_story,
            sender=get_user_model(),
            dispatch_uid="conversations.give_new_member_a_story",
        )
