"""The start-up warm-up (talkingrock/warmup.py): the models load, then what is loaded is frozen
out of the garbage collector's sight, and garbage made afterwards is still collected."""

import gc
import weakref

import pytest

from talkingrock import warmup


@pytest.fixture
def unfrozen():
    gc.unfreeze()
    yield
    gc.unfreeze()  # the rest of the suite runs as it would have


class Cycle:
    """An object in a reference cycle: only the cyclic collector frees it."""

    def __init__(self):
        self.me = self


def test_warm_freezes_what_it_loaded_and_later_garbage_is_still_collected(unfrozen):
    before = Cycle()
    assert gc.get_freeze_count() == 0

    warmup.warm()

    # Everything alive at the warm-up is frozen, the object made before it among them …
    assert gc.get_freeze_count() > 0
    assert not any(obj is before for obj in gc.get_objects())
    # … and a cycle made afterwards is still the collector's to free.
    after = weakref.ref(Cycle())
    gc.collect()
    assert after() is None
