"""The collector pause is counted: overlapping pauses (the host's reader decoding while its worker extracts)
bring the collector back only when the last ends, and never turn on a collector the caller had off."""

import gc
import threading

from native_host.gc_pause import gc_paused


def test_overlapping_pauses_restore_the_collector_once_the_last_ends():
    assert gc.isenabled()
    first_inside, second_done = threading.Event(), threading.Event()
    seen = []

    def other():
        first_inside.wait(10)
        with gc_paused():
            seen.append(gc.isenabled())
        second_done.set()

    t = threading.Thread(target=other)
    t.start()
    with gc_paused():
        first_inside.set()
        second_done.wait(10)
        seen.append(gc.isenabled())  # the other pause ended first: still paused for this one
    t.join(10)
    assert seen == [False, False] and gc.isenabled()


def test_a_collector_the_caller_turned_off_stays_off():
    gc.disable()
    try:
        with gc_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_an_exception_inside_still_restores_it():
    try:
        with gc_paused():
            raise ValueError("boom")
    except ValueError:
        pass
    assert gc.isenabled()
