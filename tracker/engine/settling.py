"""A long fight's state kept out of the garbage collector's way.

A fight only grows: every change adds its event, the action it started and a log line or
two, and they stay until the fight is closed. CPython's collector runs a full collection
each time the objects it tracks grow by a quarter, and every full collection walks every
object still alive, so in a long fight the collector came to cost as much as the changes
themselves (declaring and completing an action: 26 us with it, 16 us without, on a fight
of 100,000 actions). `gc.freeze()` moves every object alive into a permanent generation
no collection walks; the collector then walks only what was made since.

`settle` collects first, so no garbage alive at that moment is frozen (a frozen cycle is
never freed), then freezes. The engine settles when its fight has grown by SETTLE_EVERY
changes since it last did (asked every CHECKPOINT_EVERY changes, where a checkpoint may
be taken: tracker.engine.checkpoints), and the loader
after opening a save at least that long (tracker.persistence.codec). A smaller fight
never settles: its state is cheap to walk, and the process is left as it was.

Once a process has settled, the collector's young generation waits for SETTLED_YOUNG
new objects instead of Python's 700 (3.13's default is 2,000): everything a long fight makes
lives until the fight is closed, so a young collection every 700 new objects walked each
of them once for nothing before the next settle walked it again; with the higher
threshold the settle is nearly the only walk (decision 0061). Cyclic garbage (the app's,
never the engine's) waits longer to be freed: up to SETTLED_YOUNG new containers. The
threshold is raised, never lowered; a process that never settles keeps its own.

What freezing asks of the engine: its state holds no reference cycle, so a frozen fight
that is let go is freed by reference counting alone (tests/test_engine_speed.py holds
this). Whatever else is alive at a settle (the app's screens) is frozen with it; a
cycle among those freed later is kept until the process ends, at most once per
SETTLE_EVERY changes. A collector that is off (someone is loading in bulk) is left off
and nothing is frozen: its owner decides. Frozen objects are never written by the
collector, so pages a forked process shares with its parent stay shared.

Decisions: docs/decisions/0056-long-fights-stay-cheap.md, 0057, 0061
"""

from __future__ import annotations

import gc

# Changes a fight grows by between two settles: far more than a fight at the table holds
# (the longest worked example has 16 events), and few enough that the objects made since
# are settled before the collector's middle generation walks them (it collects every ten
# young collections, some 7,000 new objects, about 600 changes of a long fight): each is
# then walked once young and once by the settle. 1,024 left most walked three times, a
# third more of the collector's work over 100,000 actions; 256 pays a full collection's
# fixed cost too often (decisions 0056 and 0057).
SETTLE_EVERY = 512
# New objects between two young collections once a process has settled: above what a
# long fight makes between two settles (SETTLE_EVERY changes, some 5,000 objects), so
# those are walked by the settle alone (decision 0061).
SETTLED_YOUNG = 10_000


def settle() -> bool:
    """Collect, then freeze everything alive, and let the young generation wait for
    SETTLED_YOUNG objects; nothing if the collector is off. True if done."""
    if not gc.isenabled():
        return False
    gc.collect()
    gc.freeze()
    young, middle, old = gc.get_threshold()
    if 0 < young < SETTLED_YOUNG:  # 0: someone turned automatic collection off; left so
        gc.set_threshold(SETTLED_YOUNG, middle, old)
    return True
