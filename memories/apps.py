from functools import partial

from django.apps import AppConfig


class MemoriesConfig(AppConfig):
    name = "memories"

    def ready(self) -> None:
        from django.conf import settings
        from django.db.models.signals import post_delete, post_migrate, post_save
        from django_q.signals import post_spawn

        from memories import tools  # noqa: F401 - the memory tools join the registry
        from memories.acts import give_new_member_a_story
        from memories.consolidation import sql as consolidation_sql
        from memories.housekeeping import (
            ensure_context_keys,
            ensure_schedules,
            member_created,
            member_deleted,
            restore_fts_triggers,
        )
        from memories.tasks import resume_on_spawn
        from talkingrock.embeddings import check_model_package

        check_model_package()  # fail at start-up, naming the package, not at the first store

        guard = partial(restore_fts_triggers, ddl_modules=(consolidation_sql,))
        post_migrate.connect(guard, sender=self, weak=False, dispatch_uid="memories.fts_guard")
        post_migrate.connect(ensure_context_keys, sender=self, dispatch_uid="memories.context_keys")
        post_migrate.connect(ensure_schedules, sender=self, dispatch_uid="memories.schedules")
        # A worker that starts runs again the consolidation passes a killed one left unfinished.
        post_spawn.connect(resume_on_spawn, dispatch_uid="memories.resume_on_spawn")
        # Each member has a keyword index of their own (memories/sql.py).
        post_save.connect(
            member_created, sender=settings.AUTH_USER_MODEL, dispatch_uid="memories.member_index"
        )
        post_delete.connect(
            member_deleted, sender=settings.AUTH_USER_MODEL, dispatch_uid="memories.member_gone"
        )
        # Every member starts with Your Story. A module-level receiver: signals hold weak
        # references, and a function defined in here would be collected when ready() returns.
        post_save.connect(
            give_new_member_a_story,
            sender=settings.AUTH_USER_MODEL,
            dispatch_uid="memories.give_new_member_a_story",
        )
        post_delete.connect(
            vector_deleted, sender=self.get_model("Memory"), dispatch_uid="memories.vector_deleted"
        )


def vector_deleted(sender, instance, **kwargs) -> None:
    """A deleted memory's vector goes with it (a trigger); processes holding the member's
    vectors in memory re-read them (memories/vectors.py)."""
    from memories.context import memory_deleted
    from memories.vectors import record_deletion

    record_deletion(instance.owner_id)
    memory_deleted(instance)  # the memories told after it lose a neighbour
