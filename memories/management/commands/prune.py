from __future__ import annotations

from django.core.management.base import BaseCommand

from memories import services


class Command(BaseCommand):
    help = (
        "Archive the bottom prune_percent of memories by score weight × recency when the "
        "database is larger than max_size. Archived memories stay searchable and restorable."
    )

    def add_arguments(self, parser):
        parser.add_argument("--force", action="store_true", help="Prune even under max_size.")
        parser.add_argument("--dry-run", action="store_true", help="Only say what would go.")

    def handle(self, *args, force, dry_run, **options):
        report = services.prune(force=force, dry_run=dry_run)
        mib = 1024 * 1024
        self.stdout.write(
            f"Database {report.database_bytes / mib:.1f} MiB, limit {report.max_bytes / mib:.1f} MiB."
        )
        verb = "Would archive" if dry_run else "Archived"
        self.stdout.write(f"{verb} {len(report.archived_ids)} memories.")
