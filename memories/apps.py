from django.apps import AppConfig


class MemoriesConfig(AppConfig):
    name = "memories"

    def ready(self) -> None:
        from django.db.models.signals import post_migrate

        from memories.housekeeping import ensure_schedules, restore_fts_triggers
        from talkingrock.embeddings import check_model_package

        check_model_package()  # fail at start-up, naming the package, not at the first store

        post_migrate.connect(restore_fts_triggers, sender=self, dispatch_uid="memories.fts_guard")
        post_migrate.connect(ensure_schedules, sender=self, dispatch_uid="memories.schedules")
