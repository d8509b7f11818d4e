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
kfeat='(yes|no \(Linux 5\.[0-9]+; instead: .+\))'
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
	"^bpf_loop: $kfeat\$"
	"^bpf_get_func_arg: $kfeat\$"
	"^fentry attach cookies: $kfeat\$"
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
