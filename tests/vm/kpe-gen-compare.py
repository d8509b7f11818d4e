#!/usr/bin/env python3
# Compares the kernel's tracefs events for generated kprobe_events lines
# with `ksnoop -j trace` events for the same specs, call by call.
#
#   kpe-gen-compare.py LINES TRACE KSNOOP_JSON MIN
#
# LINES: the generated definitions (p:, r: or f:GRP/EVENT SYM); TRACE:
# tracefs "trace"; KSNOOP_JSON: ksnoop's NDJSON, of which the events of
# tasks called "workload" count. Per function, a ksnoop
# entry event pairs with the next entry event of the kernel, a return
# event with the next return event, a combined one with one of each.
# A ksnoop value named "skb->len" is the field skb_len (kpe_gen.c's names).
import json
import re
import sys


def field_name(path):
    """As kpe_gen.c's field_name: "skb->len" -> "skb_len"."""
    if path == "return":
        path = "ret"
    out = ""
    for ch in path:
        if len(out) >= 32:
            break
        if ch.isalnum() or ch == "_":
            out += ch
        elif out and out[-1] != "_":
            out += "_"
    return out.rstrip("_")


def kernel_value(text):
    if text.startswith('"'):
        return text[1:-1]
    if text == "(fault)":
        return None
    return int(text, 0)


def ksnoop_value(v):
    val = v.get("value")
    if "addr" in v and not isinstance(val, str):
        return int(v["addr"], 16)  # a struct ksnoop dumps; tracefs has its address
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
            kinds[m.group(3)] = (m.group(4).split("%")[0], "r" if ret else "p")
    events = {}
    for line in open(trace_file):
        m = re.search(r"\d+\.\d{6}: (\w+): \([^)]*\)(.*)$", line)
        if not m or m.group(1) not in kinds:
            continue
        fields = {k: kernel_value(v) for k, v in FIELD.findall(m.group(2))}
        events.setdefault(kinds[m.group(1)], []).append(fields)
    return events, {f for f, _ in kinds.values()}


SIDES = {"entry": ("p",), "return": ("r",), "combined": ("p", "r")}


def main():
    lines_file, trace_file, json_file, want = sys.argv[1:5]
    kev, funcs = kernel_events(lines_file, trace_file)
    calls = {}
    bad = 0
    for line in open(json_file):
        if not line.startswith("{"):
            continue
        ev = json.loads(line)
        if ev.get("comm") != "workload":
            continue
        func = ev["function"]
        n = calls[func] = calls.get(func, 0) + 1
        got = {}
        for side in SIDES[ev["event"]]:
            queue = kev.get((func, side), [])
            if not queue:
                print(f"gen-compare: {func} call {n}: no kernel {side}: event")
                return 1
            got.update(queue.pop(0))
        for v in ev["values"]:
            name, want_v = field_name(v["name"]), ksnoop_value(v)
            if got.get(name, "<missing>") != want_v:
                print(f"gen-compare: {func} call {n}: {v['name']}: ksnoop {want_v!r}, "
                      f"kernel {got.get(name, '<missing>')!r}")
                bad += 1
            else:
                print(f"#   {func} call {n}: {v['name']} = {want_v!r} both")
    left = sum(len(q) for q in kev.values())
    if left:
        print(f"gen-compare: {left} kernel events without a ksnoop event")
        bad += 1
    few = [f for f in funcs if calls.get(f, 0) < int(want)]
    if bad or few:
        print(f"gen-compare: MISMATCH ({bad} differences; too few calls of {few})")
        return 1
    print(f"gen-compare: {sum(calls.values())} calls equal")
    return 0


sys.exit(main())
