"""What the four consolidation commands share: --user, --offline, progress, a summary."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from memories.consolidation import passes
from talkingrock.management.commands._members import member_named


class PassCommand(BaseCommand):
    pass_name = ""

    def add_arguments(self, parser):
        parser.add_argument("--user", help="Only this member (default: every member, in turn).")
        parser.add_argument(
            "--offline",
            action="store_true",
            help="Use the offline rules even when Ollama is running.",
        )

    def handle(self, *args, user=None, offline=False, **options):
        owner_ids = [member_named(user).pk] if user else None
        extra = {"use_model": False} if offline else {}
        verbose = options.get("verbosity", 1) > 1

        def progress(line: str) -> None:
            if verbose:
                self.stdout.write(f"  {line}")

        self.stdout.write(f"{self.pass_name}: starting")
        done = passes.run(self.pass_name, owner_ids, progress=progress, **extra)
        if not done:
            self.stdout.write("Nothing to do (no member has work for this pass, or it is off).")
        for owner_id, summary in done.items():
            what = ", ".join(f"{n} {k}" for k, n in sorted(summary.items())) or "nothing to do"
            self.stdout.write(f"member {owner_id}: {what}")
