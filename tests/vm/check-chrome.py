#!/usr/bin/env python3
"""Check a Chrome Trace Event file as a timeline viewer reads it.

  check-chrome.py FILE [--inside INNER OUTER]... [--count NAME N]...

Every complete ("X") event needs a name, ts, dur >= 0, pid and tid; with
--inside, each INNER event lies within an OUTER event of the same tid;
with --count, exactly N X events are named NAME. Prints "events=N" and
one "name=COUNT" line per name, or one line per violation and exits 1.
"""
import json
import sys
from collections import Counter


def check_event(i, ev, errors):
    for k in ("name", "ph"):
        if not isinstance(ev.get(k), str):
            errors.append(f"event {i}: '{k}' missing or not a string")
    if ev.get("ph") != "X":
        return
    for k in ("ts", "dur"):
        if not isinstance(ev.get(k), (int, float)) or ev[k] < 0:
            errors.append(f"event {i}: '{k}' missing or negative")
    for k in ("pid", "tid"):
        if not isinstance(ev.get(k), int) or ev[k] <= 0:
            errors.append(f"event {i}: '{k}' is not a kernel id")


def inside(events, inner, outer):
    outs = [e for e in events if e["name"] == outer]
    for e in (e for e in events if e["name"] == inner):
        if not any(o["tid"] == e["tid"] and o["ts"] <= e["ts"] and
                   e["ts"] + e["dur"] <= o["ts"] + o["dur"] for o in outs):
            return f"{inner} at ts {e['ts']} lies in no {outer} on tid {e['tid']}"
    return None


def main(argv):
    errors = []
    with open(argv[1]) as f:
        doc = json.load(f)
    evs = doc.get("traceEvents") if isinstance(doc, dict) else None
    if not isinstance(evs, list):
        print("no traceEvents array")
        return 1
    for i, ev in enumerate(evs):
        check_event(i, ev, errors)
    xs = [e for e in evs if e.get("ph") == "X" and isinstance(e.get("name"), str)]
    args = argv[2:]
    while args:
        if args[0] == "--inside" and len(args) >= 3:
            why = inside(xs, args[1], args[2])
            if why:
                errors.append(why)
            args = args[3:]
        elif args[0] == "--count" and len(args) >= 3:
            n = sum(1 for e in xs if e["name"] == args[1])
            if n != int(args[2]):
                errors.append(f"{n} {args[1]} events, not {args[2]}")
            args = args[3:]
        else:
            print(f"bad arguments {args}")
            return 2
    for e in errors:
        print(e)
    print(f"events={len(xs)}")
    for name, n in sorted(Counter(e["name"] for e in xs).items()):
        print(f"{name}={n}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
