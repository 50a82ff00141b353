from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from conversations import importing
from memories.porting import ImportFormatError
from talkingrock.management.commands._members import member_named


class Command(BaseCommand):
    help = (
        "Bring in a member's conversations with their dates, from Talking Rock's own JSON, "
        "ChatGPT's conversations.json or Claude's export: each is compressed and kept as of its "
        "own day, oldest first; conversations imported before are recognised."
    )

    def add_arguments(self, parser):
        parser.add_argument("path", type=Path)
        parser.add_argument("--user", required=True)

    def handle(self, *args, path: Path, user: str, **options):
        member = member_named(user)
        try:
            data = importing.load(path.read_bytes(), bounded=False)
            job = importing.queue(owner=member, data=data, enqueue=False)
        except OSError as error:
            raise CommandError(f"Cannot read {path}: {error.strerror}") from None
        except ImportFormatError as error:
            raise CommandError(str(error)) from None
        status = importing.run(job.pk, progress=lambda line: self.stdout.write(f"  {line}"))
        job.refresh_from_db()
        states = [entry["state"] for entry in job.report]
        self.stdout.write(
            f"Import {job.pk} ({job.source}) {status}: {states.count('imported')} imported, "
            f"{states.count('already imported')} already there, of {len(states)}."
        )
        if job.error:
            raise CommandError(job.error)
