#!/usr/bin/env python3
"""Validate ksnoop -j output (stdin) against the schema in ksnoop(8).

Prints "events=N values=M" and exits 1 with one line per violation.
"""
import json
import re
import sys

HEX = re.compile(r"^0x[0-9a-f]+( <[^>]+>)?$")
EVENT_KEYS = {"ts": int, "cpu": int, "pid": int, "tid": int, "comm": str,
              "function": str, "event": str, "values": list}
OPTIONAL_KEYS = {"duration_ns": int, "wall_ns": int, "kstack": list, "depth": int,
                 "origin": bool}
FRAME = re.compile(r"^([A-Za-z0-9_.$]+\+0x[0-9a-f]+( \[[^]]+\])?|0x[0-9a-f]+)$")


def check_value(v, where, errors):
    if not isinstance(v, dict):
        errors.append(f"{where}: value entry is not an object")
        return
    for k in ("name", "type"):
        if not isinstance(v.get(k), str):
            errors.append(f"{where}: '{k}' missing or not a string")
    if "addr" in v and not (isinstance(v["addr"], str) and HEX.match(v["addr"])):
        errors.append(f"{where}: 'addr' is not a hex string")
    if ("value" in v) == ("error" in v):
        errors.append(f"{where}: needs exactly one of 'value' and 'error'")
    if "truncated" in v and v["truncated"] is not True:
        errors.append(f"{where}: 'truncated' must be true when present")
    if "errno" in v and not (isinstance(v["errno"], str) and v["errno"]):
        errors.append(f"{where}: 'errno' is not a name")
    extra = set(v) - {"name", "type", "addr", "value", "error", "truncated", "errno"}
    if extra:
        errors.append(f"{where}: unexpected keys {sorted(extra)}")


def check_event(ev, n, errors):
    where = f"line {n}"
    for k, t in EVENT_KEYS.items():
        if not isinstance(ev.get(k), t) or isinstance(ev.get(k), bool):
            errors.append(f"{where}: '{k}' missing or not {t.__name__}")
    for k, t in OPTIONAL_KEYS.items():
        if k in ev and not isinstance(ev[k], t):
            errors.append(f"{where}: '{k}' is not {t.__name__}")
    if ev.get("event") not in ("entry", "return", "combined"):
        errors.append(f"{where}: bad event kind {ev.get('event')!r}")
    if ev.get("event") in ("return", "combined") and "duration_ns" not in ev:
        errors.append(f"{where}: return event without duration_ns")
    for f in ev.get("kstack", []):
        if not (isinstance(f, str) and FRAME.match(f)):
            errors.append(f"{where}: kstack frame {f!r} is not func+0xoff [module]")
    extra = set(ev) - set(EVENT_KEYS) - set(OPTIONAL_KEYS)
    if extra:
        errors.append(f"{where}: unexpected keys {sorted(extra)}")
    for i, v in enumerate(ev.get("values", [])):
        check_value(v, f"{where} value {i}", errors)
    return len(ev.get("values", []))


def main():
    errors, events, values = [], 0, 0
    for n, line in enumerate(sys.stdin, 1):
        try:
            ev = json.loads(line)
        except json.JSONDecodeError as e:
            errors.append(f"line {n}: not JSON: {e}")
            continue
        events += 1
        values += check_event(ev, n, errors)
    print(f"events={events} values={values}")
    for e in errors[:20]:
        print("schema:", e)
    return 1 if errors or not events else 0


if __name__ == "__main__":
    sys.exit(main())
