// SPDX-License-Identifier: GPL-2.0
/*
 * agg/format.c and agg/table.c: aggregate tables built here by hand, as the
 * map readers would fill them, printed as text, folded stacks and NDJSON.
 * Every expected string is written out in full; a histogram line is
 * bpftrace's: a 16-column label, an 8-column count, " |", 52 columns of bar.
 */
#include "testutil.h"
#include "agg/flame.h"
#include "agg/format.h"
#include "agg/table.h"
#include "lib/util.h"

#define NOOPTS (&(struct agg_print_opts){ 0 })
#define LOG2                                                      \
	{                                                         \
		.scale = AGG_LOG2, .nr_buckets = AGG_LOG2_BUCKETS \
	}
/* A histogram table of one row and no key. */
#define HIST_OF(fn, val, lay, row)                                                       \
	{                                                                                \
		.kind = AGG_HIST, .func = fn, .value = val, .layout = lay, .rows = &row, \
		.nr_rows = 1                                                             \
	}
/* A table's func, and its fields and rows from two arrays. */
#define TABLE_OF(fn, f, r) \
	.func = fn, .fields = f, .nr_fields = ARRAY_SIZE(f), .rows = r, .nr_rows = ARRAY_SIZE(r)

enum writer { TEXT, JSON, FOLDED };

/* What the writer printed for t into a memory stream; free() it. */
static char *print_with(enum writer w, const struct agg_table *t, const struct agg_print_opts *o)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	if (w == TEXT)
		agg_print_text(f, t, o);
	else if (w == JSON)
		agg_print_json(f, t, o);
	else
		agg_print_folded(f, t);
	fclose(f);
	return buf;
}

static char *print_text(const struct agg_table *t, const struct agg_print_opts *o)
{
	return print_with(TEXT, t, o);
}

static char *print_folded(const struct agg_table *t)
{
	return print_with(FOLDED, t, NULL);
}

static void expect_text(const struct agg_table *t, const struct agg_print_opts *o, const char *want)
{
	char *got = print_text(t, o);

	assert_string_equal(got, want);
	free(got);
}

static void expect_json(const struct agg_table *t, const struct agg_print_opts *o, const char *want)
{
	char *got = print_with(JSON, t, o);

	assert_string_equal(got, want);
	free(got);
}

/* ---- the issue's example: 3, 5 and 2 samples of skb->len at 78, 178 and 1028 ---- */

/* log2 bucket k >= 2 holds [2^(k-2), 2^(k-1)): 78 in 8, 178 in 9, 1028 in 12. */
static uint64_t issue_buckets[AGG_LOG2_BUCKETS] = { [8] = 3, [9] = 5, [12] = 2 };
static struct agg_row issue_row = {
	.count = 10,
	.buckets = issue_buckets,
	.sum = 3 * 78 + 5 * 178 + 2 * 1028,
	.min = 78,
	.max = 1028,
};
static struct agg_table issue_table = HIST_OF("ip_send_skb", "skb->len", LOG2, issue_row);

#define ISSUE_BUCKETS                                                                       \
	"[64, 128)              3 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@                     |\n" \
	"[128, 256)             5 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n" \
	"[256, 512)             0 |                                                    |\n" \
	"[512, 1K)              0 |                                                    |\n" \
	"[1K, 2K)               2 |@@@@@@@@@@@@@@@@@@@@                                |\n"

#define ISSUE_TEXT                \
	"ip_send_skb: skb->len\n" \
	"count 10, sum 3180, min 78, max 1028, mean 318.00\n" ISSUE_BUCKETS "\n"

static void test_hist_issue_example(void **state UNUSED)
{
	expect_text(&issue_table, NOOPTS, ISSUE_TEXT);
	expect_text(&issue_table, NULL, ISSUE_TEXT);
}

static void test_hist_interval_header(void **state UNUSED)
{
	expect_text(&issue_table, &(struct agg_print_opts){ .ts = "12:00:01" },
		    "[12:00:01]\n" ISSUE_TEXT);
}

/* ---- linear: below lo, inside, at or above hi ---- */

/* lo 0, hi 30, step 10: 0 below, 1..3 = [0, 10) .. [20, 30), 4 at or above 30 */
#define LIN_0_30_10                                                                 \
	{                                                                           \
		.scale = AGG_LINEAR, .lo = 0, .hi = 30, .step = 10, .nr_buckets = 5 \
	}
static uint64_t lin_buckets[5] = { 2, 1, 0, 4, 1 };
static struct agg_row lin_row = { .count = 8,
				  .buckets = lin_buckets,
				  .sum = 60,
				  .min = -3,
				  .max = 31,
				  .is_signed = true };
static struct agg_table lin_table = HIST_OF("tcp_sendmsg", "size", LIN_0_30_10, lin_row);

static void test_hist_linear(void **state UNUSED)
{
	expect_text(
		&lin_table, NOOPTS,
		"tcp_sendmsg: size\n"
		"count 8, sum 60, min -3, max 31, mean 7.50\n"
		"(..., 0)               2 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |\n"
		"[0, 10)                1 |@@@@@@@@@@@@@                                       |\n"
		"[10, 20)               0 |                                                    |\n"
		"[20, 30)               4 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		"[30, ...)              1 |@@@@@@@@@@@@@                                       |\n"
		"\n");
}

/* A step of 1024 labels in K; empty buckets outside the non-empty range are trimmed. */
static void test_hist_linear_kilo_trimmed(void **state UNUSED)
{
	uint64_t buckets[10] = { 0, 0, 7, 3 }; /* 6 used with step 1024, 10 with 512 */
	struct agg_row row = {
		.count = 10, .buckets = buckets, .sum = 15000, .min = 1024, .max = 3000
	};
	struct agg_table t = {
		.kind = AGG_HIST,
		.func = "f",
		.value = "len",
		.layout = { .scale = AGG_LINEAR,
			    .lo = 0,
			    .hi = 4096,
			    .step = 1024,
			    .nr_buckets = 6 },
		.rows = &row,
		.nr_rows = 1,
	};

	expect_text(
		&t, NOOPTS,
		"f: len\n"
		"count 10, sum 15000, min 1024, max 3000, mean 1500.00\n"
		"[1K, 2K)               7 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		"[2K, 3K)               3 |@@@@@@@@@@@@@@@@@@@@@@                              |\n"
		"\n");
	/* bpftrace's lhist(): no suffixes when 1024 does not divide the step */
	t.layout.step = 512;
	t.layout.nr_buckets = 10;
	expect_text(
		&t, NOOPTS,
		"f: len\n"
		"count 10, sum 15000, min 1024, max 3000, mean 1500.00\n"
		"[512, 1024)            7 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		"[1024, 1536)           3 |@@@@@@@@@@@@@@@@@@@@@@                              |\n"
		"\n");
}

/* ---- log2's own buckets: negative, [0], [1], and the top ones ---- */

static uint64_t neg_buckets[AGG_LOG2_BUCKETS] = { [0] = 1, [1] = 2, [2] = 1, [3] = 1 };
static struct agg_row neg_row = { .count = 5,
				  .buckets = neg_buckets,
				  .sum = -1,
				  .min = -5,
				  .max = 2,
				  .is_signed = true };
static struct agg_table neg_table = HIST_OF("f", "return", LOG2, neg_row);

static void test_hist_negative(void **state UNUSED)
{
	expect_text(
		&neg_table, NOOPTS,
		"f: return\n"
		"count 5, sum -1, min -5, max 2, mean -0.20\n"
		"(..., 0)               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |\n"
		"[0]                    2 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		"[1]                    1 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |\n"
		"[2, 4)                 1 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |\n"
		"\n");
}

/* Unsigned values past INT64_MAX: the E suffix, 2^64 as "16E", stats unsigned. */
static uint64_t top_buckets[AGG_LOG2_BUCKETS] = { [64] = 1, [65] = 3 };
static struct agg_row top_row = { .count = 4,
				  .buckets = top_buckets,
				  .sum = -2,
				  .min = (int64_t)(1ULL << 62),
				  .max = -1 };
static struct agg_table top_table = HIST_OF("f", "x", LOG2, top_row);

static void test_hist_top_buckets(void **state UNUSED)
{
	expect_text(
		&top_table, NOOPTS,
		"f: x\n"
		"count 4, sum 18446744073709551614, min 4611686018427387904, "
		"max 18446744073709551615, mean 4611686018427387904.00\n"
		"[4E, 8E)               1 |@@@@@@@@@@@@@@@@@                                   |\n"
		"[8E, 16E)              3 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		"\n");
}

static void test_hist_empty(void **state UNUSED)
{
	struct agg_table t = {
		.kind = AGG_HIST, .func = "f", .value = "latency", .unit = "ns", .layout = LOG2
	};

	expect_text(&t, NOOPTS, "f: latency (ns)\ncount 0\n\n");
}

/* ---- several histograms: keys from --by, a glob's functions ---- */

static struct agg_field by_fields[] = { { AGG_F_COMM, "comm" }, { AGG_F_PID, "pid" } };
static uint64_t by_b1[AGG_LOG2_BUCKETS] = { [3] = 1 };
static uint64_t by_b2[AGG_LOG2_BUCKETS] = { [3] = 2, [5] = 1 };
static uint64_t by_b3[AGG_LOG2_BUCKETS] = { [4] = 2 };
static struct agg_val by_k1[] = { { .text = "bash" }, { .text = "7", .number = true } };
static struct agg_val by_k2[] = { { .text = "sshd" }, { .text = "42", .number = true } };
static struct agg_val by_k3[] = { { .text = "cron" }, { .text = "9", .number = true } };
static struct agg_row by_rows[] = {
	{ .key = by_k1, .count = 1, .buckets = by_b1, .sum = 2, .min = 2, .max = 2 },
	{ .key = by_k2, .count = 3, .buckets = by_b2, .sum = 16, .min = 2, .max = 10 },
	{ .key = by_k3, .count = 2, .buckets = by_b3, .sum = 9, .min = 4, .max = 5 },
};
static struct agg_table by_table = {
	.kind = AGG_HIST,
	.value = "latency",
	.unit = "us",
	.layout = LOG2,
	TABLE_OF("ip_send_skb", by_fields, by_rows),
};

/* One histogram per key, by count descending; top keeps the first two. */
static void test_hist_by_top(void **state UNUSED)
{
	expect_text(
		&by_table, &(struct agg_print_opts){ .top = 2 },
		"ip_send_skb: latency (us), comm=sshd pid=42\n"
		"count 3, sum 16, min 2, max 10, mean 5.33\n"
		"[2, 4)                 2 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		"[4, 8)                 0 |                                                    |\n"
		"[8, 16)                1 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |\n"
		"\n"
		"ip_send_skb: latency (us), comm=cron pid=9\n"
		"count 2, sum 9, min 4, max 5, mean 4.50\n"
		"[4, 8)                 2 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		"\n"
		"... 1 more row\n"
		"\n");
}

static struct agg_field glob_fields[] = { { AGG_F_FUNC, "func" } };
static uint64_t glob_b1[AGG_LOG2_BUCKETS] = { [3] = 4 };
static uint64_t glob_b2[AGG_LOG2_BUCKETS] = { [4] = 6 };
static struct agg_val glob_k1[] = { { .text = "tcp_sendmsg" } };
static struct agg_val glob_k2[] = { { .text = "tcp_recvmsg" } };
static struct agg_row glob_hist_rows[] = {
	{ .key = glob_k1, .count = 4, .buckets = glob_b1, .sum = 8, .min = 2, .max = 2 },
	{ .key = glob_k2, .count = 6, .buckets = glob_b2, .sum = 24, .min = 4, .max = 4 },
};

/* A glob's histograms are titled by the function each counted, not the pattern. */
static void test_hist_glob(void **state UNUSED)
{
	struct agg_table t = { .kind = AGG_HIST,
			       .value = "latency",
			       .unit = "ns",
			       .layout = LOG2,
			       TABLE_OF("tcp_*", glob_fields, glob_hist_rows) };

	expect_text(
		&t, &(struct agg_print_opts){ .top = 1 },
		"tcp_recvmsg: latency (ns)\n"
		"count 6, sum 24, min 4, max 4, mean 4.00\n"
		"[4, 8)                 6 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		"\n"
		"... 1 more row\n"
		"\n");
	expect_json(
		&t, &(struct agg_print_opts){ .top = 1 },
		"{\"type\":\"hist\",\"func\":\"tcp_recvmsg\",\"value\":\"latency\",\"unit\":\"ns\","
		"\"by\":{},\"buckets\":[{\"low\":4,\"high\":8,\"count\":6}],"
		"\"count\":6,\"sum\":24,\"min\":4,\"max\":4,\"mean\":4.00}\n");
}

/* ---- count tables ---- */

static struct agg_field count_fields[] = { { AGG_F_VALUE, "skb->len" }, { AGG_F_COMM, "comm" } };
static struct agg_val ck1[] = { { .text = "178", .number = true }, { .text = "sshd" } };
static struct agg_val ck2[] = { { .text = "78", .number = true }, { .text = "bash" } };
static struct agg_val ck3[] = { { .text = "1500", .number = true }, { .text = "sshd" } };
static struct agg_val ck4[] = { { .text = "78", .number = true }, { .text = "sshd" } };
static struct agg_val ck5[] = { { .text = "60", .number = true }, { .text = "cron" } };
static struct agg_row count_rows[] = {
	{ .key = ck1, .count = 5 }, { .key = ck2, .count = 3 }, { .key = ck3, .count = 5 },
	{ .key = ck4, .count = 5 }, { .key = ck5, .count = 1 },
};
static struct agg_table count_table = {
	.kind = AGG_COUNT,
	TABLE_OF("ip_send_skb", count_fields, count_rows),
};

/* Count descending; ties by key, numbers by value (78 < 178 < 1500, not as text). */
static void test_count_sorted_top(void **state UNUSED)
{
	expect_text(&count_table, &(struct agg_print_opts){ .top = 4 },
		    "ip_send_skb\n"
		    "skb->len  COMM  COUNT\n"
		    "78        sshd      5\n"
		    "178       sshd      5\n"
		    "1500      sshd      5\n"
		    "78        bash      3\n"
		    "... 1 more row\n"
		    "\n");
}

/*
 * A comm set with prctl can hold a terminal's controls: text tables show
 * them escaped, as trace shows strings, and align by what they print.
 */
static void test_text_keys_escaped(void **state UNUSED)
{
	struct agg_field fields[] = { { AGG_F_COMM, "comm" } };
	struct agg_val k1[] = { { .text = "\033]0;x\007\033[2J" } };
	struct agg_val k2[] = { { .text = "a\"b\\c\n\xc3\xa9" } };
	struct agg_row rows[] = { { .key = k1, .count = 2 }, { .key = k2, .count = 1 } };
	struct agg_table count = { .kind = AGG_COUNT, TABLE_OF("f", fields, rows) };
	struct agg_row hrow = {
		.key = k1, .count = 1, .buckets = by_b1, .sum = 2, .min = 2, .max = 2
	};
	struct agg_table hist = { .kind = AGG_HIST,
				  .value = "v",
				  .layout = LOG2,
				  .func = "f",
				  .fields = fields,
				  .nr_fields = 1,
				  .rows = &hrow,
				  .nr_rows = 1 };
	char *got;

	expect_text(&count, NOOPTS,
		    "f\n"
		    "COMM                 COUNT\n"
		    "\\x1b]0;x\\x07\\x1b[2J      2\n"
		    "a\\\"b\\\\c\\n\\xc3\\xa9        1\n"
		    "\n");
	got = print_text(&hist, NOOPTS);
	assert_non_null(strstr(got, "f: v, comm=\\x1b]0;x\\x07\\x1b[2J\n"));
	free(got);
}

static void test_count_all(void **state UNUSED)
{
	char *got = print_text(&count_table, NOOPTS);

	assert_non_null(strstr(got, "60        cron      1\n\n"));
	assert_null(strstr(got, "more row"));
	free(got);
}

static void test_count_glob(void **state UNUSED)
{
	struct agg_row rows[] = { { .key = glob_k1, .count = 4 },
				  { .key = glob_k2, .count = 12345 } };
	struct agg_table t = { .kind = AGG_COUNT, TABLE_OF("tcp_*", glob_fields, rows) };

	expect_text(&t, NOOPTS,
		    "tcp_*\n"
		    "FUNC         COUNT\n"
		    "tcp_recvmsg  12345\n"
		    "tcp_sendmsg      4\n"
		    "\n");
	expect_json(&t, NOOPTS,
		    "{\"type\":\"count\",\"func\":\"tcp_recvmsg\",\"key\":{},\"count\":12345}\n"
		    "{\"type\":\"count\",\"func\":\"tcp_sendmsg\",\"key\":{},\"count\":4}\n");
}

/* Negative keys sort below positive ones, -12 below -5. */
static void test_count_negative_keys(void **state UNUSED)
{
	struct agg_field fields[] = { { AGG_F_VALUE, "return" } };
	struct agg_val k1[] = { { .text = "3", .number = true } };
	struct agg_val k2[] = { { .text = "-5", .number = true } };
	struct agg_val k3[] = { { .text = "-12", .number = true } };
	struct agg_row rows[] = { { .key = k1, .count = 2 },
				  { .key = k2, .count = 2 },
				  { .key = k3, .count = 2 } };
	struct agg_table t = { .kind = AGG_COUNT, TABLE_OF("f", fields, rows) };

	expect_text(&t, NOOPTS,
		    "f\n"
		    "return  COUNT\n"
		    "-12         2\n"
		    "-5          2\n"
		    "3           2\n"
		    "\n");
}

/* ---- stacks ---- */

static struct agg_field stack_fields[] = { { AGG_F_KSTACK, "kstack" },
					   { AGG_F_COMM, "comm" },
					   { AGG_F_PID, "pid" } };
static char *stack1[] = { "ip_send_skb+0x0", "udp_send_skb+0x2c1", "udp_sendmsg+0x9a3" };
static char *stack2[] = { "ip_send_skb+0x0", "ip_push_pending_frames+0x31",
			  "raw_sendmsg+0x6f2 [raw_diag]" };
static struct agg_val sk1[] = { { .frames = stack1, .nr_frames = 3 },
				{ .text = "DNS Res;olver" },
				{ .text = "42", .number = true } };
static struct agg_val sk2[] = { { .frames = stack2, .nr_frames = 3 },
				{ .text = "ping" },
				{ .text = "99", .number = true } };
static struct agg_row stack_rows[] = { { .key = sk2, .count = 2 }, { .key = sk1, .count = 7 } };
static struct agg_table stack_table = {
	.kind = AGG_COUNT,
	TABLE_OF("ip_send_skb", stack_fields, stack_rows),
};

static void test_count_kstack(void **state UNUSED)
{
	expect_text(&stack_table, NOOPTS,
		    "ip_send_skb\n"
		    "  ip_send_skb+0x0\n"
		    "  udp_send_skb+0x2c1\n"
		    "  udp_sendmsg+0x9a3\n"
		    "    comm=DNS Res;olver pid=42\n"
		    "    7\n"
		    "\n"
		    "  ip_send_skb+0x0\n"
		    "  ip_push_pending_frames+0x31\n"
		    "  raw_sendmsg+0x6f2 [raw_diag]\n"
		    "    comm=ping pid=99\n"
		    "    2\n"
		    "\n");
	expect_text(&stack_table, &(struct agg_print_opts){ .top = 1 },
		    "ip_send_skb\n"
		    "  ip_send_skb+0x0\n"
		    "  udp_send_skb+0x2c1\n"
		    "  udp_sendmsg+0x9a3\n"
		    "    comm=DNS Res;olver pid=42\n"
		    "    7\n"
		    "\n"
		    "... 1 more row\n"
		    "\n");
}

/* Outermost first; keys as the outer frames; ';', ' ' and offsets folded away. */
static void test_folded(void **state UNUSED)
{
	char *got = print_folded(&stack_table);

	assert_string_equal(
		got, "DNS_Res_olver;pid=42;udp_sendmsg;udp_send_skb;ip_send_skb 7\n"
		     "ping;pid=99;raw_sendmsg_[raw_diag];ip_push_pending_frames;ip_send_skb 2\n");
	free(got);
}

/* Only a stack: the frames alone; an offset that is not hex stays. */
static void test_folded_stack_only(void **state UNUSED)
{
	char *frames[] = { "0xffffffff81000000", "f+0xzz", "g+0x1f [m]" };
	struct agg_val key[] = { { .frames = frames, .nr_frames = 3 } };
	struct agg_row row = { .key = key, .count = 1 };
	struct agg_table t = { .kind = AGG_COUNT,
			       .func = "f",
			       .fields = stack_fields,
			       .nr_fields = 1,
			       .rows = &row,
			       .nr_rows = 1 };
	char *got = print_folded(&t);

	assert_string_equal(got, "g_[m];f+0xzz;0xffffffff81000000 1\n");
	free(got);
}

/* No stack: the keys are the frames, a glob's function by its name. */
static void test_folded_no_stack(void **state UNUSED)
{
	struct agg_row rows[] = { { .key = glob_k1, .count = 4 } };
	struct agg_table t = { .kind = AGG_COUNT, TABLE_OF("tcp_*", glob_fields, rows) };
	char *got = print_folded(&t);

	assert_string_equal(got, "tcp_sendmsg 4\n");
	free(got);
	got = print_folded(&count_table);
	assert_string_equal(got, "skb->len=78;sshd 5\n"
				 "skb->len=178;sshd 5\n"
				 "skb->len=1500;sshd 5\n"
				 "skb->len=78;bash 3\n"
				 "skb->len=60;cron 1\n");
	free(got);
}

/* ---- JSON ---- */

static void test_json_hist(void **state UNUSED)
{
	struct agg_field fields[] = { { AGG_F_COMM, "comm" } };
	struct agg_val key[] = { { .text = "a\"b\\\n" } };
	struct agg_row row = issue_row;
	struct agg_table t = issue_table;

	row.key = key;
	t.rows = &row;
	t.fields = fields;
	t.nr_fields = 1;
	expect_json(
		&t, NOOPTS,
		"{\"type\":\"hist\",\"func\":\"ip_send_skb\",\"value\":\"skb->len\","
		"\"by\":{\"comm\":\"a\\\"b\\\\\\u000a\"},"
		"\"buckets\":[{\"low\":64,\"high\":128,\"count\":3},"
		"{\"low\":128,\"high\":256,\"count\":5},{\"low\":1024,\"high\":2048,\"count\":2}],"
		"\"count\":10,\"sum\":3180,\"min\":78,\"max\":1028,\"mean\":318.00}\n");
}

static void test_json_hist_by_ts(void **state UNUSED)
{
	expect_json(
		&by_table, &(struct agg_print_opts){ .top = 1, .ts = "12:00:01" },
		"{\"type\":\"hist\",\"ts\":\"12:00:01\",\"func\":\"ip_send_skb\","
		"\"value\":\"latency\",\"unit\":\"us\",\"by\":{\"comm\":\"sshd\",\"pid\":42},"
		"\"buckets\":[{\"low\":2,\"high\":4,\"count\":2},{\"low\":8,\"high\":16,\"count\":1}],"
		"\"count\":3,\"sum\":16,\"min\":2,\"max\":10,\"mean\":5.33}\n");
}

/* Unbounded edges are null: below lo, at or above hi, negative, and 2^64. */
static void test_json_open_buckets(void **state UNUSED)
{
	expect_json(&lin_table, NOOPTS,
		    "{\"type\":\"hist\",\"func\":\"tcp_sendmsg\",\"value\":\"size\",\"by\":{},"
		    "\"buckets\":[{\"low\":null,\"high\":0,\"count\":2},"
		    "{\"low\":0,\"high\":10,\"count\":1},{\"low\":20,\"high\":30,\"count\":4},"
		    "{\"low\":30,\"high\":null,\"count\":1}],"
		    "\"count\":8,\"sum\":60,\"min\":-3,\"max\":31,\"mean\":7.50}\n");
	expect_json(&neg_table, NOOPTS,
		    "{\"type\":\"hist\",\"func\":\"f\",\"value\":\"return\",\"by\":{},"
		    "\"buckets\":[{\"low\":null,\"high\":0,\"count\":1},"
		    "{\"low\":0,\"high\":1,\"count\":2},{\"low\":1,\"high\":2,\"count\":1},"
		    "{\"low\":2,\"high\":4,\"count\":1}],"
		    "\"count\":5,\"sum\":-1,\"min\":-5,\"max\":2,\"mean\":-0.20}\n");
	expect_json(&top_table, NOOPTS,
		    "{\"type\":\"hist\",\"func\":\"f\",\"value\":\"x\",\"by\":{},"
		    "\"buckets\":[{\"low\":4611686018427387904,\"high\":9223372036854775808,"
		    "\"count\":1},{\"low\":9223372036854775808,\"high\":null,\"count\":3}],"
		    "\"count\":4,\"sum\":18446744073709551614,\"min\":4611686018427387904,"
		    "\"max\":18446744073709551615,\"mean\":4611686018427387904.00}\n");
}

static void test_json_count(void **state UNUSED)
{
	expect_json(&count_table, &(struct agg_print_opts){ .top = 2, .ts = "t\"1" },
		    "{\"type\":\"count\",\"ts\":\"t\\\"1\",\"func\":\"ip_send_skb\","
		    "\"key\":{\"skb->len\":78,\"comm\":\"sshd\"},\"count\":5}\n"
		    "{\"type\":\"count\",\"ts\":\"t\\\"1\",\"func\":\"ip_send_skb\","
		    "\"key\":{\"skb->len\":178,\"comm\":\"sshd\"},\"count\":5}\n");
}

/* A "number" whose text JSON cannot read bare is a string; so is a non-number. */
static void test_json_number_text(void **state UNUSED)
{
	struct agg_field fields[] = { { AGG_F_VALUE, "a" },
				      { AGG_F_VALUE, "b" },
				      { AGG_F_VALUE, "c" },
				      { AGG_F_CPU, "cpu" } };
	struct agg_val key[] = { { .text = "0x1f", .number = true },
				 { .text = "007", .number = true },
				 { .text = "-12", .number = true },
				 { .text = "3" } };
	struct agg_row row = { .key = key, .count = 1 };
	struct agg_table t = { .kind = AGG_COUNT,
			       .func = "f",
			       .fields = fields,
			       .nr_fields = 4,
			       .rows = &row,
			       .nr_rows = 1 };

	expect_json(
		&t, NOOPTS,
		"{\"type\":\"count\",\"func\":\"f\","
		"\"key\":{\"a\":\"0x1f\",\"b\":\"007\",\"c\":-12,\"cpu\":\"3\"},\"count\":1}\n");
}

static void test_json_kstack(void **state UNUSED)
{
	expect_json(&stack_table, NOOPTS,
		    "{\"type\":\"count\",\"func\":\"ip_send_skb\",\"key\":{\"kstack\":"
		    "[\"ip_send_skb+0x0\",\"udp_send_skb+0x2c1\",\"udp_sendmsg+0x9a3\"],"
		    "\"comm\":\"DNS Res;olver\",\"pid\":42},\"count\":7}\n"
		    "{\"type\":\"count\",\"func\":\"ip_send_skb\",\"key\":{\"kstack\":"
		    "[\"ip_send_skb+0x0\",\"ip_push_pending_frames+0x31\","
		    "\"raw_sendmsg+0x6f2 [raw_diag]\"],"
		    "\"comm\":\"ping\",\"pid\":99},\"count\":2}\n");
}

/* ---- table.c ---- */

static void test_bucket_bounds(void **state UNUSED)
{
	struct agg_layout log2 = LOG2;
	struct agg_layout lin = {
		.scale = AGG_LINEAR, .lo = -10, .hi = 30, .step = 10, .nr_buckets = 6
	};
	int64_t lo, hi;

	agg_bucket_bounds(&log2, 0, &lo, &hi);
	assert_true(lo == INT64_MIN && hi == 0);
	agg_bucket_bounds(&log2, 1, &lo, &hi);
	assert_true(lo == 0 && hi == 1);
	agg_bucket_bounds(&log2, 2, &lo, &hi);
	assert_true(lo == 1 && hi == 2);
	agg_bucket_bounds(&log2, 12, &lo, &hi);
	assert_true(lo == 1024 && hi == 2048);
	agg_bucket_bounds(&log2, 64, &lo, &hi);
	assert_true(lo == (int64_t)1 << 62 && hi == INT64_MAX);
	agg_bucket_bounds(&log2, 65, &lo, &hi);
	assert_true(lo == INT64_MAX && hi == INT64_MAX);
	agg_bucket_bounds(&lin, 0, &lo, &hi);
	assert_true(lo == INT64_MIN && hi == -10);
	agg_bucket_bounds(&lin, 1, &lo, &hi);
	assert_true(lo == -10 && hi == 0);
	agg_bucket_bounds(&lin, 4, &lo, &hi);
	assert_true(lo == 20 && hi == 30);
	agg_bucket_bounds(&lin, 5, &lo, &hi);
	assert_true(lo == 30 && hi == INT64_MAX);
}

static char **frames_new(int n)
{
	char **frames = calloc(n, sizeof(*frames));
	int i;

	assert_non_null(frames);
	for (i = 0; i < n; i++)
		frames[i] = strdup("f+0x1");
	return frames;
}

/* Everything allocated here is freed (valgrind/ASan check the leaks); t is left empty. */
static void test_table_free(void **state UNUSED)
{
	struct agg_table t = { .kind = AGG_HIST,
			       .func = strdup("f"),
			       .value = strdup("v"),
			       .unit = "us",
			       .nr_fields = 2,
			       .nr_rows = 2 };
	int i;

	t.fields = calloc(2, sizeof(*t.fields));
	t.rows = calloc(2, sizeof(*t.rows));
	assert_non_null(t.fields);
	assert_non_null(t.rows);
	t.fields[0] = (struct agg_field){ AGG_F_KSTACK, strdup("kstack") };
	t.fields[1] = (struct agg_field){ AGG_F_COMM, strdup("comm") };
	for (i = 0; i < 2; i++) {
		t.rows[i].key = calloc(2, sizeof(*t.rows[i].key));
		assert_non_null(t.rows[i].key);
		t.rows[i].key[0] = (struct agg_val){ .frames = frames_new(3), .nr_frames = 3 };
		t.rows[i].key[1] = (struct agg_val){ .text = strdup("sshd") };
		t.rows[i].buckets = calloc(AGG_LOG2_BUCKETS, sizeof(uint64_t));
	}
	agg_table_free(&t);
	assert_null(t.rows);
	assert_null(t.fields);
	assert_null(t.func);
	assert_int_equal(t.nr_rows, 0);
	agg_table_free(&t);
	agg_table_free(NULL);
}

/* ---- flame graph ---- */

/*
 * Two rows folding to one path merge into one frame; siblings sit in name
 * order, each as wide as its samples; names are XML-escaped.
 */
static void test_flame_svg(void **state UNUSED)
{
	static char *a[] = { "f+0x1", "g+0x2", "main<int>+0x3" };
	static char *b[] = { "f+0x9", "g+0x2", "main<int>+0x3" };
	static char *c[] = { "h+0x0", "main<int>+0x3" };
	struct agg_val ka[] = { { .frames = a, .nr_frames = 3 } };
	struct agg_val kb[] = { { .frames = b, .nr_frames = 3 } };
	struct agg_val kc[] = { { .frames = c, .nr_frames = 2 } };
	struct agg_row rows[] = { { .key = ka, .count = 3 },
				  { .key = kb, .count = 2 },
				  { .key = kc, .count = 5 } };
	struct agg_table t = {
		.kind = AGG_COUNT,
		.func = "f",
		.fields = stack_fields,
		.nr_fields = 1,
		.rows = rows,
		.nr_rows = 3,
	};
	struct agg_table *tables[] = { &t };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(flame_write_svg(f, tables, 1, "count <f>"), 0);
	fclose(f);
	assert_int_equal(count_of(buf, "<g class=\"f\">"), 5);
	assert_non_null(strstr(buf, ">count &lt;f&gt;</text>"));
	assert_non_null(strstr(buf, "<title>all (10 samples, 100.00%)</title>"));
	assert_non_null(strstr(buf, "<title>main&lt;int&gt; (10 samples, 100.00%)</title>"));
	assert_int_equal(count_of(buf, "<title>f (5 samples, 50.00%)</title>"), 1);
	assert_non_null(strstr(buf, "<title>g (5 samples, 50.00%)</title><rect x=\"10.0\""));
	assert_non_null(strstr(buf, "<title>h (5 samples, 50.00%)</title><rect x=\"610.0\""));
	assert_non_null(strstr(buf, "width=\"600.0\""));
	free(buf);

	/* the folded lines of the same rows: one line a path, counts summed */
	buf = print_folded(&t);
	assert_string_equal(buf, "main<int>;h 5\nmain<int>;g;f 5\n");
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hist_issue_example),
		cmocka_unit_test(test_hist_interval_header),
		cmocka_unit_test(test_hist_linear),
		cmocka_unit_test(test_hist_linear_kilo_trimmed),
		cmocka_unit_test(test_hist_negative),
		cmocka_unit_test(test_hist_top_buckets),
		cmocka_unit_test(test_hist_empty),
		cmocka_unit_test(test_hist_by_top),
		cmocka_unit_test(test_hist_glob),
		cmocka_unit_test(test_count_sorted_top),
		cmocka_unit_test(test_count_all),
		cmocka_unit_test(test_text_keys_escaped),
		cmocka_unit_test(test_count_glob),
		cmocka_unit_test(test_count_negative_keys),
		cmocka_unit_test(test_count_kstack),
		cmocka_unit_test(test_folded),
		cmocka_unit_test(test_folded_stack_only),
		cmocka_unit_test(test_folded_no_stack),
		cmocka_unit_test(test_flame_svg),
		cmocka_unit_test(test_json_hist),
		cmocka_unit_test(test_json_hist_by_ts),
		cmocka_unit_test(test_json_open_buckets),
		cmocka_unit_test(test_json_count),
		cmocka_unit_test(test_json_number_text),
		cmocka_unit_test(test_json_kstack),
		cmocka_unit_test(test_bucket_bounds),
		cmocka_unit_test(test_table_free),
	};

	return cmocka_run_group_tests_name("agg_format", tests, NULL, NULL);
}
