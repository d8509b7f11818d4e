// SPDX-License-Identifier: GPL-2.0
/*
 * chain.c (-s): synthetic events through chain__event(). Each event
 * carries a label in its comm; what the chain emits is recorded as the
 * labels, space-separated, in order.
 */
#include <errno.h>

#include "testutil.h"
#include "trace/chain.h"

#define HELD_MAX 4096 /* CHAIN_MAX_HELD in chain.c */

struct ctx {
	struct chain *chain;
	char got[1024];
	int nr_emitted;
	size_t last_size;
	struct ksnoop_event ev;
};

static int record(void *arg, const struct ksnoop_event *ev, size_t size)
{
	struct ctx *c = arg;
	size_t n = strlen(c->got);

	c->nr_emitted++;
	c->last_size = size;
	if (n + sizeof(ev->comm) + 1 < sizeof(c->got))
		snprintf(c->got + n, sizeof(c->got) - n, "%s%.*s", n ? " " : "",
			 (int)sizeof(ev->comm), ev->comm);
	return 0;
}

static struct ctx *new_ctx(int chain_len)
{
	struct ctx *c = calloc(1, sizeof(*c));

	assert_non_null(c);
	c->chain = chain__new(chain_len, record, c);
	assert_non_null(c->chain);
	return c;
}

static void free_ctx(struct ctx *c)
{
	chain__free(c->chain);
	free(c);
}

/* One event of thread tid in chain chain_id, from the function at pos. */
static void send(struct ctx *c, __u32 tid, __u64 chain_id, int pos, __u16 kind, const char *label)
{
	memset(&c->ev, 0, KSNOOP_EVENT_HDR_SIZE);
	c->ev.kind = kind;
	c->ev.func_id = pos;
	c->ev.pid = tid;
	c->ev.tgid = tid;
	c->ev.chain_id = chain_id;
	strncpy(c->ev.comm, label, sizeof(c->ev.comm) - 1);
	assert_int_equal(chain__event(c->chain, &c->ev, KSNOOP_EVENT_HDR_SIZE, pos), 0);
}

#define ENT KSNOOP_EV_ENTRY
#define RET KSNOOP_EV_RETURN
#define END KSNOOP_EV_CHAIN_END

static void expect(struct ctx *c, const char *want)
{
	assert_string_equal(c->got, want);
}

/* Held until the last function is reached, then in order; then live. */
static void test_complete(void **state UNUSED)
{
	struct ctx *c = new_ctx(3);

	send(c, 1, 100, 0, ENT, "e0");
	send(c, 1, 100, 1, ENT, "e1");
	expect(c, "");
	send(c, 1, 100, 2, ENT, "e2");
	expect(c, "e0 e1 e2");
	send(c, 1, 100, 2, RET, "r2");
	send(c, 1, 100, 1, RET, "r1");
	send(c, 1, 100, 0, RET, "r0");
	expect(c, "e0 e1 e2 r2 r1 r0");
	assert_int_equal(c->last_size, KSNOOP_EVENT_HDR_SIZE);
	free_ctx(c);
}

/* The first function returns before the last was reached: all dropped. */
static void test_incomplete(void **state UNUSED)
{
	struct ctx *c = new_ctx(3);

	send(c, 1, 100, 0, ENT, "e0");
	send(c, 1, 100, 1, ENT, "e1");
	send(c, 1, 100, 1, RET, "r1");
	send(c, 1, 100, 0, RET, "r0");
	expect(c, "");
	/* a combined event (--duration) ends the chain the same way */
	send(c, 1, 101, 1, ENT, "e1");
	send(c, 1, 101, 0, KSNOOP_EV_COMBINED, "c0");
	/* nothing of either chain is held for the next one */
	send(c, 1, 102, 0, ENT, "E0");
	send(c, 1, 102, 1, ENT, "E1");
	send(c, 1, 102, 2, ENT, "E2");
	expect(c, "E0 E1 E2");
	free_ctx(c);
}

/* The first function emits nothing at return: CHAIN_END decides, unseen. */
static void test_chain_end(void **state UNUSED)
{
	struct ctx *c = new_ctx(2);

	send(c, 1, 100, 0, ENT, "e0");
	send(c, 1, 100, 0, END, "x0");
	expect(c, "");
	send(c, 1, 101, 0, ENT, "e0");
	send(c, 1, 101, 1, ENT, "e1");
	send(c, 1, 101, 1, RET, "r1");
	send(c, 1, 101, 0, END, "x0");
	expect(c, "e0 e1 r1");
	/* the pending chain is gone: a late event starts afresh */
	send(c, 1, 101, 0, ENT, "late");
	expect(c, "e0 e1 r1");
	free_ctx(c);
}

/* Threads and chain ids are kept apart, however their events interleave. */
static void test_interleaved(void **state UNUSED)
{
	struct ctx *c = new_ctx(2);

	send(c, 1, 100, 0, ENT, "a0");
	send(c, 2, 100, 0, ENT, "b0");
	send(c, 1, 200, 0, ENT, "c0");
	send(c, 2, 100, 1, ENT, "b1");
	expect(c, "b0 b1");
	send(c, 1, 100, 0, RET, "a0r");
	send(c, 1, 200, 1, ENT, "c1");
	send(c, 2, 100, 0, RET, "b0r");
	send(c, 1, 200, 0, RET, "c0r");
	expect(c, "b0 b1 c0 c1 b0r c0r");
	free_ctx(c);
}

/* Lost events (a full ring): what arrives of a chain still decides it. */
static void test_missing_events(void **state UNUSED)
{
	struct ctx *c = new_ctx(3);

	/* the first function's entry was lost */
	send(c, 1, 100, 1, ENT, "e1");
	send(c, 1, 100, 2, ENT, "e2");
	send(c, 1, 100, 0, RET, "r0");
	expect(c, "e1 e2 r0");
	/* the chain's end was lost: it stays pending, apart from the next */
	send(c, 1, 101, 0, ENT, "lost0");
	send(c, 1, 102, 0, ENT, "f0");
	send(c, 1, 102, 1, ENT, "f1");
	send(c, 1, 102, 2, ENT, "f2");
	expect(c, "e1 e2 r0 f0 f1 f2");
	free_ctx(c);
}

static void test_single_function(void **state UNUSED)
{
	struct ctx *c = new_ctx(1);

	send(c, 1, 100, 0, ENT, "e0");
	send(c, 1, 100, 0, RET, "r0");
	send(c, 1, 101, 0, END, "x0");
	expect(c, "e0 r0");
	free_ctx(c);
}

/* A held event is a copy: the ring reuses its memory. */
static void test_held_copy(void **state UNUSED)
{
	struct ctx *c = new_ctx(2);
	size_t size = KSNOOP_EVENT_HDR_SIZE + 8;

	memset(&c->ev, 0, sizeof(c->ev));
	c->ev.kind = ENT;
	c->ev.chain_id = 7;
	strcpy(c->ev.comm, "held");
	assert_int_equal(chain__event(c->chain, &c->ev, size, 0), 0);
	strcpy(c->ev.comm, "reused");
	c->ev.func_id = 1;
	assert_int_equal(chain__event(c->chain, &c->ev, size, 1), 0);
	expect(c, "held reused");
	assert_int_equal(c->last_size, size);
	free_ctx(c);
}

/* What one thread holds is bounded; the last function still shows. */
static void test_held_bound(void **state UNUSED)
{
	struct ctx *c = new_ctx(3);
	int i;

	for (i = 0; i < HELD_MAX + 100; i++)
		send(c, 1, 100, 1, ENT, "e1");
	assert_int_equal(c->nr_emitted, 0);
	send(c, 1, 100, 2, ENT, "e2");
	assert_int_equal(c->nr_emitted, HELD_MAX + 1);
	free_ctx(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_complete),       cmocka_unit_test(test_incomplete),
		cmocka_unit_test(test_chain_end),      cmocka_unit_test(test_interleaved),
		cmocka_unit_test(test_missing_events), cmocka_unit_test(test_single_function),
		cmocka_unit_test(test_held_copy),      cmocka_unit_test(test_held_bound),
	};

	return cmocka_run_group_tests_name("chain", tests, NULL, NULL);
}
