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


def test_a_hold_begun_in_one_thread_is_ended_in_another_once():
    from native_host.gc_pause import GcHold

    holds = []
    t = threading.Thread(target=lambda: holds.append(GcHold()))
    t.start()
    t.join(10)
    assert not gc.isenabled()
    with gc_paused():
        pass
    assert not gc.isenabled()  # the hold outlives a pause inside it
    holds[0].end()
    assert gc.isenabled()
    holds[0].end()  # a second end changes nothing
    with gc_paused():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_the_host_keeps_the_collector_paused_from_a_request_decoded_to_its_reply_sent():
    import io

    from native_host.browser.framing import encode_message, frame
    from native_host.browser.host import FramedTransport, Server
    from native_host.errors import ModelError

    seen = []

    class NoModel:
        def get(self):
            raise ModelError("no model here")

    class Watching(FramedTransport):
        def write(self, reply):
            seen.append((reply["type"], gc.isenabled()))
            super().write(reply)

    data = b"".join(frame(encode_message({"v": 1, "id": i, "type": "hello"})) for i in (1, 2))
    assert Server(Watching(io.BytesIO(data), io.BytesIO()), NoModel(), idle_timeout=0).serve() == 0
    assert seen == [("hello", False), ("hello", False)] and gc.isenabled()
