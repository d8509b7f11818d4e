#!/usr/bin/env python3
"""Validate ksnoop count/hist -j output (stdin) against ksnoop(8)'s
COUNT AND HIST JSON schema.

Prints "counts=N hists=M" and exits 1 with one line per violation.
"""
import json
import sys

COMMON = {"type": str, "func": str, "count": int}
COUNT = {"key": dict}
HIST = {"value": str, "by": dict, "buckets": list, "sum": int}
HIST_OPTIONAL = {"unit": str, "min": int, "max": int, "mean": (int, float)}
OPTIONAL = {"ts": str}
KEY_FIELDS = {"comm": str, "pid": int, "tid": int, "cpu": int, "kstack": list}


def is_a(v, t):
    return isinstance(v, t) and not isinstance(v, bool)


def check_keys(obj, where, errors):
    for k, v in obj.items():
        want = KEY_FIELDS.get(k)
        if want and not is_a(v, want):
            errors.append(f"{where}: key '{k}' is not {want.__name__}")
        elif not want and not (is_a(v, int) or is_a(v, str)):
            errors.append(f"{where}: value item '{k}' is neither a number nor a string")
        if k == "kstack" and not all(isinstance(f, str) and f for f in v):
            errors.append(f"{where}: kstack frames must be non-empty strings")


def check_buckets(obj, where, errors):
    total, last_high = 0, None
    for b in obj["buckets"]:
        if set(b) != {"low", "high", "count"}:
            errors.append(f"{where}: bucket keys {sorted(b)}")
            continue
        for k in ("low", "high"):
            if b[k] is not None and not is_a(b[k], int):
                errors.append(f"{where}: bucket '{k}' is neither a number nor null")
        if not is_a(b["count"], int) or b["count"] <= 0:
            errors.append(f"{where}: bucket count must be a positive number")
            continue
        if b["low"] is not None and b["high"] is not None and b["low"] >= b["high"]:
            errors.append(f"{where}: bucket low {b['low']} >= high {b['high']}")
        if last_high is not None and b["low"] is not None and b["low"] < last_high:
            errors.append(f"{where}: buckets out of order")
        last_high = b["high"]
        total += b["count"]
    if total != obj["count"]:
        errors.append(f"{where}: buckets hold {total}, count says {obj['count']}")


def check(obj, where, errors):
    fields = dict(COMMON, **(COUNT if obj.get("type") == "count" else HIST))
    for k, t in fields.items():
        if not is_a(obj.get(k), t):
            errors.append(f"{where}: '{k}' missing or not {t.__name__}")
            return
    if obj["type"] not in ("count", "hist"):
        errors.append(f"{where}: type '{obj['type']}'")
    optional = dict(OPTIONAL, **(HIST_OPTIONAL if obj["type"] == "hist" else {}))
    for k, t in optional.items():
        if k in obj and not is_a(obj[k], t):
            errors.append(f"{where}: '{k}' has the wrong type")
    extra = set(obj) - set(fields) - set(optional)
    if extra:
        errors.append(f"{where}: unexpected keys {sorted(extra)}")
    check_keys(obj["key"] if obj["type"] == "count" else obj["by"], where, errors)
    if obj["type"] == "hist":
        check_buckets(obj, where, errors)


def main():
    errors, n = [], {"count": 0, "hist": 0}
    for i, line in enumerate(sys.stdin, 1):
        try:
            obj = json.loads(line)
        except ValueError as e:
            errors.append(f"line {i}: not JSON: {e}")
            continue
        if not isinstance(obj, dict):
            errors.append(f"line {i}: not an object")
            continue
        check(obj, f"line {i}", errors)
        n[obj.get("type")] = n.get(obj.get("type"), 0) + 1
    print(f"counts={n['count']} hists={n['hist']}")
    for e in errors:
        print(e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
