from django.apps import AppConfig


class NarrativesConfig(AppConfig):
    name = "narratives"

    def ready(self) -> None:
        from django.db.models.signals import post_migrate

        from narratives import tools  # noqa: F401 - the narrative tools join the registry

        post_migrate.connect(restore_triggers, sender=self, dispatch_uid="narratives.fts_guard")


def restore_triggers(sender=None, using: str = "default", **kwargs) -> list[str]:
    """FTS and immutability triggers a table remake dropped come back after ``migrate``."""
    from memories.housekeeping import restore_triggers as restore
    from narratives import sql

    return restore(sql, using)
