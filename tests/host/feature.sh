#!/bin/bash
# ksnoop feature on this machine, whatever it can trace: every line is
# well formed and the exit status agrees with the backend lines. (The VM
# suite asserts the actual answers on known kernels.)
set -uo pipefail
cd "$(dirname "$0")/../.."

if [ "$(id -u)" != 0 ]; then
	echo "ok - host: feature # SKIP needs root"
	exit 0
fi

t=$(mktemp -d /tmp/ksnoop-host.XXXXXX)
trap 'rm -rf "$t"' EXIT
./ksnoop feature >"$t/out" 2>"$t/err"
rc=$?

tap() {
	if [ "$1" = 0 ]; then
		echo "ok - host: $2"
	else
		echo "not ok - host: $2"
		sed 's/^/#   | /' "$t/out" "$t/err"
	fi
}

# yes, or no (the release that brought it; what ksnoop does instead).
kfeat='(yes|no \(Linux [56]\.[0-9]+; instead: .+\))'
# yes (N/100 calls seen) or no (a reason ending in an errno name).
backend='(yes \([0-9]+/100 calls seen\)|no \(.+ \((E[A-Z0-9]+|errno [0-9]+)\)\))'
expect=(
	'^kernel: .+$'
	'^BTF: (yes \(vmlinux, [0-9]+ module BTFs\)|no \(.+\))$'
	'^ring buffer: (yes|no \(.+\))$'
	"^fentry: $backend\$"
	"^kprobe: $backend\$"
	"^kprobe\\.multi: $backend\$"
	# the BPF features past 5.10's (lib/kfeat.h), read from BTF
	"^task storage: $kfeat\$"
	"^kprobe attach cookies: $kfeat\$"
	"^bpf_task_pt_regs: $kfeat\$"
	"^bpf_loop: $kfeat\$"
	"^bpf_get_func_arg: $kfeat\$"
	"^fentry attach cookies: $kfeat\$"
	"^hash maps in perf event programs: $kfeat\$"
	"^uprobe\\.multi: $kfeat\$"
)
ok=0
[ "$(wc -l <"$t/out")" = ${#expect[@]} ] || ok=1
i=1
for re in "${expect[@]}"; do
	sed -n "${i}p" "$t/out" | grep -qE -- "$re" || ok=1
	i=$((i + 1))
done
tap $ok "feature prints one well-formed line per feature"

# 0 exactly when fentry or kprobe works; otherwise 1 and one Error line.
if grep -qE '^(fentry|kprobe): yes' "$t/out"; then
	[ $rc = 0 ] && [ ! -s "$t/err" ]
else
	[ $rc = 1 ] && [ "$(wc -l <"$t/err")" = 1 ] && grep -q '^Error: ' "$t/err"
fi
tap $? "feature exit status $rc agrees with its backend lines"

# -j: the same answers as one JSON object (then the error object, if any).
./ksnoop -j feature >"$t/json" 2>/dev/null
./ksnoop feature >"$t/out" 2>/dev/null
python3 - "$t/json" "$t/out" >"$t/why" 2>&1 <<'PY'
import json, re, sys
lines = open(sys.argv[1]).read().splitlines()
r = json.loads(lines[0])
text = dict(l.split(': ', 1) for l in open(sys.argv[2]).read().splitlines())
assert set(r) == {'kernel', 'machine', 'btf', 'ring_buffer', 'backends', 'features'}, r.keys()
assert text['kernel'] == r['kernel'] + ' ' + r['machine']
assert text['BTF'].startswith('yes') == r['btf']['available']
assert text['ring buffer'].startswith('yes') == r['ring_buffer']['available']
assert [b['name'] for b in r['backends']] == ['fentry', 'kprobe', 'kprobe.multi']
for b in r['backends']:
    assert text[b['name']].startswith('yes') == b['works'], b
    assert b['works'] or b['reason'] in text[b['name']], b
for f in r['features']:
    assert text[f['name']].startswith('yes') == f['available'], f
    assert f['available'] or text[f['name']] == 'no (Linux %s; instead: %s)' % (f['since'], f['instead']), f
assert len(r["features"]) == 8
for l in lines[1:]:
    assert list(json.loads(l)) == ['error'], l
PY
rc=$?
[ $rc = 0 ] || sed 's/^/#   /' "$t/why"
tap $rc "feature -j: one object with the text's answers, backend by backend and feature by feature"

# Without privileges the cause is the permission, not the kernel's age.
if command -v setpriv >/dev/null && id nobody >/dev/null 2>&1; then
	mkdir "$t/bin"
	cp ksnoop "$t/bin/"
	chmod 755 "$t" "$t/bin" "$t/bin/ksnoop"
	setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups \
		"$t/bin/ksnoop" feature >"$t/out" 2>"$t/err"
	rc=$?
	[ $rc = 1 ] && [ "$(cat "$t/err")" = "Error: creating a BPF ring buffer: Operation not permitted (run as root, or with CAP_BPF and CAP_PERFMON)" ] &&
		grep -qE '^ring buffer: no \(creating one needs root .*\(EPERM\)\)$' "$t/out" &&
		! grep -qE 'predates|on this kernel' "$t/out"
	tap $? "feature as nobody says it needs privileges, not a newer kernel"
else
	echo "ok - host: feature as nobody # SKIP no setpriv or no user nobody"
fi

./ksnoop feature extra >"$t/out" 2>"$t/err"
rc=$?
[ $rc = 1 ] && [ ! -s "$t/out" ] && [ "$(cat "$t/err")" = "Error: 'feature' takes no arguments" ]
tap $? "feature rejects arguments with one error line"
