// SPDX-License-Identifier: GPL-2.0
#include <string.h>
#include <strings.h>

#include "lib/decode.h"
#include "lib/util.h"

/* x86-64 and arm64 share the generic numbering of signals 1 to 31. */
static const char *const signal_names[] = {
	[1] = "SIGHUP",	    [2] = "SIGINT",   [3] = "SIGQUIT",	 [4] = "SIGILL",   [5] = "SIGTRAP",
	[6] = "SIGABRT",    [7] = "SIGBUS",   [8] = "SIGFPE",	 [9] = "SIGKILL",  [10] = "SIGUSR1",
	[11] = "SIGSEGV",   [12] = "SIGUSR2", [13] = "SIGPIPE",	 [14] = "SIGALRM", [15] = "SIGTERM",
	[16] = "SIGSTKFLT", [17] = "SIGCHLD", [18] = "SIGCONT",	 [19] = "SIGSTOP", [20] = "SIGTSTP",
	[21] = "SIGTTIN",   [22] = "SIGTTOU", [23] = "SIGURG",	 [24] = "SIGXCPU", [25] = "SIGXFSZ",
	[26] = "SIGVTALRM", [27] = "SIGPROF", [28] = "SIGWINCH", [29] = "SIGIO",   [30] = "SIGPWR",
	[31] = "SIGSYS",
};

#define SIGRT_FIRST 32 /* the kernel's SIGRTMIN; glibc keeps two for itself */
#define SIGRT_LAST 64

/* include/uapi/linux/capability.h */
static const char *const cap_names[] = {
	"CHOWN",
	"DAC_OVERRIDE",
	"DAC_READ_SEARCH",
	"FOWNER",
	"FSETID",
	"KILL",
	"SETGID",
	"SETUID",
	"SETPCAP",
	"LINUX_IMMUTABLE",
	"NET_BIND_SERVICE",
	"NET_BROADCAST",
	"NET_ADMIN",
	"NET_RAW",
	"IPC_LOCK",
	"IPC_OWNER",
	"SYS_MODULE",
	"SYS_RAWIO",
	"SYS_CHROOT",
	"SYS_PTRACE",
	"SYS_PACCT",
	"SYS_ADMIN",
	"SYS_BOOT",
	"SYS_NICE",
	"SYS_RESOURCE",
	"SYS_TIME",
	"SYS_TTY_CONFIG",
	"MKNOD",
	"LEASE",
	"AUDIT_WRITE",
	"AUDIT_CONTROL",
	"SETFCAP",
	"MAC_OVERRIDE",
	"MAC_ADMIN",
	"SYSLOG",
	"WAKE_ALARM",
	"BLOCK_SUSPEND",
	"AUDIT_READ",
	"PERFMON",
	"BPF",
	"CHECKPOINT_RESTORE",
};

/* The last member or parameter of a value's path: "skc_dport" of "sk->__sk_common.skc_dport". */
static const char *last_name(const char *name)
{
	const char *dot = strrchr(name, '.'), *arrow = strrchr(name, '>');
	const char *last = dot > arrow ? dot : arrow;

	return last ? last + 1 : name;
}

static bool name_is(const char *name, const char *const *set)
{
	for (; *set; set++) {
		if (!strcmp(name, *set))
			return true;
	}
	return false;
}

/* The typedef __be16 or __be32 the type goes through, or NULL. */
static const char *be_typedef(const struct btf *btf, __u32 id, const struct btf_type **real)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	const char *found = NULL;

	while (t && (btf_is_typedef(t) || btf_is_mod(t))) {
		const char *n = btf__name_by_offset(btf, t->name_off);

		if (btf_is_typedef(t) && n && (!strcmp(n, "__be16") || !strcmp(n, "__be32")))
			found = found ?: n;
		t = btf__type_by_id(btf, t->type);
	}
	*real = t;
	return found;
}

static bool is_struct_named(const struct btf *btf, const struct btf_type *t, const char *name)
{
	const char *n = t && btf_is_struct(t) ? btf__name_by_offset(btf, t->name_off) : NULL;

	return n && !strcmp(n, name);
}

static enum decode decode_int(const char *last, const char *func)
{
	static const char *const sig[] = {
		"sig", "signo", "signr", "si_signo", "exit_signal", NULL
	};
	static const char *const state[] = { "state",	  "newstate",  "oldstate",
					     "new_state", "old_state", NULL };

	if (name_is(last, sig))
		return DECODE_SIGNAL;
	if (!strcmp(last, "cap"))
		return DECODE_CAP;
	if (!strcmp(last, "skc_state") ||
	    (name_is(last, state) && func && !strncmp(func, "tcp_", 4)))
		return DECODE_TCP_STATE;
	if (!strcmp(last, "__state") || !strcmp(last, "prev_state"))
		return DECODE_TASK_STATE;
	return DECODE_NONE;
}

enum decode decode_of(const struct btf *btf, __u32 type_id, const char *name, const char *func)
{
	const struct btf_type *t;
	const char *be = be_typedef(btf, type_id, &t);
	const char *last = last_name(name);

	if (be && !strcmp(be, "__be16"))
		return strcasestr(last, "port") ? DECODE_PORT : DECODE_BE16;
	if (be)
		return strcasestr(last, "addr") ? DECODE_IPV4 : DECODE_BE32;
	if (is_struct_named(btf, t, "in6_addr") && t->size == 16)
		return DECODE_IPV6;
	if (t && btf_is_int(t) && t->size <= 8)
		return decode_int(last, func);
	return DECODE_NONE;
}

const char *decode_json_key(enum decode d)
{
	static const char *const keys[] = {
		[DECODE_IPV4] = "ipv4",
		[DECODE_IPV6] = "ipv6",
		[DECODE_PORT] = "port",
		[DECODE_BE16] = "host_order",
		[DECODE_BE32] = "host_order",
		[DECODE_SIGNAL] = "signal",
		[DECODE_CAP] = "capability",
		[DECODE_TCP_STATE] = "tcp_state",
		[DECODE_TASK_STATE] = "task_state",
	};

	return (unsigned int)d < ARRAY_SIZE(keys) ? keys[d] : NULL;
}

bool decode_is_number(enum decode d)
{
	return d == DECODE_PORT || d == DECODE_BE16 || d == DECODE_BE32;
}

static __u64 le_value(const __u8 *b, size_t len)
{
	__u64 v = 0;

	while (len--)
		v = v << 8 | b[len];
	return v;
}

static __u64 be_value(const __u8 *b, size_t len)
{
	__u64 v = 0;
	size_t i;

	for (i = 0; i < len; i++)
		v = v << 8 | b[i];
	return v;
}

/* RFC 5952's text form: the longest run of two or more zero groups as "::". */
static void ipv6_text(const __u8 *b, struct strbuf *sb)
{
	int best = -1, best_len = 1, run = 0, i;

	for (i = 0; i < 8; i++) {
		run = b[2 * i] || b[2 * i + 1] ? 0 : run + 1;
		if (run > best_len) {
			best_len = run;
			best = i - run + 1;
		}
	}
	if (best == 0 && best_len == 5 && b[10] == 0xff && b[11] == 0xff) {
		sb_printf(sb, "::ffff:%u.%u.%u.%u", b[12], b[13], b[14], b[15]);
		return;
	}
	for (i = 0; i < 8; i++) {
		if (i == best) {
			sb_printf(sb, "::");
			i += best_len - 1;
			continue;
		}
		sb_printf(sb, "%s%x", i && i != best + best_len ? ":" : "",
			  (unsigned int)(b[2 * i] << 8 | b[2 * i + 1]));
	}
}

/* The kernel's TCP_* state enum, found by its first state's name; 0 if absent. */
static __u32 tcp_state_enum(const struct btf *btf)
{
	static const struct btf *cached_btf;
	static __u32 cached_id;
	__u32 i, n = btf__type_cnt(btf);

	if (btf == cached_btf)
		return cached_id;
	cached_btf = btf;
	cached_id = 0;
	for (i = 1; i < n; i++) {
		const struct btf_type *t = btf__type_by_id(btf, i);

		if (btf_is_enum(t) && btf_vlen(t) &&
		    !strcmp(btf__name_by_offset(btf, btf_enum(t)[0].name_off), "TCP_ESTABLISHED")) {
			cached_id = i;
			break;
		}
	}
	return cached_id;
}

/*
 * A task's state bits, as include/linux/sched.h has them: the first twelve
 * since 4.14, TASK_RTLOCK_WAIT since 5.15, the freezer's since 6.1 (each
 * bit unused before it came); 0 is TASK_RUNNING. Later bits print as a
 * number.
 */
static const char *const task_state_bits[] = {
	"TASK_INTERRUPTIBLE",
	"TASK_UNINTERRUPTIBLE",
	"__TASK_STOPPED",
	"__TASK_TRACED",
	"EXIT_DEAD",
	"EXIT_ZOMBIE",
	"TASK_PARKED",
	"TASK_DEAD",
	"TASK_WAKEKILL",
	"TASK_WAKING",
	"TASK_NOLOAD",
	"TASK_NEW",
	"TASK_RTLOCK_WAIT",
	"TASK_FREEZABLE",
	"__TASK_FREEZABLE_UNSAFE",
	"TASK_FROZEN",
};

static bool task_state_text(__u64 v, struct strbuf *sb)
{
	__u64 rest = v;
	size_t i;

	if (!v) {
		sb_printf(sb, "TASK_RUNNING");
		return true;
	}
	for (i = 0; i < ARRAY_SIZE(task_state_bits); i++) {
		if (!(v & (1ULL << i)))
			continue;
		sb_printf(sb, "%s%s", rest == v ? "" : "|", task_state_bits[i]);
		rest &= ~(1ULL << i);
	}
	if (rest)
		sb_printf(sb, "%s%#llx", rest == v ? "" : "|", (unsigned long long)rest);
	return true;
}

static bool tcp_state_text(const struct btf *btf, __u64 v, struct strbuf *sb)
{
	__u32 id = btf ? tcp_state_enum(btf) : 0;
	const struct btf_type *t = id ? btf__type_by_id(btf, id) : NULL;
	int i;

	for (i = 0; t && i < btf_vlen(t); i++) {
		if ((__u64)(__u32)btf_enum(t)[i].val == v) {
			sb_printf(sb, "%s", btf__name_by_offset(btf, btf_enum(t)[i].name_off));
			return true;
		}
	}
	return false;
}

bool decode_text(enum decode d, const struct btf *btf, const void *data, size_t len,
		 struct strbuf *sb)
{
	const __u8 *b = data;
	__u64 v = le_value(b, len > 8 ? 8 : len);

	switch (d) {
	case DECODE_IPV4:
		if (len != 4)
			return false;
		sb_printf(sb, "%u.%u.%u.%u", b[0], b[1], b[2], b[3]);
		return true;
	case DECODE_IPV6:
		if (len != 16)
			return false;
		ipv6_text(b, sb);
		return true;
	case DECODE_PORT:
	case DECODE_BE16:
	case DECODE_BE32:
		if (len != (d == DECODE_BE32 ? 4 : 2))
			return false;
		sb_printf(sb, "%llu", (unsigned long long)be_value(b, len));
		return true;
	case DECODE_SIGNAL:
		if (v < ARRAY_SIZE(signal_names) && signal_names[v])
			sb_printf(sb, "%s", signal_names[v]);
		else if (v > SIGRT_FIRST && v <= SIGRT_LAST)
			sb_printf(sb, "SIGRTMIN+%llu", (unsigned long long)(v - SIGRT_FIRST));
		else if (v == SIGRT_FIRST)
			sb_printf(sb, "SIGRTMIN");
		else
			return false;
		return true;
	case DECODE_CAP:
		if (v >= ARRAY_SIZE(cap_names))
			return false;
		sb_printf(sb, "CAP_%s", cap_names[v]);
		return true;
	case DECODE_TCP_STATE:
		return tcp_state_text(btf, v, sb);
	case DECODE_TASK_STATE:
		return task_state_text(v, sb);
	default:
		return false;
	}
}
