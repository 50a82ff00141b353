from django.conf import settings

from talkingrock import llm


def engine(request):
    """The engine status for the header: checked at most every ``status_ttl`` seconds."""
    if not request.user.is_authenticated:
        return {}
    return {"engine": llm.status(), "engine_poll_seconds": settings.TALKINGROCK_LLM["status_ttl"]}
