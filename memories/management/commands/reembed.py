from __future__ import annotations

import sys
import time

from django.core.management.base import BaseCommand

from memories import indexing
from talkingrock.management.commands._members import member_named


class Command(BaseCommand):
    help = (
        "Embed memories and extract their entities, in batches: the ones whose text changed "
        "since (or that were never indexed), or every one with --all (after a model change)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--user", help="Only this member's memories.")
        parser.add_argument("--all", action="store_true", help="Redo every memory.")
        parser.add_argument("--batch-size", type=int, default=indexing.BATCH_SIZE)

    def handle(self, *args, user=None, all=False, batch_size, **options):
        owner_id = member_named(user).pk if user else None
        total = indexing.pending_count(owner_id=owner_id, everything=all)
        if not total:
            self.stdout.write("Nothing to embed: every memory is up to date.")
            return
        started = time.monotonic()
        tty = sys.stdout.isatty()

        def progress(done: int) -> None:
            elapsed = time.monotonic() - started
            rate = done / elapsed if elapsed else 0.0
            eta = (total - done) / rate if rate else 0.0
            width = 30
            filled = int(width * min(done, total) / total)
            line = (
                f"[{'#' * filled}{'.' * (width - filled)}] {done:,}/{total:,} "
                f"{rate:,.0f}/s ETA {eta:,.0f} s"
            )
            self.stdout.write(("\r" + line) if tty else line, ending="" if tty else "\n")
            self.stdout.flush()

        done = indexing.index_memories(
            owner_id=owner_id, everything=all, batch_size=batch_size, progress=progress
        )
        elapsed = time.monotonic() - started
        if tty:
            self.stdout.write("")
        self.stdout.write(f"Embedded {done:,} memories in {elapsed:,.1f} s.")
