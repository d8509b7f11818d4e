/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KSNOOP_DECODE_H
#define KSNOOP_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <bpf/btf.h>

#include "lib/util.h"

/*
 * What a captured integer means beyond its C type, as people read it:
 * network-order addresses and ports, signal numbers, capabilities, TCP
 * and task states. Found once per value from its BTF type and its name.
 */
enum decode {
	DECODE_NONE,
	DECODE_IPV4,	   /* __be32 named *addr*: "127.0.0.1" */
	DECODE_IPV6,	   /* struct in6_addr: "::1" */
	DECODE_PORT,	   /* __be16 named *port*: 8080 */
	DECODE_BE16,	   /* any other __be16, in host order */
	DECODE_BE32,	   /* any other __be32, in host order */
	DECODE_SIGNAL,	   /* sig, signo, signr: "SIGKILL" */
	DECODE_CAP,	   /* cap: "CAP_SYS_ADMIN" */
	DECODE_TCP_STATE,  /* skc_state, a tcp_ function's state: "TCP_ESTABLISHED" */
	DECODE_TASK_STATE, /* a task's __state, sched_switch's prev_state: "TASK_INTERRUPTIBLE" */
};

/* name: the value as written ("sk->__sk_common.skc_dport"); func: its function. */
enum decode decode_of(const struct btf *btf, __u32 type_id, const char *name, const char *func);

/* The JSON member that carries the decoded form beside the raw value. */
const char *decode_json_key(enum decode d);

/* Whether the decoded form is a number (JSON, sorting) rather than a name. */
bool decode_is_number(enum decode d);

/*
 * Appends the decoded form of the little-endian bytes data[0..len) to sb;
 * false, and sb untouched, when the value has none (signal 99).
 */
bool decode_text(enum decode d, const struct btf *btf, const void *data, size_t len,
		 struct strbuf *sb);

#endif
