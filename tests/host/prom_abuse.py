#!/usr/bin/env python3
"""Hostile clients of a --prometheus endpoint, for tests/host/prom.sh.

prom_abuse.py HOST PORT SECONDS IDLE SLOW

For SECONDS, from one process:
  - IDLE connections held open, never sending a byte; each one the server
    closes is opened again at once;
  - SLOW slowloris clients: a request line, then one header byte every 3 s;
    each one closed is opened again;
  - one client at a time sending, in turn: bad methods, a bad path,
    HTTP/0.9, pipelined requests, a 1 MiB header, a 1 MiB URL, binary
    garbage, a body announced and never sent.
Then one JSON line on stdout: how many connections each kind made, the
longest a slowloris connection lived, and what each abuse got back (the
first status line, "closed" or "timeout").
"""
import json
import selectors
import socket
import sys
import threading
import time

MIB = 1 << 20
SLOW_EVERY_S = 3.0
MISC_TIMEOUT_S = 10.0

REQ = b"GET /metrics HTTP/1.1\r\nHost: a\r\n"
MISC = {
    "DELETE": b"DELETE /metrics HTTP/1.1\r\nHost: a\r\n\r\n",
    "BREW": b"BREW /metrics HTTP/1.1\r\nHost: a\r\n\r\n",
    "path": b"GET /nope HTTP/1.1\r\nHost: a\r\n\r\n",
    "http0.9": b"GET /metrics\r\n\r\n",
    "pipelined": REQ + b"\r\n" + REQ + b"Connection: close\r\n\r\n",
    "header1M": REQ + b"X-Big: " + b"a" * MIB + b"\r\n\r\n",
    "url1M": b"GET /" + b"a" * MIB + b" HTTP/1.1\r\nHost: a\r\n\r\n",
    "garbage": bytes(range(256)) * 64 + b"\r\n\r\n",
    "body": b"POST /metrics HTTP/1.1\r\nHost: a\r\nContent-Length: 1048576\r\n\r\nab",
}


def connect(addr):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setblocking(False)
    s.connect_ex(addr)
    return s


def misc_one(addr, payload):
    """The status lines of what payload got back: ["HTTP/1.1 405 ...", ...]."""
    got = b""
    try:
        with socket.create_connection(addr, timeout=MISC_TIMEOUT_S) as s:
            try:
                s.sendall(payload)
            except OSError:
                pass  # the server may close before taking it all
            s.settimeout(MISC_TIMEOUT_S)
            while True:
                b = s.recv(65536)
                if not b:
                    break
                got += b
    except socket.timeout:
        return ["timeout"]
    except OSError:
        pass
    lines = [l.decode("latin-1") for l in got.split(b"\r\n") if l.startswith(b"HTTP/")]
    return lines or ["closed"]


def misc_loop(addr, end, out):
    """Each abuse in turn until end; out[name] = the set of answers seen."""
    while time.monotonic() < end:
        for name, payload in MISC.items():
            out.setdefault(name, set()).add(" ".join(misc_one(addr, payload)))


def main():
    host, port, secs = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    nidle, nslow = int(sys.argv[4]), int(sys.argv[5])
    addr = (host, port)
    end = time.monotonic() + secs
    sel = selectors.DefaultSelector()
    stats = {"idle_opened": 0, "slow_opened": 0, "slow_longest_s": 0.0}
    misc = {}

    def open_one(kind):
        s = connect(addr)
        now = time.monotonic()
        # kind, opened at, next byte due and bytes sent (slowloris)
        sel.register(s, selectors.EVENT_READ, [kind, now, now, 0])
        stats[kind + "_opened"] += 1

    for _ in range(nidle):
        open_one("idle")
    for _ in range(nslow):
        open_one("slow")
    t = threading.Thread(target=misc_loop, args=(addr, end, misc))
    t.start()
    while time.monotonic() < end:
        for key, _ in sel.select(timeout=0.2):
            s, (kind, opened) = key.fileobj, key.data[:2]
            try:
                if s.recv(4096):
                    continue  # an answer: the connection stays
            except BlockingIOError:
                continue
            except OSError:
                pass
            if kind == "slow":
                life = time.monotonic() - opened
                stats["slow_longest_s"] = max(stats["slow_longest_s"], life)
            sel.unregister(s)
            s.close()
            open_one(kind)
        now = time.monotonic()
        for key in list(sel.get_map().values()):
            kind, _, due, sent = key.data
            if kind != "slow" or now < due:
                continue
            try:
                key.data[3] += key.fileobj.send(b"X" if sent else REQ)
            except OSError:
                continue  # not connected yet, or closed: select says which
            key.data[2] = now + SLOW_EVERY_S
    # the slowloris connections still open have lived this long
    for key in sel.get_map().values():
        if key.data[0] == "slow":
            life = time.monotonic() - key.data[1]
            stats["slow_longest_s"] = max(stats["slow_longest_s"], life)
    t.join()
    stats["slow_longest_s"] = round(stats["slow_longest_s"], 1)
    stats["misc"] = {k: sorted(v) for k, v in misc.items()}
    print(json.dumps(stats, sort_keys=True))


if __name__ == "__main__":
    main()
