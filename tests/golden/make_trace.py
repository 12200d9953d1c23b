#!/usr/bin/env python3
"""Writes traces/golden.swf: the synthetic SWF trace the golden runs replay.

Made, not copied: 150 jobs on 8 nodes of 4 processors, about 90% load with bursts, three
queues (1: scavenger, 2: normal, 3: urgent), estimates from exact to five times the runtime,
some missing (-1) or below the runtime (the runtime is used), two lines that must be skipped
(more processors than MaxProcs; no runtime). Deterministic: the same file every time.

    python3 tests/golden/make_trace.py > traces/golden.swf
"""
import random

rng = random.Random(20261129)
MAX_NODES, MAX_PROCS = 8, 32
print("; Version: 2.2")
print("; Computer: pmixflow golden trace (synthetic, tests/golden/make_trace.py)")
print("; Note: made by a seeded generator to guard the scheduling policies; not a real machine")
print("; UnixStartTime: 1764374400")
print(f"; MaxNodes: {MAX_NODES}")
print(f"; MaxProcs: {MAX_PROCS}")
print("; MaxQueues: 3")
print("; Queue: 1 scavenger (preemptible in the golden run of priority-preempt)")
print("; Queue: 2 normal")
print("; Queue: 3 urgent")
t = 0
for job in range(1, 151):
    # Bursts: every 25th job opens a burst of short gaps.
    t += int(rng.expovariate(1 / (20 if job % 25 < 6 else 130)))
    runtime = int(round(5 * (720 ** rng.random())))  # log-uniform 5 s .. 1 h
    procs = rng.choice([1, 1, 2, 2, 4, 4, 4, 8, 8, 16, 32])
    roll = rng.random()
    if roll < 0.1:
        estimate = -1
    elif roll < 0.15:
        estimate = max(1, runtime // 2)  # below the runtime: the runtime is used
    else:
        estimate = int(runtime * rng.choice([1, 1.2, 1.5, 2, 3, 5])) + 1
    queue = rng.choices([1, 2, 3], weights=[4, 4, 2])[0]
    user = rng.randint(1, 12)
    if job == 77:
        procs = 64  # more than MaxProcs: skipped and counted
    if job == 111:
        runtime = -1  # no runtime: skipped and counted
    wait = -1
    fields = [job, t, wait, runtime, procs, -1, -1, procs, estimate, -1, 1, user, 1, -1, queue, -1, -1, -1]
    print(" ".join(str(f) for f in fields))
