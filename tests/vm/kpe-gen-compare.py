#!/usr/bin/env python3
# Compares the kernel's tracefs events for generated kprobe_events lines
# with `ksnoop -j trace` events for the same spec, call by call.
#
#   kpe-gen-compare.py LINES TRACE KSNOOP_JSON MIN
#
# LINES: the generated definitions (p:, r: or f:GRP/EVENT); TRACE: tracefs
# "trace"; KSNOOP_JSON: ksnoop's NDJSON. An entry event pairs with the next
# p: event, a return event with the next r: event, a combined one with both.
# A ksnoop value named "skb->len" is the field skb_len (kpe_gen.c's names).
import json
import re
import sys


def field_name(path):
    if path == "return":
        path = "ret"
    name = re.sub(r"[^A-Za-z0-9_]+", "_", path).strip("_")
    return name[:32]


def kernel_value(text):
    if text.startswith('"'):
        return text[1:-1]
    if text == "(fault)":
        return None
    return int(text, 0)


def ksnoop_value(v):
    if isinstance(v.get("value"), (dict, list)) or "addr" in v and not isinstance(
        v.get("value"), str
    ):
        return int(v["addr"], 16)
    val = v.get("value")
    if isinstance(val, bool):
        return int(val)
    return val


FIELD = re.compile(r'([A-Za-z_][A-Za-z0-9_]*)=("[^"]*"|\S+)')


def kernel_events(lines_file, trace_file):
    kinds = {}
    for line in open(lines_file):
        m = re.match(r"([prf]):([^/]+)/(\S+) (\S+)", line)
        if m:
            ret = m.group(1) == "r" or m.group(4).endswith("%return")
            kinds[m.group(3)] = "r" if ret else "p"
    events = {"p": [], "r": []}
    for line in open(trace_file):
        m = re.search(r"\d+\.\d{6}: (\w+): \([^)]*\)(.*)$", line)
        if not m or m.group(1) not in kinds:
            continue
        fields = {k: kernel_value(v) for k, v in FIELD.findall(m.group(2))}
        events[kinds[m.group(1)]].append(fields)
    return events


def main():
    lines_file, trace_file, json_file, want = sys.argv[1:5]
    kev = kernel_events(lines_file, trace_file)
    calls = bad = 0
    for line in open(json_file):
        if not line.startswith("{"):
            continue
        ev = json.loads(line)
        got = {}
        for kind, side in (("entry", "p"), ("return", "r"), ("combined", "p"), ("combined", "r")):
            if ev["event"] != kind:
                continue
            if not kev[side]:
                print(f"gen-compare: no kernel {side}: event for ksnoop's {kind} event {calls + 1}")
                return 1
            got.update(kev[side].pop(0))
        calls += 1
        for v in ev["values"]:
            name = field_name(v["name"])
            want_v = ksnoop_value(v)
            if name not in got:
                print(f"gen-compare: call {calls}: kernel event lacks {name}")
                bad += 1
            elif got[name] != want_v:
                print(f"gen-compare: call {calls}: {v['name']}: ksnoop {want_v!r}, kernel {got[name]!r}")
                bad += 1
            else:
                print(f"#   call {calls}: {v['name']} = {want_v!r} both")
    left = len(kev["p"]) + len(kev["r"])
    if left:
        print(f"gen-compare: {left} kernel events without a ksnoop event")
        bad += 1
    if bad or calls < int(want):
        print(f"gen-compare: MISMATCH ({calls} calls, {bad} differences, want >= {want} calls)")
        return 1
    print(f"gen-compare: {calls} calls equal")
    return 0


sys.exit(main())
