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

/*
 * --errors: failures as (tid, depth, entry time, return time); an origin
 * is recorded as "[label label ...]", outermost first.
 */
static void record_origin(void *arg, const struct ksnoop_event *const *evs, const size_t *sizes,
			  int n, int cut)
{
	struct ctx *c = arg;
	size_t len = strlen(c->got);
	int i;

	(void)sizes;
	if (cut)
		len += snprintf(c->got + len, sizeof(c->got) - len, "%scut=%d", len ? " " : "",
				cut);
	len += snprintf(c->got + len, sizeof(c->got) - len, "%s[", len ? " " : "");
	for (i = 0; i < n && len < sizeof(c->got); i++)
		len += snprintf(c->got + len, sizeof(c->got) - len, "%s%.*s", i ? " " : "",
				(int)sizeof(evs[i]->comm), evs[i]->comm);
	if (len < sizeof(c->got))
		snprintf(c->got + len, sizeof(c->got) - len, "]");
	c->nr_emitted++;
}

static struct ctx *new_errors_ctx(void)
{
	struct ctx *c = calloc(1, sizeof(*c));

	assert_non_null(c);
	c->chain = chain__new_errors(record_origin, c);
	assert_non_null(c->chain);
	return c;
}

static void failure(struct ctx *c, __u32 tid, int depth, __u64 entry, __u64 ret, const char *label)
{
	memset(&c->ev, 0, KSNOOP_EVENT_HDR_SIZE);
	c->ev.kind = KSNOOP_EV_COMBINED;
	c->ev.pid = tid;
	c->ev.depth = depth;
	c->ev.ts = ret;
	c->ev.duration_ns = ret - entry;
	strncpy(c->ev.comm, label, sizeof(c->ev.comm) - 1);
	assert_int_equal(chain__nested(c->chain, &c->ev, KSNOOP_EVENT_HDR_SIZE, depth == 0), 0);
}

static void chain_end_of(struct ctx *c, __u32 tid)
{
	memset(&c->ev, 0, KSNOOP_EVENT_HDR_SIZE);
	c->ev.kind = END;
	c->ev.pid = tid;
	assert_int_equal(chain__nested(c->chain, &c->ev, KSNOOP_EVENT_HDR_SIZE, true), 0);
}

/* Inner failures arrive first (they return first); the outermost releases them. */
static void test_origin_chain(void **state UNUSED)
{
	struct ctx *c = new_errors_ctx();

	failure(c, 1, 2, 30, 40, "path_openat");
	failure(c, 1, 1, 20, 50, "do_filp_open");
	expect(c, "");
	failure(c, 1, 0, 10, 60, "do_sys_openat2");
	expect(c, "[do_sys_openat2 do_filp_open path_openat]");
	free_ctx(c);
}

/* The deepest failure wins; of equals, the last to return; siblings off the chain go. */
static void test_origin_deepest(void **state UNUSED)
{
	struct ctx *c = new_errors_ctx();

	failure(c, 1, 1, 11, 15, "a1");
	failure(c, 1, 2, 21, 25, "b2");
	failure(c, 1, 3, 23, 24, "b3");
	failure(c, 1, 1, 20, 30, "b1");
	failure(c, 1, 2, 32, 36, "c2");
	failure(c, 1, 3, 34, 35, "c3");
	failure(c, 1, 1, 31, 40, "c1");
	failure(c, 1, 0, 10, 50, "top");
	expect(c, "[top c1 c2 c3]");
	free_ctx(c);
}

/* A chain end (the outermost call succeeded) forgets what was held. */
static void test_origin_chain_end(void **state UNUSED)
{
	struct ctx *c = new_errors_ctx();

	failure(c, 1, 1, 20, 30, "stale");
	chain_end_of(c, 1);
	failure(c, 1, 0, 40, 50, "top");
	expect(c, "[top]");
	free_ctx(c);
}

/* Failures from before the outermost call began are not its own. */
static void test_origin_stale(void **state UNUSED)
{
	struct ctx *c = new_errors_ctx();

	failure(c, 1, 1, 5, 8, "old");
	failure(c, 1, 1, 20, 30, "mine");
	failure(c, 1, 0, 10, 50, "top");
	expect(c, "[top mine]");
	failure(c, 1, 0, 60, 70, "next");
	expect(c, "[top mine] [next]");
	free_ctx(c);
}

/* Threads do not mix, and what one holds is bounded (the oldest go). */
static void test_origin_threads_bound(void **state UNUSED)
{
	struct ctx *c = new_errors_ctx();
	int i;

	failure(c, 1, 1, 20, 30, "t1in");
	failure(c, 2, 1, 20, 30, "t2in");
	failure(c, 2, 0, 10, 40, "t2");
	expect(c, "[t2 t2in]");
	for (i = 0; i < 10000; i++)
		failure(c, 1, 2, 21 + i, 22 + i, "spam");
	failure(c, 1, 0, 10, 100000, "t1");
	/* t1in was the oldest of more than could be held */
	expect(c, "[t2 t2in] [t1 spam]");
	free_ctx(c);
}

/* So are the threads holding events: the oldest goes first. */
static void test_origin_threads_max(void **state UNUSED)
{
	struct ctx *c = new_errors_ctx();
	__u32 tid;

	failure(c, 1, 1, 20, 30, "t1in");
	for (tid = 2; tid < 5000; tid++)
		failure(c, tid, 1, 20, 30, "in");
	failure(c, 1, 0, 10, 40, "t1");
	failure(c, 1000, 0, 10, 40, "t1000");
	failure(c, 4999, 0, 10, 40, "t4999");
	/* 1 and 2-904 went to make room for 4097-4999 */
	expect(c, "[t1] [t1000 in] [t4999 in]");
	free_ctx(c);
}

static struct ctx *new_graph_ctx(int max_nodes)
{
	struct ctx *c = calloc(1, sizeof(*c));

	assert_non_null(c);
	c->chain = chain__new_graph(record_origin, max_nodes, c);
	assert_non_null(c->chain);
	return c;
}

/* graph: ENTRY releases every call within it, successes too; none from before. */
static void test_graph_tree(void **state UNUSED)
{
	struct ctx *c = new_graph_ctx(100);

	failure(c, 1, 1, 1, 2, "before");
	failure(c, 1, 2, 12, 13, "leaf");
	failure(c, 1, 1, 11, 14, "mid");
	failure(c, 1, 1, 15, 16, "sib");
	failure(c, 2, 1, 12, 13, "other");
	failure(c, 1, 0, 10, 20, "entry");
	expect(c, "[entry leaf mid sib]");
	failure(c, 1, 0, 30, 40, "again");
	expect(c, "[entry leaf mid sib] [again]");
	free_ctx(c);
}

/* A full tree counts what it cut and keeps its shallowest calls. */
static void test_graph_cut(void **state UNUSED)
{
	struct ctx *c = new_graph_ctx(2);

	failure(c, 1, 3, 13, 14, "d3");
	failure(c, 1, 2, 12, 15, "d2");
	failure(c, 1, 1, 11, 16, "d1");
	failure(c, 1, 3, 17, 18, "e3");
	failure(c, 1, 0, 10, 20, "entry");
	expect(c, "cut=2 [entry d1 d2]");
	free_ctx(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_complete),
		cmocka_unit_test(test_incomplete),
		cmocka_unit_test(test_chain_end),
		cmocka_unit_test(test_interleaved),
		cmocka_unit_test(test_missing_events),
		cmocka_unit_test(test_single_function),
		cmocka_unit_test(test_held_copy),
		cmocka_unit_test(test_held_bound),
		cmocka_unit_test(test_origin_chain),
		cmocka_unit_test(test_origin_deepest),
		cmocka_unit_test(test_origin_chain_end),
		cmocka_unit_test(test_origin_stale),
		cmocka_unit_test(test_origin_threads_bound),
		cmocka_unit_test(test_graph_tree),
		cmocka_unit_test(test_graph_cut),
		cmocka_unit_test(test_origin_threads_max),
	};

	return cmocka_run_group_tests_name("chain", tests, NULL, NULL);
}
