from __future__ import annotations

from django.core.management.base import BaseCommand

from talkingrock.management.commands._members import member_named
from talkingrock.models import ApiToken


class Command(BaseCommand):
    help = "Create or list a member's bearer tokens for the tool API."

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="action", required=True)
        create = sub.add_parser("create", help="Print a new token; its last line is the token.")
        create.add_argument("--user", required=True)
        create.add_argument("--name", default="command line")
        listing = sub.add_parser("list", help="List a member's tokens (hints only).")
        listing.add_argument("--user", required=True)

    def handle(self, *args, action, user, **options):
        member = member_named(user)
        if action == "create":
            _, raw = ApiToken.issue(owner=member, name=options["name"])
            self.stderr.write(f"New token for {member.username}; it is shown only once:")
            self.stdout.write(raw)
        else:
            for token in ApiToken.objects.filter(owner=member):
                used = token.last_used_at.isoformat() if token.last_used_at else "never used"
                self.stdout.write(f"{token.pk}\t{token.hint}…\t{token.name}\t{used}")
