// SPDX-License-Identifier: GPL-2.0
/* What an integer means beyond its C type: which values decode, and how. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "lib/decode.h"

struct types {
	struct btf *btf;
	int u8, u16, u32, be16, be32, const_be32, in_addr, in6, int_t, state_enum, ptr;
};

static struct types T;

/* The kernel's shapes: typedef __u16 __be16, a const __be32, struct in6_addr, enum { TCP_ESTABLISHED = 1, ... }. */
static int setup(void **state)
{
	struct btf *b = btf__new_empty();
	int arr;

	(void)state;
	T.btf = b;
	T.u16 = btf__add_int(b, "short unsigned int", 2, 0);
	T.u32 = btf__add_int(b, "unsigned int", 4, 0);
	T.int_t = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	T.u8 = btf__add_int(b, "unsigned char", 1, 0);
	T.be16 = btf__add_typedef(b, "__be16", btf__add_typedef(b, "__u16", T.u16));
	T.be32 = btf__add_typedef(b, "__be32", btf__add_typedef(b, "__u32", T.u32));
	T.const_be32 = btf__add_const(b, T.be32);
	T.in_addr = btf__add_struct(b, "in_addr", 4);
	btf__add_field(b, "s_addr", T.const_be32, 0, 0);
	arr = btf__add_array(b, T.u32, T.u8, 16);
	T.in6 = btf__add_struct(b, "in6_addr", 16);
	btf__add_field(b, "u6_addr8", arr, 0, 0);
	T.state_enum = btf__add_enum(b, NULL, 4);
	btf__add_enum_value(b, "TCP_ESTABLISHED", 1);
	btf__add_enum_value(b, "TCP_SYN_SENT", 2);
	btf__add_enum_value(b, "TCP_CLOSE", 7);
	T.ptr = btf__add_ptr(b, T.be16);
	return T.btf && T.ptr > 0 ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	btf__free(T.btf);
	return 0;
}

static void test_which_values_decode(void **state)
{
	struct btf *b = T.btf;

	(void)state;
	assert_int_equal(decode_of(b, T.be16, "sk->__sk_common.skc_dport", "f"), DECODE_PORT);
	assert_int_equal(decode_of(b, T.be16, "sin_port", "f"), DECODE_PORT);
	assert_int_equal(decode_of(b, T.be16, "skb->protocol", "f"), DECODE_BE16);
	assert_int_equal(decode_of(b, T.be32, "sk->__sk_common.skc_daddr", "f"), DECODE_IPV4);
	assert_int_equal(decode_of(b, T.const_be32, "sin_addr.s_addr", "f"), DECODE_IPV4);
	assert_int_equal(decode_of(b, T.be32, "th->seq", "f"), DECODE_BE32);
	assert_int_equal(decode_of(b, T.in6, "sk->__sk_common.skc_v6_daddr", "f"), DECODE_IPV6);
	assert_int_equal(decode_of(b, T.int_t, "sig", "send_signal_locked"), DECODE_SIGNAL);
	assert_int_equal(decode_of(b, T.int_t, "cap", "ns_capable"), DECODE_CAP);
	assert_int_equal(decode_of(b, T.int_t, "state", "tcp_set_state"), DECODE_TCP_STATE);
	assert_int_equal(decode_of(b, T.int_t, "state", "set_current_state"), DECODE_NONE);
	assert_int_equal(decode_of(b, T.u8, "sk->__sk_common.skc_state", "f"), DECODE_TCP_STATE);
	assert_int_equal(decode_of(b, T.int_t, "prev_state", "sched_switch"), DECODE_TASK_STATE);
	assert_int_equal(decode_of(b, T.int_t, "prev->__state", "f"), DECODE_TASK_STATE);
	/* An unrelated name, a plain u16 port number, a pointer: as they are. */
	assert_int_equal(decode_of(b, T.int_t, "len", "f"), DECODE_NONE);
	assert_int_equal(decode_of(b, T.u16, "skc_num", "f"), DECODE_NONE);
	assert_int_equal(decode_of(b, T.ptr, "dport", "f"), DECODE_NONE);
}

static const char *text(enum decode d, const void *data, size_t len)
{
	static struct strbuf sb;

	sb_free(&sb);
	sb_init(&sb);
	return decode_text(d, T.btf, data, len, &sb) ? sb_str(&sb) : NULL;
}

static void test_texts(void **state)
{
	const uint8_t lo[4] = { 127, 0, 0, 1 }, port[2] = { 0x1f, 0x90 };
	uint8_t v6[16] = { 0 }, mapped[16] = { [10] = 0xff, [11] = 0xff, 10, 0, 2, 15 };
	const uint8_t doc[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
	int sig = 9, rt = 35, bad = 99, cap = 21, st = 7, st_bad = 42;

	(void)state;
	assert_string_equal(text(DECODE_IPV4, lo, 4), "127.0.0.1");
	assert_string_equal(text(DECODE_PORT, port, 2), "8080");
	assert_string_equal(text(DECODE_BE32, lo, 4), "2130706433");
	v6[15] = 1;
	assert_string_equal(text(DECODE_IPV6, v6, 16), "::1");
	assert_string_equal(text(DECODE_IPV6, doc, 16), "2001:db8::1");
	assert_string_equal(text(DECODE_IPV6, mapped, 16), "::ffff:10.0.2.15");
	assert_string_equal(text(DECODE_SIGNAL, &sig, 4), "SIGKILL");
	assert_string_equal(text(DECODE_SIGNAL, &rt, 4), "SIGRTMIN+3");
	assert_null(text(DECODE_SIGNAL, &bad, 4));
	assert_string_equal(text(DECODE_CAP, &cap, 4), "CAP_SYS_ADMIN");
	assert_string_equal(text(DECODE_TCP_STATE, &st, 4), "TCP_CLOSE");
	assert_null(text(DECODE_TCP_STATE, &st_bad, 4));
	assert_string_equal(text(DECODE_TASK_STATE, &(int){ 0 }, 4), "TASK_RUNNING");
	assert_string_equal(text(DECODE_TASK_STATE, &(int){ 1 }, 4), "TASK_INTERRUPTIBLE");
	assert_string_equal(text(DECODE_TASK_STATE, &(int){ 0x402 }, 4),
			    "TASK_UNINTERRUPTIBLE|TASK_NOLOAD");
	assert_string_equal(text(DECODE_TASK_STATE, &(int){ 0x2001 }, 4),
			    "TASK_INTERRUPTIBLE|TASK_FREEZABLE");
	assert_string_equal(text(DECODE_TASK_STATE, &(int){ 0x10001 }, 4),
			    "TASK_INTERRUPTIBLE|0x10000");
	/* A short capture decodes to nothing rather than to a wrong address. */
	assert_null(text(DECODE_IPV4, lo, 2));
	assert_true(decode_is_number(DECODE_PORT));
	assert_false(decode_is_number(DECODE_IPV4));
	assert_string_equal(decode_json_key(DECODE_CAP), "capability");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_which_values_decode),
		cmocka_unit_test(test_texts),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
