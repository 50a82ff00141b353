"""Settings for running Talking Rock on one household machine.

Everything that must survive lives under ``TALKINGROCK_DATA_DIR`` (default ``./var/``): the SQLite
file. The secret key is read from ``TALKINGROCK_SECRET_KEY`` or kept in ``var/secret_key``; losing
that file only signs everybody out.
"""

from __future__ import annotations

import os
import secrets
from datetime import timedelta
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent.parent
DATA_DIR = Path(os.environ.get("TALKINGROCK_DATA_DIR", BASE_DIR / "var")).resolve()
DATA_DIR.mkdir(parents=True, exist_ok=True)

# The embedding model ships in a package; never reach for a hub at run time.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


def _secret_key() -> str:
    if key := os.environ.get("TALKINGROCK_SECRET_KEY"):
        return key
    path = DATA_DIR / "secret_key"
    if not path.exists():
        path.write_text(secrets.token_urlsafe(50))
        path.chmod(0o600)
    return path.read_text().strip()


SECRET_KEY = _secret_key()
DEBUG = os.environ.get("TALKINGROCK_DEBUG", "") == "1"
ALLOWED_HOSTS = ["127.0.0.1", "localhost", "[::1]"]

INSTALLED_APPS = [
    "household.apps.HouseholdAdminConfig",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django_htmx",
    "template_partials",
    "django_q",
    "talkingrock",
    "household",
    "conversations",
    "narratives",
    "memories",
    "axes",  # last: its checks look for its backend and middleware among the others
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "household.members.onboarding_middleware",
    # Last, as django-axes asks: it turns a locked-out sign-in into the lockout page.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "household.urls"
WSGI_APPLICATION = "household.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "household.context_processors.engine",
            ],
        },
    },
]

DATABASES = {
    "default": {
        "ENGINE": "talkingrock.db",
        "NAME": DATA_DIR / "talkingrock.sqlite3",
        "OPTIONS": {
            # IMMEDIATE: a transaction takes the write lock when it begins, so the busy timeout
            # applies; a DEFERRED read-then-write fails at once under contention (TECH_NOTES §4).
            "transaction_mode": "IMMEDIATE",
            "timeout": 20,
            "init_command": (
                "PRAGMA journal_mode=WAL;"
                "PRAGMA synchronous=NORMAL;"
                "PRAGMA cache_size=-20000;"
                "PRAGMA temp_store=MEMORY;"
                "PRAGMA mmap_size=1073741824;"
                "PRAGMA journal_size_limit=67108864"
            ),
        },
    }
}

# Shared by the web server and the worker: django-q2 keeps its cluster heartbeat here, which is
# how the web server knows whether background work will be picked up (talkingrock/jobs.py).
CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
        "LOCATION": DATA_DIR / "cache",
    }
}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    # 0.5, not Django's 0.7: "maya1234" for the member maya (similarity 0.67), the name with a
    # few digits, is the first thing anyone tries.
    {
        "NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator",
        "OPTIONS": {"max_similarity": 0.5},
    },
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
# Sign-in throttling (django-axes, household/throttle.py): AXES_FAILURE_LIMIT wrong passwords
# for one username from one address, or for one username from anywhere, lock it out for the
# cool-off time whatever the next password; a browser the member signed in with before is held
# only to its own count, so guessing elsewhere cannot lock them out of it. A correct sign-in
# clears the count. Bad bearer tokens count per token and address; a valid token always works.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = int(os.environ.get("TALKINGROCK_LOGIN_FAILURES", 5))
AXES_COOLOFF_TIME = timedelta(minutes=int(os.environ.get("TALKINGROCK_LOCKOUT_MINUTES", 15)))
AXES_LOCKOUT_PARAMETERS = "household.throttle.lockout_parameters"
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_CALLABLE = "household.throttle.locked_out"
AXES_VERBOSE = False
# An admin's password reset gives the member a one-time link (household/passwords.py): it
# works for a day at most.
PASSWORD_RESET_TIMEOUT = 60 * 60 * 24
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en-gb"
TIME_ZONE = os.environ.get("TALKINGROCK_TIME_ZONE", "UTC")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = BASE_DIR / ".staticfiles"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
# `make run` collects static files into STATIC_ROOT; WhiteNoise serves them from there.

Q_CLUSTER = {
    "name": "talkingrock",
    "orm": "default",
    # Two worker processes, one per core, each with torch on one thread (talkingrock/threads.py):
    # two members' memories are embedded side by side, and a chat reply need not wait behind a
    # long indexing run (docs/benchmarks.md, "Two task workers").
    "workers": int(os.environ.get("TALKINGROCK_TASK_WORKERS", 2)),
    "timeout": 300,
    "retry": 360,  # must exceed timeout, or a slow task runs twice.
    "max_attempts": 3,
    "catch_up": False,
    "save_limit": 250,
    "poll": 0.5,
    "recycle": 200,
    "ack_failures": True,
}

# Memory ranking and housekeeping (seed 001). Reinforcing is a stronger signal than demoting: a
# memory reinforced once survives three demotions before it is neutral again.
TALKINGROCK_MEMORY = {
    "reinforce_weight": int(os.environ.get("TALKINGROCK_REINFORCE_WEIGHT", 3)),
    "demote_weight": int(os.environ.get("TALKINGROCK_DEMOTE_WEIGHT", 1)),
    # Pruning archives only when the database file is larger than this.
    "max_size": int(os.environ.get("TALKINGROCK_MAX_SIZE", 100 * 1024 * 1024)),
    "prune_percent": float(os.environ.get("TALKINGROCK_PRUNE_PERCENT", 1)),
    "prune_schedule": os.environ.get("TALKINGROCK_PRUNE_SCHEDULE", "0 4 * * *"),
    "max_content_length": 10_000,
    # Memories no queued task reached (a worker killed mid-batch) are indexed by this sweep.
    "index_sweep_minutes": 5,
}

# Consolidation (memories/consolidation/, seed 002): facts into observations every 30 seconds,
# then once a day the temporal pass, the merge and the dreams, at ``daily_schedule`` (cron).
TALKINGROCK_CONSOLIDATION = {
    "enabled": os.environ.get("TALKINGROCK_CONSOLIDATION", "on") != "off",
    # croniter's sixth field is seconds: every 30 s (django-q2 looks at its schedules about
    # every 30 s, so a pass runs every 30 to 60 s).
    "schedule": os.environ.get("TALKINGROCK_CONSOLIDATION_SCHEDULE", "* * * * * */30"),
    "daily_schedule": os.environ.get("TALKINGROCK_CONSOLIDATION_DAILY", "30 3 * * *"),
    "batch": 200,  # facts per member per pass
    "agree": 0.85,  # offline: a fact this close to an observation's text is more evidence for it
    # Offline, facts about one entity with no relation are one topic when at least this close
    # (MiniLM: sentences on one topic mostly score 0.4-0.8, unrelated ones below 0.3).
    "same_topic": 0.45,
    "key_facts": 50,  # offline: a new observation starts from at most this many of its key's facts
    "key_scan": 1000,  # offline: the newest memories naming a key's entity looked through
    "model_timeout": 60.0,  # seconds per consolidation answer from the model
    # A run whose process ended is taken over at once; one whose process this machine cannot see
    # (another host) only once it is this old.
    "stale_minutes": 30,
    "window_days": 120,  # the temporal pass reads facts this recent
    "min_entity_facts": 3,  # an entity needs this many recent facts for the temporal pass
    "enrich_above": 0.90,  # a pattern this close to an observation enriches it instead
    "merge_above": 0.90,  # the merge: observations this close are weighed as one
    "dreams_max": 3,
    "dream_seed": 0,  # k-means is deterministic under a fixed seed
    "context_observations": 3,  # observations joined into a reply's context
}

# The language model (talkingrock/llm/): Ollama on loopback when it runs, the offline engine when
# it does not. TALKINGROCK_LLM=off keeps every answer on the offline engine.
TALKINGROCK_LLM = {
    "enabled": os.environ.get("TALKINGROCK_LLM", "on") != "off",
    "host": os.environ.get("OLLAMA_HOST", "http://127.0.0.1:11434"),
    "model": os.environ.get("TALKINGROCK_LLM_MODEL", "llama3.2:3b"),
    "timeout": float(os.environ.get("TALKINGROCK_LLM_TIMEOUT", 120)),  # seconds per answer
    "connect_timeout": 2.0,  # loopback connects at once or not at all
    "status_ttl": 30,  # seconds the header's engine status is trusted before re-checking
    "temperature": 0.3,
}

# Narratives (narratives/): seed 000.
TALKINGROCK_NARRATIVES = {
    # Offline topic shift: a message whose best cosine against the running topic, its sentence
    # and the member's previous message falls below this starts a new topic (MiniLM: related
    # sentences mostly score 0.25-0.6, unrelated ones below 0.25).
    "topic_shift_below": float(os.environ.get("TALKINGROCK_TOPIC_SHIFT_BELOW", 0.2)),
    "min_shift_words": 3,  # "ok, thanks" is too short to change the topic
    # The context sent to the model: system + narrative + the last exchanges + recalled memories,
    # kept under this many tokens (estimated at 4 characters a token).
    "context_token_budget": int(os.environ.get("TALKINGROCK_CONTEXT_TOKENS", 3000)),
    "recent_exchanges": 4,  # member + assistant pairs kept verbatim, newest first, budget allowing
}

# The conversation lifecycle (conversations/): seed 003.
TALKINGROCK_CONVERSATIONS = {
    "max_message_chars": 10_000,
    "extraction_passes": int(os.environ.get("TALKINGROCK_EXTRACTION_PASSES", 2)),
    "tool_rounds": 3,  # memory_query rounds the model may take before it must answer
    # Seconds a reply may spend on the model, all rounds together; past it the offline engine
    # answers and says so. The reply is written by the task worker, never in a web request.
    "reply_timeout": float(os.environ.get("TALKINGROCK_REPLY_TIMEOUT", 30)),
    "context_memories": 5,  # recalled memories in a reply's context (the model's)
    # What an offline answer reads: with every message in the indexes, the sentence that holds
    # the detail is often not among the first five, nor the first fifteen (bench/answers.py on
    # the dev households: 15 → 184 of 271, 25 → 191, 35 → 192 at half as much time again).
    "answer_memories": 25,
    # How far down recall's hits a question that those would leave declined may still be
    # answered, by a sentence that covers it in so many words (conversations/answers.py).
    "answer_reach": 60,
    "recent_memories": 3,  # plus the most recent ones, whatever the message says
    "nudge_after_minutes": int(os.environ.get("TALKINGROCK_NUDGE_AFTER_MINUTES", 120)),
    "stale_task_days": int(os.environ.get("TALKINGROCK_STALE_TASK_DAYS", 5)),
    "recent_decision_days": 7,
    # A compression older than this is requeued by the sweeper (a worker died under it).
    "compression_timeout_minutes": float(os.environ.get("TALKINGROCK_COMPRESSION_TIMEOUT", 15)),
    "resolution_similarity": 0.6,  # cosine between a new item and an open one to propose resolving
    # The largest conversations export the upload takes (manage.py import_conversations has
    # none); the HTTP tool's body is bounded by DATA_UPLOAD_MAX_MEMORY_SIZE.
    "max_import_bytes": int(os.environ.get("TALKINGROCK_MAX_IMPORT_MB", 64)) * 1024 * 1024,
}

# Hybrid recall (memories/recall/). docs/benchmarks.md has the LoCoMo measurements these were
# chosen by; change them with bench/locomo.py at hand.
# The embedding model's matrix products: "auto" runs them in bfloat16 where the processor does
# that natively (1.6x the memories per second, vectors within cosine 0.9999 of float32's), else
# in float32; "bf16" or "fp32" forces one (talkingrock/embeddings.py).
TALKINGROCK_EMBEDDINGS = {
    "precision": os.environ.get("TALKINGROCK_EMBEDDING_PRECISION", "auto"),
}

TALKINGROCK_RECALL = {
    # Candidate lists. sqlite-vec's top-k cost grows with k (TECH_NOTES §1.2); 100 keeps a
    # member's KNN near 20 ms at 100k memories. A filtered recall (acts, sources…) asks for more
    # neighbours, because the filter runs after the top-k and can only shrink it.
    "keyword_k": 200,
    # The learned ranker (memories/recall/ranker.py, issue 26) orders the candidates the steps
    # below gather, in place of their hand-tuned sum. Off: on the held-out LoCoMo half it gains
    # 0.9 points of R@10 (77.5 → 78.4), but on the realchat chats, the real talk recall is for,
    # it gains nothing (frozen test R@10 57.0 → 56.8, R@50 84.7 → 82.9) and the household answers
    # do not move (dev 84/115 and test 38/70 with it, 85 and 37 without); docs/benchmarks.md. bench/locomo.py's "tuned"
    # and "hybrid" modes compare the two with --set ranker=true.
    "ranker": False,
    # Like memory_query's MATCH_BUDGET (5,000), tighter: the rows BM25 scores are most of the
    # keyword list's cost, and recall has the meaning list beside it.
    "keyword_budget": 2000,
    "vector_k": 100,
    # "memory": the exact KNN as one BLAS product over this process's copy of the member's
    # vectors, kept in step with sqlite-vec (2 ms for 40k memories, against 22 ms for
    # sqlite-vec's scalar scan; memories/vectors.py). "sqlite-vec": search memory_vec directly.
    "vector_search": "memory",
    "filtered_vector_k": 400,
    # Fusion on scores: BM25 scaled so the best keyword match is 1, plus meaning_weight × cosine
    # similarity (every candidate gets both). Measured on LoCoMo: R@10 59.9 against 54.3 for
    # reciprocal-rank fusion of the same lists, which throws the scores' gaps away; cosines
    # sit in a narrow band (0.2–0.6), hence a weight of 3; 4 since the contextual keys (issue 12,
    # tuned on LoCoMo 0-4 and the realchat dev split with bench/locomo.py --set).
    "meaning_weight": 4.0,
    # A memory's similarity is the better of its own key's and its contextual key's (itself with
    # the two memories told before it, memories/context.py): short chat turns mean little alone.
    "context_keys": True,
    # A query name found on more than this share of the member's memories (their own name, a
    # partner's) is left out of the embedded query and kept as a boost (named_entity_boost).
    "common_name_share": 0.15,
    "named_entity_boost": 0.3,
    # Conversations: the neighbours of the best neighbour_seeds candidates join; every candidate
    # gains neighbour_weight × its best neighbour's score (neighbour2_weight two away) and
    # conversation_weight × its conversation's best score. What answers a question is often
    # said a turn before or after what matches it. (0.4 until the contextual keys, which already
    # hold the two turns before: 0.2 since, tuned as meaning_weight.)
    "neighbour_seeds": 10,
    "neighbour_weight": 0.2,
    "neighbour2_weight": 0.15,
    "conversation_weight": 0.6,
    # Time: inside a window the query names, × (1 + time_boost); the time_k memories of the
    # window nearest in meaning join, when it holds at most time_scan memories (comparing more
    # costs ~20 µs each; a broader window is left to the two lists and the lift).
    "time_boost": 0.6,
    "time_k": 20,
    "time_scan": 300,
    # Multi-hop, one bounded second round (memories/recall/steps.py): the words of the
    # second_round_seeds strongest hits rarest in the member's memories (of the first
    # second_round_probe, found on 2 to second_round_max_df memories; second_round_words of
    # them) are searched for again; each of the second_round_k found gains weight × its share of
    # the best BM25 × the strongest hit's score. 0 turns it off.
    "second_round_weight": 0.0,
    "second_round_seeds": 3,
    "second_round_probe": 24,
    "second_round_max_df": 20,
    "second_round_words": 4,
    "second_round_k": 30,
    # The best few candidates seed the entity hop and the co-recall links.
    "seed_count": 5,
    # Entity hop: gain = weight × IDF × the seed's share of the top score, for names on at most
    # entity_max_share of the memories (or on at most entity_min_df, however few memories).
    "entity_weight": 0.2,
    "entity_max_share": 0.05,
    "entity_min_df": 10,
    "entity_fanout": 20,
    # Co-recall links of the seeds, and how many top hits of a purposeful recall get linked.
    "link_weight": 0.3,
    "link_fanout": 20,
    "link_top": 5,
    # Relevance decides; use and age only break near-ties: at most +10 % each for a memory used
    # within the hour (access decay 0.99^(hours/strength)) and one from the last three days
    # (recency exp(-hours/72)). Reinforcement is exp(0.2 × score) as in memory_query.
    "decay_weight": 0.1,
    "recency_weight": 0.1,
    # What was said (every message, issue 22) beside the memories kept from it: a member's
    # message ranks below a reviewed memory that answers as well, the assistant's reply lower
    # still (it repeats or asks). Tuned on the development households with bench/answers.py.
    "said_weight": 0.8,
    "reply_weight": 0.5,
    # The relevance floor (memories/recall/floor.py): what search, the tools and the chat show.
    # Calibrated by bench/floor.py on the development chats; docs/benchmarks.md has the run.
    # The strictest floor that keeps 95 % of the evidence in the dev chats' top 10.
    "floor_similarity": 0.2,
    "floor_bm25": 4.0,
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": "INFO"},
    # The MCP SDK logs every stateless HTTP request's session at INFO.
    "loggers": {"mcp": {"level": "WARNING"}},
}
