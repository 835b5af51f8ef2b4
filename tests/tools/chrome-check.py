#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Check a Chrome Trace Event Format file (the object form) by the format's
rules: "traceEvents" a list, "displayTimeUnit" "ns" or "ms"; every event an
object with "ph" in the allowed set, a number "ts" (not for "M"), integer
"pid" and "tid"; "B"/"E" paired on their pid/tid in order (an "E" never
without its "B", none left open, ts not going back); async "b"/"e" paired
by (cat, id) with an "e" after its "b"; "C" args numbers; "i" scope t, p
or g; "M" process_name/thread_name with args.name; a thread (tid) in one
process (pid) only, every process named by a process_name and every thread
by a thread_name (the global markers, pid 0, aside).
Usage: chrome-check.py FILE [--expect KEY=COUNT]... prints a summary line
"events=N B=N E=N b=N e=N i=N C=N M=N lost=N processes=N threads=N" and
exits 1 on a violation or an --expect count that differs (KEY: a ph,
"lost", "processes", "threads", or name:NAME)."""
import json
import sys

ALLOWED = set("BEXibenCMsftPONDRcSTFp") | {"(", ")"}


def check(path):
    errs = []
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        return ["not an object with a traceEvents list"], {}
    if doc.get("displayTimeUnit") not in ("ns", "ms"):
        errs.append("displayTimeUnit %r" % doc.get("displayTimeUnit"))
    stacks, asyncs, last, counts = {}, {}, {}, {}
    proc_of, named_procs, named_threads = {}, set(), set()
    for n, ev in enumerate(doc["traceEvents"]):
        where = "event %d %s" % (n, json.dumps(ev)[:120])
        ph = ev.get("ph")
        counts[ph] = counts.get(ph, 0) + 1
        name = ev.get("name")
        counts["name:%s" % name] = counts.get("name:%s" % name, 0) + 1
        if isinstance(name, str) and name.startswith("LOST "):
            counts["lost"] = counts.get("lost", 0) + 1
        if ph not in ALLOWED:
            errs.append("%s: ph %r" % (where, ph))
            continue
        for k in ("pid", "tid"):
            if type(ev.get(k)) is not int:
                errs.append("%s: %s not an integer" % (where, k))
        if ph == "M":
            if name == "process_name":
                named_procs.add(ev.get("pid"))
            elif name == "thread_name":
                named_threads.add((ev.get("pid"), ev.get("tid")))
            if name not in ("process_name", "thread_name", "process_sort_index",
                            "thread_sort_index", "process_labels") or \
                    not isinstance(ev.get("args", {}).get("name", ""), str):
                errs.append("%s: metadata" % where)
            continue
        ts = ev.get("ts")
        if type(ts) not in (int, float):
            errs.append("%s: ts not a number" % where)
            continue
        track = (ev.get("pid"), ev.get("tid"))
        if not (ph == "i" and ev.get("s") == "g" and track == (0, 0)):
            pid = proc_of.setdefault(track[1], track[0])
            if pid != track[0]:
                errs.append("%s: thread %s in processes %s and %s" % (where, track[1], pid, track[0]))
        if ph in "BE":
            if ts < last.get(track, ts):
                errs.append("%s: ts goes back on its track" % where)
            last[track] = ts
        if ph == "B":
            stacks.setdefault(track, []).append(ev)
        elif ph == "E":
            if not stacks.get(track):
                errs.append("%s: E without its B" % where)
            else:
                stacks[track].pop()
        elif ph in "be":
            if "id" not in ev or "cat" not in ev:
                errs.append("%s: async without id or cat" % where)
                continue
            key = (ev["cat"], str(ev["id"]))
            if ph == "b":
                asyncs.setdefault(key, []).append(ts)
            elif not asyncs.get(key):
                errs.append("%s: e without its b" % where)
            elif asyncs[key].pop() > ts:
                errs.append("%s: e before its b" % where)
        elif ph == "C":
            args = ev.get("args")
            if not isinstance(args, dict) or not args or \
                    not all(type(v) in (int, float) for v in args.values()):
                errs.append("%s: counter args not numbers" % where)
        elif ph == "i":
            if ev.get("s", "t") not in ("t", "p", "g"):
                errs.append("%s: instant scope" % where)
        if "args" in ev and not isinstance(ev["args"], dict):
            errs.append("%s: args not an object" % where)
    for tid, pid in proc_of.items():
        if pid not in named_procs:
            errs.append("process %s without a process_name" % pid)
        if (pid, tid) not in named_threads:
            errs.append("thread %s/%s without a thread_name" % (pid, tid))
    counts["processes"] = len(set(proc_of.values()))
    counts["threads"] = len(proc_of)
    for track, st in stacks.items():
        for ev in st:
            errs.append("B never ended on %s: %s" % (track, json.dumps(ev)[:120]))
    for key, st in asyncs.items():
        if st:
            errs.append("async %s begun %d times without its e" % (key, len(st)))
    return errs, counts


def main():
    args = sys.argv[1:]
    if not args:
        print(__doc__)
        return 2
    errs, counts = check(args[0])
    for e in errs[:20]:
        print("chrome-check: %s: %s" % (args[0], e))
    ev = sum(v for k, v in counts.items() if k is not None and
             not k.startswith(("name:", "lost", "processes", "threads")))
    print("events=%d %s lost=%d processes=%d threads=%d" % (
        ev, " ".join("%s=%d" % (p, counts.get(p, 0)) for p in "BEbeiCM"), counts.get("lost", 0),
        counts.get("processes", 0), counts.get("threads", 0)))
    bad = bool(errs)
    i = 1
    while i < len(args):
        if args[i] == "--expect" and i + 1 < len(args):
            k, v = args[i + 1].rsplit("=", 1)
            if counts.get(k, 0) != int(v):
                print("chrome-check: %s: %s is %d, not %s" % (args[0], k, counts.get(k, 0), v))
                bad = True
            i += 2
        else:
            i += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
