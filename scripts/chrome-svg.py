#!/usr/bin/env python3
"""Draw the complete events of a Chrome Trace Event file as an SVG timeline.

  scripts/chrome-svg.py TRACE.json [--from-us T0 --to-us T1] > timeline.svg

One band per thread, calls nested in time stacked below their caller, as a
trace viewer draws them; for pictures in the docs, made from real traces.
"""
import html
import json
import sys

WIDTH, ROW, PAD, LEFT = 960, 22, 6, 90
COLORS = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1"]


def rows_of(events):
    """Depth of each event: the number of open calls around it."""
    stack, out = [], []
    for e in sorted(events, key=lambda e: (e["ts"], -e["dur"])):
        while stack and stack[-1]["ts"] + stack[-1]["dur"] <= e["ts"]:
            stack.pop()
        out.append((len(stack), e))
        stack.append(e)
    return out


def main(argv):
    with open(argv[1]) as f:
        evs = [e for e in json.load(f)["traceEvents"] if e.get("ph") == "X"]
    names = {}
    if "--from-us" in argv:
        lo = float(argv[argv.index("--from-us") + 1])
        hi = float(argv[argv.index("--to-us") + 1])
        evs = [e for e in evs if e["ts"] >= lo and e["ts"] + e["dur"] <= hi]
    t0 = min(e["ts"] for e in evs)
    t1 = max(e["ts"] + e["dur"] for e in evs)
    scale = (WIDTH - LEFT - PAD) / (t1 - t0)
    colors = {}
    body, y = [], 30
    for tid in sorted({e["tid"] for e in evs}):
        placed = rows_of([e for e in evs if e["tid"] == tid])
        depth = max(d for d, _ in placed) + 1
        body.append(f'<text x="4" y="{y + 15}" font-size="12">tid {tid}</text>')
        for d, e in placed:
            x = LEFT + (e["ts"] - t0) * scale
            w = max(e["dur"] * scale, 1)
            c = colors.setdefault(e["name"], COLORS[len(colors) % len(COLORS)])
            args = e.get("args", {})
            ret = args.get("return")
            tip = f'{e["name"]}: {e["dur"]:.1f} us' + (
                f", return {ret}" if isinstance(ret, (int, str)) else "") + (
                f' ({args["errno"]})' if "errno" in args else "")
            body.append(f'<rect x="{x:.1f}" y="{y + d * ROW}" width="{w:.1f}" '
                        f'height="{ROW - 2}" fill="{c}"><title>{html.escape(tip)}</title></rect>')
            if w > 7 * len(e["name"]):
                body.append(f'<text x="{x + 3:.1f}" y="{y + d * ROW + 15}" font-size="12" '
                            f'fill="white">{html.escape(e["name"])}</text>')
        y += depth * ROW + PAD
    ticks = []
    step = 10 ** len(str(int((t1 - t0) / 5))) / 10 or 1
    t = 0.0
    while t <= t1 - t0:
        x = LEFT + t * scale
        ticks.append(f'<line x1="{x:.1f}" y1="18" x2="{x:.1f}" y2="{y}" stroke="#ddd"/>'
                     f'<text x="{x + 2:.1f}" y="14" font-size="11">{t / 1000:g} ms</text>')
        t += step
    print(f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{y + PAD}" '
          f'font-family="sans-serif"><rect width="100%" height="100%" fill="white"/>')
    print("\n".join(ticks + body))
    print("</svg>")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
