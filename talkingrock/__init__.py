"""Talking Rock's core. Importing it is the first thing any of the app's processes does (the
settings, ``python -m`` of one of its modules, a benchmark), so it sets one thread per numeric
library here, before anything can load numpy or torch (talkingrock/threads.py)."""

from talkingrock import threads

threads.limit()
