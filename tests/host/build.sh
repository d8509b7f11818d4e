#!/bin/bash
# The build is warning-free (-Werror) under clang as under gcc, and
# "make STATIC=1" gives a static binary that runs. TAP output.
set -uo pipefail
cd "$(dirname "$0")/../.."
jobs=$(nproc)

check() {
	local name=$1
	shift
	if out=$("$@" 2>&1); then
		echo "ok - build: $name"
	else
		echo "not ok - build: $name"
		printf '%s\n' "$out" | tail -20 | sed 's/^/#   /'
	fi
}

check "clang -Wall -Wextra -Werror" \
	make -s -j"$jobs" CC=clang OUT=build/clang BIN=build/clang/ksnoop
check "STATIC=1 links" \
	make -s -j"$jobs" STATIC=1 OUT=build/static BIN=build/static/ksnoop
check "the static binary is static" \
	sh -c 'file build/static/ksnoop | grep -q "statically linked"'
check "the static binary runs info" \
	sh -c 'build/static/ksnoop info ip_send_skb | grep -qx "int ip_send_skb(struct net \*net, struct sk_buff \*skb);"'
# The committed bpf/x86/vmlinux.h: a host without BTF builds the same BPF
# objects; only VMLINUX_H= asks for the host's BTF.
check "a host without BTF builds from the committed bpf/x86/vmlinux.h" \
	make -s -j"$jobs" HOST_BTF=/nonexistent OUT=build/nobtf BIN=build/nobtf/ksnoop
check "the build used the committed header" \
	cmp -s bpf/x86/vmlinux.h build/nobtf/vmlinux.h
check "VMLINUX_H= without a readable HOST_BTF names the missing BTF" \
	sh -c 'rm -rf build/hostbtf; make -s VMLINUX_H= HOST_BTF=/nonexistent OUT=build/hostbtf BIN=build/hostbtf/ksnoop 2>&1 |
		grep -q "^Error: /nonexistent not readable; build on a kernel with CONFIG_DEBUG_INFO_BTF=y"'
