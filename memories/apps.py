from django.apps import AppConfig


class MemoriesConfig(AppConfig):
    name = "memories"

    def ready(self) -> None:
        from django.db.models.signals import post_migrate

        from memories.housekeeping import ensure_prune_schedule, restore_fts_triggers

        post_migrate.connect(restore_fts_triggers, sender=self, dispatch_uid="memories.fts_guard")
        post_migrate.connect(
            ensure_prune_schedule, sender=self, dispatch_uid="memories.prune_schedule"
        )
