#!/usr/bin/env python3
# Checks kdump --format=chrome output of tests/host/ktrace_target's trace
# against the text of the same file (kdump -T -H): prints TAP lines.
#
#   chrome-check.py OUT.json TEXT.txt PID
import json
import sys

json_path, text_path, pid = sys.argv[1], sys.argv[2], int(sys.argv[3])
# Times in the JSON are exact to the ns; those of the text (-T) are cut to us.
US = 1.0 + 1e-6


def tap(name, good, why=""):
    print(("ok - " if good else "not ok - ") + "kdump --format=chrome: " + name)
    if not good and why:
        print("# " + str(why)[:500])


try:
    with open(json_path) as f:
        doc = json.load(f)
    events = doc["traceEvents"]
    tap("the output loads as JSON with traceEvents", isinstance(events, list) and events)
except (OSError, ValueError, KeyError, TypeError) as e:
    tap("the output loads as JSON with traceEvents", False, e)
    sys.exit(0)

complete = [e for e in events if e.get("ph") == "X"]


def well_formed(e):
    return (isinstance(e.get("name"), str) and e["name"]
            and all(isinstance(e.get(k), (int, float)) for k in ("ts", "dur", "pid", "tid"))
            and e["dur"] >= 0 and e["ts"] >= 0)


bad = [e for e in complete if not well_formed(e)]
tap("every complete event has name, ts, dur >= 0, pid and tid", complete and not bad,
    bad[:1])


def calls(name, path):
    return [e for e in complete if e["name"] == name and e["pid"] == pid
            and e.get("args", {}).get("path") == path]


ok_open = calls("openat", "data.txt")
tap("the openat calls of data.txt, with their return value",
    len(ok_open) == 2 and all(e["args"]["ret"] == "3" for e in ok_open)
    and any(e["args"]["args"] == "AT_FDCWD,%s,0<O_RDONLY>" % e["args"]["args"].split(",")[1]
            for e in ok_open), ok_open)
failed = calls("openat", "does-not-exist")
tap("the failed openat: ENOENT", len(failed) == 1
    and failed[0]["args"]["ret"] == "-1 errno 2 ENOENT", failed)
writes = [e for e in complete if e["name"] == "write" and e["pid"] == pid
          and e["args"].get("data") == "hello ktrace\n"]
tap("write: its GIO data in the call's args", len(writes) == 1
    and writes[0]["args"]["io"] == "fd 3 wrote 13 bytes"
    and writes[0]["args"]["ret"] == "13/0xd", writes)
execs = [e for e in complete if e["name"] == "execve" and e["pid"] == pid]
tap("execve: path, argv and ret", len(execs) == 1 and execs[0]["args"].get("ret") == "0"
    and len(execs[0]["args"].get("argv", [])) == 2, execs)

# The failed openat's time and length against the text's CALL and RET.
lines = open(text_path).read().split("\n")


def us(line):  # "1796155725.999700" in integer microseconds
    sec, frac = line.split()[2].split(".")
    return int(sec) * 1000000 + int(frac)


first = us(lines[0])
i = next((i for i, l in enumerate(lines) if l.endswith('NAMI  "does-not-exist"')), None)
if i is None or not failed:
    tap("ts and dur agree with the CALL and RET times of the text", False, "not found")
else:
    call_t = us(lines[i - 1]) - first
    ret_t = us(lines[i + 1]) - first
    e = failed[0]
    tap("ts and dur agree with the CALL and RET times of the text",
        abs(e["ts"] - call_t) < US and abs(e["dur"] - (ret_t - call_t)) < US,
        "ts %s dur %s, text %.3f %.3f" % (e["ts"], e["dur"], call_t, ret_t - call_t))

# A thread is in one syscall at a time: its calls do not overlap.
overlap = []
by_tid = {}
for e in complete:
    by_tid.setdefault(e["tid"], []).append(e)
for tid, evs in by_tid.items():
    evs.sort(key=lambda e: e["ts"])
    for a, b in zip(evs, evs[1:]):
        if a["ts"] + a["dur"] > b["ts"] + 1e-6:
            overlap.append((a, b))
tap("the calls of a thread do not overlap", by_tid and not overlap, overlap[:1])

sig = [e for e in events if e.get("ph") == "i" and e.get("name") == "SIGUSR1"]
tap("PSIG: an instant event on its thread", len(sig) == 1 and sig[0].get("s") == "t"
    and sig[0]["tid"] == pid and sig[0]["args"]["signal"].startswith("SIGUSR1 caught"), sig)
kill = [e for e in complete if e["name"] == "kill" and e["pid"] == pid]
tap("the signal comes after the kill that sent it", sig and len(kill) == 1
    and kill[0]["ts"] + kill[0]["dur"] <= sig[0]["ts"], (kill, sig))
exits = [e for e in events if e.get("name") == "exit_group" and e.get("pid") == pid]
tap("exit_group, which never returns: an instant event", len(exits) == 1
    and exits[0]["ph"] == "i", exits)
names = [e for e in events if e.get("ph") == "M" and e.get("name") == "thread_name"
         and e.get("tid") == pid]
tap("thread_name metadata names the thread", len(names) == 1
    and names[0]["args"]["name"] == "ktrace_target", names)
