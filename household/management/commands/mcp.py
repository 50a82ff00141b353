from __future__ import annotations

import anyio
from django.core.management.base import BaseCommand, CommandError

from household.mcp_server import serve_stdio
from talkingrock.management.commands._members import member_named


class Command(BaseCommand):
    help = (
        "Serve the tool registry over MCP on stdin and stdout for one member, until the client "
        "closes stdin. A desktop MCP client starts this; stdout carries nothing but the protocol."
    )

    def add_arguments(self, parser):
        parser.add_argument("--user", required=True, help="The member the tools act for.")

    def handle(self, *args, user, **options):
        member = member_named(user)
        if not member.is_active:
            raise CommandError(f"{member.username} is not an active member; nothing is served.")
        anyio.run(serve_stdio, member.pk)
