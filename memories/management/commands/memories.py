from __future__ import annotations

from pathlib import Path

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from household import backup, restore
from memories import services
from memories.consolidation import sql as consolidation_sql
from memories.housekeeping import rebuild_fts, restore_fts_triggers
from narratives import services as narratives
from talkingrock.management.commands._members import member_named


class Command(BaseCommand):
    help = (
        "Import a member's memories from Markdown (MEMORY.md + memory/*.md) or a JSON export, "
        "export everything they own as JSON (restorable) or their memories as Markdown, store "
        "one memory, or rebuild the keyword index."
    )

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="action", required=True)
        imp = sub.add_parser(
            "import", help="Import a Markdown folder/file or a JSON export (version 1 or 2)."
        )
        imp.add_argument("path", type=Path)
        imp.add_argument("--user", required=True)
        exp = sub.add_parser(
            "export", help="JSON: everything a member owns, restorable. Markdown: their memories."
        )
        exp.add_argument("--user", required=True)
        exp.add_argument("--format", choices=backup.EXPORT_FORMATS, default="json")
        exp.add_argument("--out", type=Path, help="File to write (default: standard output).")
        store = sub.add_parser("store", help="Store one memory (as the memory_store tool does).")
        store.add_argument("content")
        store.add_argument("--user", required=True)
        store.add_argument("--tags", default="")
        store.add_argument("--happened-at", help="ISO date or date-time it happened")
        store.add_argument("--session", default="", help="a name grouping memories said together")
        sub.add_parser("reindex", help="Restore missing index triggers and rebuild the index.")

    def handle(self, *args, action, **options):
        if action == "import":
            self._import(options["path"], member_named(options["user"]))
        elif action == "export":
            self._export(member_named(options["user"]), options["format"], options["out"])
        elif action == "store":
            self._store(member_named(options["user"]), options)
        else:
            restored = restore_fts_triggers(ddl_modules=(consolidation_sql,))
            rebuild_fts()
            self.stdout.write(f"Index rebuilt; triggers restored: {', '.join(restored) or 'none'}.")

    def _import(self, path: Path, member) -> None:
        try:
            report = restore.import_path(owner=member, path=path)
        except restore.ImportFormatError as error:
            raise CommandError(str(error)) from None
        for error in report.errors:
            self.stderr.write(f"skipped: {error}")
        for note in report.notes:
            self.stderr.write(f"note: {note}")
        self.stdout.write(
            f"Imported {report.created} memories for {member.username}; "
            f"{report.skipped} already there, {len(report.errors)} refused."
        )
        if restored := ", ".join(f"{n} {kind}" for kind, n in report.restored.items() if n):
            self.stdout.write(f"Also restored: {restored}.")

    def _store(self, member, options) -> None:
        try:
            memory = services.memory_store(
                owner=member,
                content=options["content"],
                tags=options["tags"],
                source="manual",
                happened_at=options["happened_at"],
                session=options["session"],
                narrative_id=narratives.latest_id(member),  # the active link's stamp
            )
        except ValidationError as error:
            raise CommandError(" ".join(error.messages)) from None
        self.stdout.write(f"Stored [id:{memory.pk}] for {member.username}.")

    def _export(self, member, fmt: str, out: Path | None) -> None:
        body, _, _ = backup.export_memories(owner=member, fmt=fmt)
        if out is None:
            self.stdout.write(body, ending="")
        else:
            try:
                out.write_text(body, encoding="utf-8")
            except OSError as error:
                raise CommandError(f"Cannot write {out}: {error.strerror or error}.") from None
            self.stderr.write(f"Wrote {out}.")
