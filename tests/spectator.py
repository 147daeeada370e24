"""What another thread can do while a run of calls is in progress: the harness of the GIL tests.

The calls run back to back from C: map() over inputs popped one at a time from a deque, drained by a
zero-length deque. No bytecode runs between them, so the calling thread never offers the GIL of its own
accord, nor stops for a stop-the-world pause of a free-threaded build, nor runs an automatic collection (the
collector is disabled meanwhile). Another thread, the spectator, repeatedly reads where the run stands (the
inputs not yet taken: the deque's length), does something (a look), and reads it again. A deque, because
free-threaded builds lock it for each pop and store its length atomically, so that reading it from another
thread is no data race (tests/hardening/tsan_python.sh runs these tests under ThreadSanitizer); the position
of an iterator, itertools.repeat's count say, is a plain field written by one thread while the other reads
it. A look that begins after the first input was taken and ends before the last one was ran while the calls
were in progress.

On a GIL build the spectator runs bytecode only while it holds the GIL, so a look inside the run proves that
the calls released the GIL; on a free-threaded build a look that includes gc.collect() needs every other
thread detached or parked, so it proves that the calls detached. Without a release neither can happen at
all: that direction is exact. With one it happens once the spectator wins the GIL in a window the calls
open (or its stop-the-world request finds the caller detached), which is up to the scheduler: so the run
goes on until the spectator has what it needs (it stops the calls from C), bounded by its length.
"""

import collections
import gc
import itertools
import operator
import threading

# The end of the inputs: compared with each input by iter()'s sentinel test, and equal to none.
_END = object()


def watch(make_calls, item, count, look, enough=1, steady=False):
    """Drains make_calls(inputs), where inputs yields item up to count times, while a spectator thread calls
    look() over and over. Returns the results of the looks that ran inside the run, stopping the run once
    there are `enough` of them. steady=True counts only looks during which no input was taken (the caller
    stayed inside one call)."""
    # count references to item, then the end: iter() with a sentinel pops them from C.
    remaining = collections.deque(itertools.repeat(item, count))
    remaining.append(_END)

    def left():
        """The inputs not yet taken."""
        return max(len(remaining) - 1, 0)

    inside = []
    # iter() with a sentinel calls inside.__len__ from C: the run stops once the spectator has enough,
    # without bytecode in the loop.
    inputs = map(
        operator.itemgetter(0),
        zip(iter(remaining.popleft, _END), iter(inside.__len__, enough), strict=False),
    )
    calls = make_calls(inputs)
    spectating = threading.Event()
    finished = threading.Event()
    errors = []

    def spectator():
        spectating.set()
        try:
            while not finished.is_set() and len(inside) < enough:
                before = left()
                if before == count:
                    continue  # the run has not begun: a look now would be wasted, or in the way
                result = look()
                after = left()
                if before < count and after > 0 and (after == before or not steady):
                    inside.append(result)
        except BaseException as error:  # noqa: BLE001 - re-raised in the calling thread
            errors.append(error)
            inside.extend([None] * (enough - len(inside)))  # stops the run

    collector_was_enabled = gc.isenabled()
    gc.disable()
    thread = threading.Thread(target=spectator)
    thread.start()
    try:
        spectating.wait()
        collections.deque(calls, maxlen=0)
    finally:
        finished.set()
        thread.join()
        if collector_was_enabled:
            gc.enable()
    if errors:
        raise errors[0]
    return inside


def collection_ran_during(make_calls, item, count):
    """True if the spectator completed a garbage collection while the calls were in progress: the calls
    released the GIL (or, free-threaded, detached the thread)."""
    return bool(watch(make_calls, item, count, gc.collect))
