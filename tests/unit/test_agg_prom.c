// SPDX-License-Identifier: GPL-2.0
/*
 * agg/prom.c: the exposition text, exactly, for each kind of table; label
 * names and values; the textfile's atomic replacement; --prometheus's
 * argument errors.
 *
 * Hidden mode for tests/host/prom.sh: "test_agg_prom --serve HOST:PORT
 * [fail]" serves the fixed tables of render_fixed() until SIGTERM or
 * SIGINT ("fail": every render fails, for the 500 answer).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>

#include "testutil.h"
#include "agg/prom.h"
#include "lib/util.h"

#define HEAD_CALLS                                                                            \
	"# HELP ksnoop_calls_total Calls counted in the kernel by ksnoop count, by function " \
	"and key.\n# TYPE ksnoop_calls_total counter\n"
#define HEAD_VALUE                                                                           \
	"# HELP ksnoop_value Values recorded in the kernel by ksnoop hist; the value label " \
	"is the expression.\n# TYPE ksnoop_value histogram\n"
#define HEAD_LATENCY                                                                    \
	"# HELP ksnoop_latency_seconds Durations of the traced calls, recorded in the " \
	"kernel by ksnoop hist --latency.\n# TYPE ksnoop_latency_seconds histogram\n"
#define HEAD_DROPS                                                                          \
	"# HELP ksnoop_lost_samples_total Samples the kernel could not count, by reason.\n" \
	"# TYPE ksnoop_lost_samples_total counter\n"

/* le of log2 buckets 1..65 for integers (2^(k-1) - 1), and for us latencies in seconds. */
static const char *const log2_le[65] = {
	"0",
	"1",
	"3",
	"7",
	"15",
	"31",
	"63",
	"127",
	"255",
	"511",
	"1023",
	"2047",
	"4095",
	"8191",
	"16383",
	"32767",
	"65535",
	"131071",
	"262143",
	"524287",
	"1048575",
	"2097151",
	"4194303",
	"8388607",
	"16777215",
	"33554431",
	"67108863",
	"134217727",
	"268435455",
	"536870911",
	"1073741823",
	"2147483647",
	"4294967295",
	"8589934591",
	"17179869183",
	"34359738367",
	"68719476735",
	"137438953471",
	"274877906943",
	"549755813887",
	"1099511627775",
	"2199023255551",
	"4398046511103",
	"8796093022207",
	"17592186044415",
	"35184372088831",
	"70368744177663",
	"140737488355327",
	"281474976710655",
	"562949953421311",
	"1125899906842623",
	"2251799813685247",
	"4503599627370495",
	"9007199254740991",
	"18014398509481983",
	"36028797018963967",
	"72057594037927935",
	"144115188075855871",
	"288230376151711743",
	"576460752303423487",
	"1152921504606846975",
	"2305843009213693951",
	"4611686018427387903",
	"9223372036854775807",
	"18446744073709551615",
};

static const char *const log2_le_us[65] = {
	"0.000000999",
	"0.000001999",
	"0.000003999",
	"0.000007999",
	"0.000015999",
	"0.000031999",
	"0.000063999",
	"0.000127999",
	"0.000255999",
	"0.000511999",
	"0.001023999",
	"0.002047999",
	"0.004095999",
	"0.008191999",
	"0.016383999",
	"0.032767999",
	"0.065535999",
	"0.131071999",
	"0.262143999",
	"0.524287999",
	"1.048575999",
	"2.097151999",
	"4.194303999",
	"8.388607999",
	"16.777215999",
	"33.554431999",
	"67.108863999",
	"134.217727999",
	"268.435455999",
	"536.870911999",
	"1073.741823999",
	"2147.483647999",
	"4294.967295999",
	"8589.934591999",
	"17179.869183999",
	"34359.738367999",
	"68719.476735999",
	"137438.953471999",
	"274877.906943999",
	"549755.813887999",
	"1099511.627775999",
	"2199023.255551999",
	"4398046.511103999",
	"8796093.022207999",
	"17592186.044415999",
	"35184372.088831999",
	"70368744.177663999",
	"140737488.355327999",
	"281474976.710655999",
	"562949953.421311999",
	"1125899906.842623999",
	"2251799813.685247999",
	"4503599627.370495999",
	"9007199254.740991999",
	"18014398509.481983999",
	"36028797018.963967999",
	"72057594037.927935999",
	"144115188075.855871999",
	"288230376151.711743999",
	"576460752303.423487999",
	"1152921504606.846975999",
	"2305843009213.693951999",
	"4611686018427.387903999",
	"9223372036854.775807999",
	"18446744073709.551615999",
};

static const char *const drop_names[] = { "key table full", "stack not taken" };
static const uint64_t drop_counts[] = { 0, 3 };
static const struct agg_drops drops = { drop_names, drop_counts, 2 };

#define LOG2_LAYOUT ((struct agg_layout){ .scale = AGG_LOG2, .nr_buckets = 66 })

/* The exposition of tables, in a malloc'd string; rc gets prom_write's return. */
static char *render(struct agg_table *const *tables, int nr, const struct agg_drops *d, int *rc)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	*rc = prom_write(f, tables, nr, d);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static void expect_text(struct agg_table *const *tables, int nr, const struct agg_drops *d,
			const char *want)
{
	int rc;
	char *got = render(tables, nr, d, &rc);

	assert_int_equal(rc, 0);
	assert_string_equal(got, want);
	free(got);
}

/* ---- counts -------------------------------------------------------------- */

static struct agg_field len_field[] = { { AGG_F_VALUE, "skb->len" } };
static struct agg_val len178[] = { { .text = "178", .number = true } };
static struct agg_val len60[] = { { .text = "60", .number = true } };
static struct agg_row len_rows[] = { { .key = len178, .count = 5 }, { .key = len60, .count = 2 } };
static struct agg_table count_len = {
	.kind = AGG_COUNT,
	.func = "ip_send_skb",
	.fields = len_field,
	.nr_fields = 1,
	.rows = len_rows,
	.nr_rows = 2,
};

static struct agg_field glob_fields[] = { { AGG_F_COMM, "comm" }, { AGG_F_FUNC, "func" } };
static struct agg_val glob_key[] = { { .text = "sshd" }, { .text = "tcp_sendmsg" } };
static struct agg_row glob_rows[] = { { .key = glob_key, .count = 7 } };
static struct agg_table count_glob = {
	.kind = AGG_COUNT,
	.func = "tcp_send*",
	.fields = glob_fields,
	.nr_fields = 2,
	.rows = glob_rows,
	.nr_rows = 1,
};

static void test_count_table(void **state)
{
	struct agg_table *tables[] = { &count_len, &count_glob };

	(void)state;
	expect_text(tables, 2, &drops,
		    HEAD_CALLS
		    "ksnoop_calls_total{func=\"ip_send_skb\",skb_len=\"178\"} 5\n"
		    "ksnoop_calls_total{func=\"ip_send_skb\",skb_len=\"60\"} 2\n"
		    "ksnoop_calls_total{func=\"tcp_sendmsg\",comm=\"sshd\"} 7\n" HEAD_DROPS
		    "ksnoop_lost_samples_total{reason=\"key table full\"} 0\n"
		    "ksnoop_lost_samples_total{reason=\"stack not taken\"} 3\n");
}

static void test_kstack_outermost_first(void **state)
{
	static char *frames[] = { "c+0x1", "b+0x2", "a+0x3 [mod]" };
	struct agg_field fields[] = { { AGG_F_KSTACK, "kstack" } };
	struct agg_val key[] = { { .text = "", .frames = frames, .nr_frames = 3 } };
	struct agg_val empty[] = { { .text = "" } };
	struct agg_row rows[] = { { .key = key, .count = 9 }, { .key = empty, .count = 1 } };
	struct agg_table t = {
		.kind = AGG_COUNT,
		.func = "kfree",
		.fields = fields,
		.nr_fields = 1,
		.rows = rows,
		.nr_rows = 2,
	};
	struct agg_table *tables[] = { &t };

	(void)state;
	expect_text(tables, 1, NULL,
		    HEAD_CALLS
		    "ksnoop_calls_total{func=\"kfree\",kstack=\"a+0x3 [mod];b+0x2;c+0x1\"} 9\n"
		    "ksnoop_calls_total{func=\"kfree\",kstack=\"\"} 1\n" HEAD_DROPS);
}

/* ---- histograms ---------------------------------------------------------- */

/* The bucket lines of a log2 row, from le[first..64], cumulative counts cum[]. */
static void put_log2_buckets(FILE *f, const char *name, const char *labels, const char *const *le,
			     const uint64_t *buckets, bool is_signed)
{
	uint64_t cum = buckets[0];
	int k;

	if (is_signed)
		fprintf(f, "%s_bucket{%s,le=\"-1\"} %llu\n", name, labels, (unsigned long long)cum);
	for (k = 1; k < 66; k++) {
		cum += buckets[k];
		fprintf(f, "%s_bucket{%s,le=\"%s\"} %llu\n", name, labels, le[k - 1],
			(unsigned long long)cum);
	}
	fprintf(f, "%s_bucket{%s,le=\"+Inf\"} %llu\n", name, labels, (unsigned long long)cum);
}

static void test_log2_hist(void **state)
{
	uint64_t b[66] = { 0 }, sb[66] = { 0 };
	struct agg_field fields[] = { { AGG_F_PID, "pid" } };
	struct agg_val k1[] = { { .text = "42", .number = true } };
	struct agg_val k2[] = { { .text = "43", .number = true } };
	struct agg_row rows[] = {
		{ .key = k1, .buckets = b, .sum = 536 },
		{ .key = k2, .buckets = sb, .sum = -10, .is_signed = true },
	};
	struct agg_table t = {
		.kind = AGG_HIST,
		.func = "ip_send_skb",
		.value = "skb->len",
		.fields = fields,
		.nr_fields = 1,
		.layout = LOG2_LAYOUT,
		.rows = rows,
		.nr_rows = 2,
	};
	struct agg_table *tables[] = { &t };
	const char *l1 = "func=\"ip_send_skb\",value=\"skb->len\",pid=\"42\"";
	const char *l2 = "func=\"ip_send_skb\",value=\"skb->len\",pid=\"43\"";
	char *want = NULL;
	size_t len;
	FILE *f;

	(void)state;
	b[1] = 1;			    /* 0 */
	b[2] = 2;			    /* 1 */
	b[9] = 3;			    /* [128, 256): 178 */
	b[65] = 1;			    /* 2^63 and above */
	sb[0] = 2;			    /* two of -5 */
	rows[0].count = rows[1].count = 99; /* _count follows the buckets */
	f = open_memstream(&want, &len);
	fputs(HEAD_VALUE, f);
	put_log2_buckets(f, "ksnoop_value", l1, log2_le, b, false);
	fprintf(f, "ksnoop_value_sum{%s} 536\nksnoop_value_count{%s} 7\n", l1, l1);
	put_log2_buckets(f, "ksnoop_value", l2, log2_le, sb, true);
	fprintf(f, "ksnoop_value_sum{%s} -10\nksnoop_value_count{%s} 2\n", l2, l2);
	fputs(HEAD_DROPS, f);
	fclose(f);
	expect_text(tables, 1, NULL, want);
	free(want);
}

static void test_unsigned_sum_above_int64(void **state)
{
	uint64_t b[66] = { 0 };
	struct agg_row rows[] = { { .buckets = b, .sum = (int64_t)UINT64_MAX } };
	struct agg_table t = {
		.kind = AGG_HIST,
		.func = "f",
		.value = "x",
		.layout = LOG2_LAYOUT,
		.rows = rows,
		.nr_rows = 1,
	};
	struct agg_table *tables[] = { &t };
	char *got;
	int rc;

	(void)state;
	got = render(tables, 1, NULL, &rc);
	assert_int_equal(rc, 0);
	assert_non_null(
		strstr(got, "\nksnoop_value_sum{func=\"f\",value=\"x\"} 18446744073709551615\n"));
	free(got);
}

static void test_linear_hist(void **state)
{
	uint64_t b[6] = { 1, 2, 0, 3, 0, 4 };
	struct agg_row rows[] = { { .buckets = b, .sum = 1000, .count = 10, .is_signed = true } };
	struct agg_table t = {
		.kind = AGG_HIST,
		.func = "tcp_sendmsg",
		.value = "size",
		.layout = { .scale = AGG_LINEAR, .lo = 0, .hi = 100, .step = 25, .nr_buckets = 6 },
		.rows = rows,
		.nr_rows = 1,
	};
	struct agg_table *tables[] = { &t };

	(void)state;
	expect_text(tables, 1, NULL,
		    HEAD_VALUE
		    "ksnoop_value_bucket{func=\"tcp_sendmsg\",value=\"size\",le=\"-1\"} 1\n"
		    "ksnoop_value_bucket{func=\"tcp_sendmsg\",value=\"size\",le=\"24\"} 3\n"
		    "ksnoop_value_bucket{func=\"tcp_sendmsg\",value=\"size\",le=\"49\"} 3\n"
		    "ksnoop_value_bucket{func=\"tcp_sendmsg\",value=\"size\",le=\"74\"} 6\n"
		    "ksnoop_value_bucket{func=\"tcp_sendmsg\",value=\"size\",le=\"99\"} 6\n"
		    "ksnoop_value_bucket{func=\"tcp_sendmsg\",value=\"size\",le=\"+Inf\"} 10\n"
		    "ksnoop_value_sum{func=\"tcp_sendmsg\",value=\"size\"} 1000\n"
		    "ksnoop_value_count{func=\"tcp_sendmsg\",value=\"size\"} 10\n" HEAD_DROPS);
}

/* Below a negative lo, and a bucket across zero. */
static void test_linear_negative_lo(void **state)
{
	uint64_t b[4] = { 0, 1, 1, 1 };
	struct agg_row rows[] = { { .buckets = b, .sum = -3, .is_signed = true } };
	struct agg_table t = {
		.kind = AGG_HIST,
		.func = "f",
		.value = "v",
		.layout = { .scale = AGG_LINEAR, .lo = -10, .hi = 10, .step = 10, .nr_buckets = 4 },
		.rows = rows,
		.nr_rows = 1,
	};
	struct agg_table *tables[] = { &t };

	(void)state;
	expect_text(tables, 1, NULL,
		    HEAD_VALUE "ksnoop_value_bucket{func=\"f\",value=\"v\",le=\"-11\"} 0\n"
			       "ksnoop_value_bucket{func=\"f\",value=\"v\",le=\"-1\"} 1\n"
			       "ksnoop_value_bucket{func=\"f\",value=\"v\",le=\"9\"} 2\n"
			       "ksnoop_value_bucket{func=\"f\",value=\"v\",le=\"+Inf\"} 3\n"
			       "ksnoop_value_sum{func=\"f\",value=\"v\"} -3\n"
			       "ksnoop_value_count{func=\"f\",value=\"v\"} 3\n" HEAD_DROPS);
}

static void test_latency_seconds(void **state)
{
	uint64_t b[66] = { 0 };
	struct agg_row rows[] = { { .buckets = b, .sum = 706, .count = 4 } };
	struct agg_table t = {
		.kind = AGG_HIST,
		.func = "vfs_read",
		.value = "latency",
		.unit = "us",
		.layout = LOG2_LAYOUT,
		.rows = rows,
		.nr_rows = 1,
	};
	struct agg_table *tables[] = { &t };
	const char *l = "func=\"vfs_read\"";
	char *want = NULL;
	size_t len;
	FILE *f;

	(void)state;
	b[1] = 1;  /* 0 us: under 1000 ns */
	b[3] = 2;  /* [2, 4) us */
	b[11] = 1; /* [512, 1024) us: 700 */
	f = open_memstream(&want, &len);
	fputs(HEAD_LATENCY, f);
	put_log2_buckets(f, "ksnoop_latency_seconds", l, log2_le_us, b, false);
	fprintf(f, "ksnoop_latency_seconds_sum{%s} 0.000706\n", l);
	fprintf(f, "ksnoop_latency_seconds_count{%s} 4\n", l);
	fputs(HEAD_DROPS, f);
	fclose(f);
	expect_text(tables, 1, NULL, want);
	free(want);
}

static void test_latency_ns_and_ms(void **state)
{
	uint64_t b[5] = { 0, 1, 0, 2, 1 };
	struct agg_row rows[] = { { .buckets = b, .sum = 7000 } };
	struct agg_table ns = {
		.kind = AGG_HIST,
		.func = "f",
		.value = "latency",
		.unit = "ns",
		.layout = { .scale = AGG_LINEAR,
			    .lo = 0,
			    .hi = 3000,
			    .step = 1000,
			    .nr_buckets = 5 },
		.rows = rows,
		.nr_rows = 1,
	};
	struct agg_table ms = ns;
	struct agg_table *tables[] = { &ns, &ms };

	(void)state;
	ms.func = "g";
	ms.unit = "ms";
	expect_text(tables, 2, NULL,
		    HEAD_LATENCY "ksnoop_latency_seconds_bucket{func=\"f\",le=\"-0.000000001\"} 0\n"
				 "ksnoop_latency_seconds_bucket{func=\"f\",le=\"0.000000999\"} 1\n"
				 "ksnoop_latency_seconds_bucket{func=\"f\",le=\"0.000001999\"} 1\n"
				 "ksnoop_latency_seconds_bucket{func=\"f\",le=\"0.000002999\"} 3\n"
				 "ksnoop_latency_seconds_bucket{func=\"f\",le=\"+Inf\"} 4\n"
				 "ksnoop_latency_seconds_sum{func=\"f\"} 0.000007\n"
				 "ksnoop_latency_seconds_count{func=\"f\"} 4\n"
				 "ksnoop_latency_seconds_bucket{func=\"g\",le=\"-0.000000001\"} 0\n"
				 "ksnoop_latency_seconds_bucket{func=\"g\",le=\"0.999999999\"} 1\n"
				 "ksnoop_latency_seconds_bucket{func=\"g\",le=\"1.999999999\"} 1\n"
				 "ksnoop_latency_seconds_bucket{func=\"g\",le=\"2.999999999\"} 3\n"
				 "ksnoop_latency_seconds_bucket{func=\"g\",le=\"+Inf\"} 4\n"
				 "ksnoop_latency_seconds_sum{func=\"g\"} 7\n"
				 "ksnoop_latency_seconds_count{func=\"g\"} 4\n" HEAD_DROPS);
}

/* ---- labels -------------------------------------------------------------- */

static void test_label_names(void **state)
{
	struct agg_field fields[] = {
		{ AGG_F_VALUE, "skb->sk->__sk_common.skc_family" },
		{ AGG_F_VALUE, "skb_len" },
		{ AGG_F_VALUE, "skb->len" },
		{ AGG_F_VALUE, "func" },
		{ AGG_F_VALUE, "1st" },
		{ AGG_F_VALUE, "->" },
		{ AGG_F_VALUE, "le" },
		{ AGG_F_VALUE, "return" },
		{ AGG_F_VALUE, "spec" },
		{ AGG_F_VALUE, "skb_len_2" },
	};
	struct agg_val key[] = { { .text = "2" }, { .text = "a" }, { .text = "b" }, { .text = "c" },
				 { .text = "d" }, { .text = "e" }, { .text = "f" }, { .text = "0" },
				 { .text = "g" }, { .text = "h" } };
	struct agg_row rows[] = { { .key = key, .count = 1 } };
	struct agg_table t = {
		.kind = AGG_COUNT,
		.func = "f",
		.fields = fields,
		.nr_fields = 10,
		.rows = rows,
		.nr_rows = 1,
	};
	struct agg_table *tables[] = { &t };

	(void)state;
	expect_text(tables, 1, NULL,
		    HEAD_CALLS
		    "ksnoop_calls_total{func=\"f\",skb_sk_sk_common_skc_family=\"2\","
		    "skb_len=\"a\",skb_len_2=\"b\",func_2=\"c\",_1st=\"d\",key=\"e\","
		    "le=\"f\",return=\"0\",spec_2=\"g\",skb_len_2_2=\"h\"} 1\n" HEAD_DROPS);
}

/* In a histogram, le is the bucket's and value the family's. */
static void test_hist_reserved_labels(void **state)
{
	uint64_t b[3] = { 0, 1, 0 };
	struct agg_field fields[] = { { AGG_F_VALUE, "le" }, { AGG_F_VALUE, "value" } };
	struct agg_val key[] = { { .text = "1" }, { .text = "2" } };
	struct agg_row rows[] = { { .key = key, .buckets = b, .sum = 0 } };
	struct agg_table t = {
		.kind = AGG_HIST,
		.func = "f",
		.value = "x",
		.fields = fields,
		.nr_fields = 2,
		.layout = { .scale = AGG_LINEAR, .lo = 0, .hi = 1, .step = 1, .nr_buckets = 3 },
		.rows = rows,
		.nr_rows = 1,
	};
	struct agg_table *tables[] = { &t };

	(void)state;
	expect_text(
		tables, 1, NULL,
		HEAD_VALUE
		"ksnoop_value_bucket{func=\"f\",value=\"x\",le_2=\"1\",value_2=\"2\",le=\"-1\"} 0\n"
		"ksnoop_value_bucket{func=\"f\",value=\"x\",le_2=\"1\",value_2=\"2\",le=\"0\"} 1\n"
		"ksnoop_value_bucket{func=\"f\",value=\"x\",le_2=\"1\",value_2=\"2\",le=\"+Inf\"} 1\n"
		"ksnoop_value_sum{func=\"f\",value=\"x\",le_2=\"1\",value_2=\"2\"} 0\n"
		"ksnoop_value_count{func=\"f\",value=\"x\",le_2=\"1\",value_2=\"2\"} 1\n" HEAD_DROPS);
}

static void test_label_values_escaped(void **state)
{
	struct agg_field fields[] = { { AGG_F_COMM, "comm" } };
	/* quote, backslash, newline, a stray byte, é, a UTF-16 surrogate, an overlong '/' */
	struct agg_val key[] = { { .text = "a\"b\\c\nd\xff\xc3\xa9\xed\xa0\x80\xc0\xaf!" } };
	struct agg_row rows[] = { { .key = key, .count = 1 } };
	struct agg_table t = {
		.kind = AGG_COUNT,
		.func = "f\"n",
		.fields = fields,
		.nr_fields = 1,
		.rows = rows,
		.nr_rows = 1,
	};
	const char *names[] = { "why\\\n" };
	const uint64_t counts[] = { 1 };
	struct agg_drops d = { names, counts, 1 };
	struct agg_table *tables[] = { &t };

	(void)state;
	expect_text(
		tables, 1, &d,
		HEAD_CALLS
		"ksnoop_calls_total{func=\"f\\\"n\",comm=\"a\\\"b\\\\c\\nd\xef\xbf\xbd"
		"\xc3\xa9\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd!\"} 1\n" HEAD_DROPS
		"ksnoop_lost_samples_total{reason=\"why\\\\\\n\"} 1\n");
}

/* ---- families and series ------------------------------------------------- */

static void test_families_grouped(void **state)
{
	uint64_t b[3] = { 0, 2, 0 };
	struct agg_row hrow[] = { { .buckets = b, .sum = 0 } };
	struct agg_table h = {
		.kind = AGG_HIST,
		.func = "h",
		.value = "x",
		.layout = { .scale = AGG_LINEAR, .lo = 0, .hi = 1, .step = 1, .nr_buckets = 3 },
		.rows = hrow,
		.nr_rows = 1,
	};
	struct agg_row crow[] = { { .count = 4 } };
	struct agg_table c1 = { .kind = AGG_COUNT, .func = "a", .rows = crow, .nr_rows = 1 };
	struct agg_table c2 = { .kind = AGG_COUNT, .func = "b", .rows = crow, .nr_rows = 1 };
	struct agg_table *tables[] = { &c1, &h, &c2 };

	(void)state;
	expect_text(tables, 3, NULL,
		    HEAD_CALLS "ksnoop_calls_total{func=\"a\"} 4\n"
			       "ksnoop_calls_total{func=\"b\"} 4\n" HEAD_VALUE
			       "ksnoop_value_bucket{func=\"h\",value=\"x\",le=\"-1\"} 0\n"
			       "ksnoop_value_bucket{func=\"h\",value=\"x\",le=\"0\"} 2\n"
			       "ksnoop_value_bucket{func=\"h\",value=\"x\",le=\"+Inf\"} 2\n"
			       "ksnoop_value_sum{func=\"h\",value=\"x\"} 0\n"
			       "ksnoop_value_count{func=\"h\",value=\"x\"} 2\n" HEAD_DROPS);
}

/* The same function twice, and a glob beside a function it may match: spec tells them apart. */
static void test_spec_label_only_where_series_could_clash(void **state)
{
	struct agg_field ffield[] = { { AGG_F_FUNC, "func" } };
	struct agg_val fkey[] = { { .text = "tcp_sendmsg" } };
	struct agg_row glob_row[] = { { .key = fkey, .count = 3 } };
	struct agg_row row[] = { { .count = 1 } };
	struct agg_table a = { .kind = AGG_COUNT, .func = "ip_send_skb", .rows = row, .nr_rows = 1 };
	struct agg_table b = a;
	struct agg_table c = { .kind = AGG_COUNT, .func = "udp_sendmsg", .rows = row, .nr_rows = 1 };
	struct agg_table d = { .kind = AGG_COUNT,
			       .func = "tcp_*",
			       .fields = ffield,
			       .nr_fields = 1,
			       .rows = glob_row,
			       .nr_rows = 1 };
	struct agg_table e = { .kind = AGG_COUNT, .func = "tcp_sendmsg", .rows = row, .nr_rows = 1 };
	/* same function, another key: no clash */
	struct agg_table f = count_len;
	/* two functions keyed by func (ksnoop count tcp_sendmsg udp_sendmsg): no clash */
	struct agg_val gkey[] = { { .text = "udp_sendmsg" } };
	struct agg_row grow[] = { { .key = gkey, .count = 2 } };
	struct agg_table g = { .kind = AGG_COUNT,
			       .func = "udp_sendmsg",
			       .fields = ffield,
			       .nr_fields = 1,
			       .rows = grow,
			       .nr_rows = 1 };
	struct agg_table h = { .kind = AGG_COUNT,
			       .func = "ip_rcv",
			       .fields = ffield,
			       .nr_fields = 1,
			       .rows = grow,
			       .nr_rows = 0 };
	struct agg_table *tables[] = { &a, &b, &c, &d, &e, &f, &h };
	struct agg_table *literals[] = { &g, &h, &f, &g };

	(void)state;
	expect_text(literals, 4, NULL,
		    HEAD_CALLS
		    "ksnoop_calls_total{func=\"udp_sendmsg\",spec=\"1\"} 2\n"
		    "ksnoop_calls_total{func=\"ip_send_skb\",skb_len=\"178\"} 5\n"
		    "ksnoop_calls_total{func=\"ip_send_skb\",skb_len=\"60\"} 2\n"
		    "ksnoop_calls_total{func=\"udp_sendmsg\",spec=\"4\"} 2\n" HEAD_DROPS);
	expect_text(tables, 7, NULL,
		    HEAD_CALLS
		    "ksnoop_calls_total{func=\"ip_send_skb\",spec=\"1\"} 1\n"
		    "ksnoop_calls_total{func=\"ip_send_skb\",spec=\"2\"} 1\n"
		    "ksnoop_calls_total{func=\"udp_sendmsg\"} 1\n"
		    "ksnoop_calls_total{func=\"tcp_sendmsg\",spec=\"4\"} 3\n"
		    "ksnoop_calls_total{func=\"tcp_sendmsg\",spec=\"5\"} 1\n"
		    "ksnoop_calls_total{func=\"ip_send_skb\",skb_len=\"178\"} 5\n"
		    "ksnoop_calls_total{func=\"ip_send_skb\",skb_len=\"60\"} 2\n" HEAD_DROPS);
}

static void test_hist_spec_labels(void **state)
{
	uint64_t b[3] = { 0, 1, 0 };
	struct agg_row row[] = { { .buckets = b } };
	struct agg_table x = {
		.kind = AGG_HIST,
		.func = "f",
		.value = "x",
		.layout = { .scale = AGG_LINEAR, .lo = 0, .hi = 1, .step = 1, .nr_buckets = 3 },
		.rows = row,
		.nr_rows = 1,
	};
	struct agg_table y = x, l1 = x, l2 = x;
	struct agg_table *tables[] = { &x, &y, &l1, &l2 };
	char *got;
	int rc;

	(void)state;
	y.value = "y";
	l1.unit = "us";
	l2.unit = "ns";
	got = render(tables, 4, NULL, &rc);
	assert_int_equal(rc, 0);
	/* two values of one function are two series; two latencies of it clash */
	assert_non_null(strstr(got, "ksnoop_value_count{func=\"f\",value=\"x\"} 1\n"));
	assert_non_null(strstr(got, "ksnoop_value_count{func=\"f\",value=\"y\"} 1\n"));
	assert_non_null(strstr(got, "ksnoop_latency_seconds_count{func=\"f\",spec=\"3\"} 1\n"));
	assert_non_null(strstr(got, "ksnoop_latency_seconds_count{func=\"f\",spec=\"4\"} 1\n"));
	free(got);
}

static void test_empty(void **state)
{
	struct agg_table t = { .kind = AGG_COUNT, .func = "f" };
	struct agg_table *tables[] = { &t };

	(void)state;
	expect_text(NULL, 0, NULL, HEAD_DROPS);
	expect_text(tables, 1, &drops,
		    HEAD_CALLS HEAD_DROPS
		    "ksnoop_lost_samples_total{reason=\"key table full\"} 0\n"
		    "ksnoop_lost_samples_total{reason=\"stack not taken\"} 3\n");
}

static void test_bad_tables(void **state)
{
	uint64_t b[66] = { 0 };
	struct agg_row row[] = { { .buckets = b } };
	struct agg_table unit = {
		.kind = AGG_HIST,
		.func = "f",
		.value = "latency",
		.unit = "s",
		.layout = LOG2_LAYOUT,
		.rows = row,
		.nr_rows = 1,
	};
	struct agg_table short_log2 = unit, linear = unit, nobuckets = unit;
	struct agg_row empty_row[] = { { .count = 1 } };
	struct agg_table *bad[] = { &unit, &short_log2, &linear, &nobuckets };
	struct agg_table *tables[1];
	char *got;
	size_t i;
	int rc;

	(void)state;
	short_log2.unit = NULL;
	short_log2.layout.nr_buckets = 10;
	linear.unit = NULL;
	linear.layout = (struct agg_layout){
		.scale = AGG_LINEAR, .lo = 0, .hi = 10, .step = 5, .nr_buckets = 5
	};
	nobuckets.unit = NULL;
	nobuckets.rows = empty_row;
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		tables[0] = bad[i];
		got = render(tables, 1, NULL, &rc);
		assert_int_equal(rc, -EINVAL);
		assert_string_equal(got, ""); /* nothing half written */
		free(got);
	}
}

static void test_write_error(void **state)
{
	struct agg_table *tables[] = { &count_len };
	FILE *f = fopen("/dev/full", "w");

	(void)state;
	assert_non_null(f);
	assert_true(prom_write(f, tables, 1, &drops) < 0);
	fclose(f);
}

/* ---- the textfile -------------------------------------------------------- */

static char *slurp(const char *path)
{
	char *buf = NULL;
	size_t cap = 0, len = 0;
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return NULL;
	do {
		if (len + 4096 + 1 > cap) {
			cap = (len + 4096 + 1) * 2;
			buf = realloc(buf, cap);
			assert_non_null(buf);
		}
		n = fread(buf + len, 1, 4096, f);
		len += n;
	} while (n);
	buf[len] = '\0';
	fclose(f);
	return buf;
}

/* Names in dir, but "." and "..", joined by ' '. */
static void list_dir(const char *dir, char *out, size_t size)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	assert_non_null(d);
	out[0] = '\0';
	while ((e = readdir(d))) {
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			snprintf(out + strlen(out), size - strlen(out), "%s%s", out[0] ? " " : "",
				 e->d_name);
	}
	closedir(d);
}

static void test_textfile_written(void **state)
{
	char dir[] = "/tmp/ksnoop-prom.XXXXXX", path[64], names[256], *got, *want;
	struct agg_table *tables[] = { &count_len };
	struct stat st;
	int rc;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/ksnoop.prom", dir);
	assert_int_equal(prom_textfile_write(path, tables, 1, &drops), 0);
	got = slurp(path);
	want = render(tables, 1, &drops, &rc);
	assert_string_equal(got, want);
	assert_int_equal(stat(path, &st), 0);
	/* private, as every file ksnoop writes, unless the user made it otherwise */
	assert_int_equal(st.st_mode & 0777, 0600);
	list_dir(dir, names, sizeof(names));
	assert_string_equal(names, "ksnoop.prom");
	free(got);
	free(want);
	unlink(path);
	rmdir(dir);
}

/* The file is replaced, never rewritten in place: a reader keeps the old one whole. */
static void test_textfile_replaced(void **state)
{
	char dir[] = "/tmp/ksnoop-prom.XXXXXX", path[64], old[16] = { 0 };
	struct agg_table *tables[] = { &count_len };
	struct stat st;
	int fd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/k.prom", dir);
	fd = open(path, O_CREAT | O_WRONLY, 0644);
	assert_true(fd >= 0);
	assert_int_equal(fchmod(fd, 0644), 0);
	assert_int_equal(write(fd, "old content\n", 12), 12);
	close(fd);
	fd = open(path, O_RDONLY);
	assert_int_equal(prom_textfile_write(path, tables, 1, &drops), 0);
	assert_int_equal(pread(fd, old, sizeof(old) - 1, 0), 12);
	assert_string_equal(old, "old content\n");
	close(fd);
	/* the user made it 0644 for a collector of another user: the new file is too */
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);
	unlink(path);
	rmdir(dir);
}

#define BIG_ROWS 3000

/*
 * A reader racing 100 rewrites of a file far larger than a pipe or page
 * sees, every time, one whole exposition: one of the two the writer
 * alternates between, never a mix or a truncated one.
 */
static void test_textfile_reader_sees_whole_files(void **state)
{
	char dir[] = "/tmp/ksnoop-prom.XXXXXX", path[64], text[2][16], *want[2];
	static struct agg_val keys[BIG_ROWS][1];
	static struct agg_row rows[BIG_ROWS];
	static char texts[BIG_ROWS][16];
	struct agg_table t = count_len;
	struct agg_table *tables[] = { &t };
	int i, rc, status, bad = 0;
	pid_t child;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/big.prom", dir);
	for (i = 0; i < BIG_ROWS; i++) {
		snprintf(texts[i], sizeof(texts[i]), "%d", i);
		keys[i][0].text = texts[i];
		rows[i].key = keys[i];
	}
	t.rows = rows;
	t.nr_rows = BIG_ROWS;
	for (i = 0; i < 2; i++) {
		snprintf(text[i], sizeof(text[i]), "%d", i ? 1234567 : 1);
		for (int r = 0; r < BIG_ROWS; r++)
			rows[r].count = i ? 1234567 : 1;
		want[i] = render(tables, 1, &drops, &rc);
		assert_int_equal(rc, 0);
	}
	assert_true(strlen(want[0]) > 128 * 1024);
	assert_int_equal(prom_textfile_write(path, tables, 1, &drops), 0);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		for (i = 0; i < 2000; i++) {
			char *got = slurp(path);

			if (!got || (strcmp(got, want[0]) && strcmp(got, want[1])))
				_exit(1);
			free(got);
		}
		_exit(0);
	}
	for (i = 0; i < 100; i++) {
		for (int r = 0; r < BIG_ROWS; r++)
			rows[r].count = i % 2 ? 1 : 1234567;
		bad |= prom_textfile_write(path, tables, 1, &drops);
	}
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_int_equal(bad, 0);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	free(want[0]);
	free(want[1]);
	unlink(path);
	rmdir(dir);
}

static void expect_textfile_error(const char *path, const char *msg)
{
	struct agg_table *tables[] = { &count_len };
	struct stderr_capture cap;
	char err[512];

	stderr_capture_begin(&cap);
	assert_true(prom_textfile_write(path, tables, 1, &drops) < 0);
	stderr_capture_end(&cap, err, sizeof(err));
	expect_one_error_line(err, msg);
}

static void expect_textfile_check_error(const char *path, const char *msg)
{
	struct stderr_capture cap;
	char err[512];

	stderr_capture_begin(&cap);
	assert_true(prom_textfile_check(path) < 0);
	stderr_capture_end(&cap, err, sizeof(err));
	expect_one_error_line(err, msg);
}

/* What the write would meet, found before any probe attaches; nothing left behind. */
static void test_textfile_check(void **state)
{
	char dir[] = "/tmp/ksnoop-prom.XXXXXX", path[128], names[256];

	(void)state;
	assert_non_null(mkdtemp(dir));
	expect_textfile_check_error("", "names a directory");
	expect_textfile_check_error("/", "names a directory");
	expect_textfile_check_error(dir, "names a directory");
	snprintf(path, sizeof(path), "%s/none/k.prom", dir);
	expect_textfile_check_error(path, "No such file or directory");
	snprintf(path, sizeof(path), "%s/k.prom", dir);
	assert_int_equal(prom_textfile_check(path), 0);
	list_dir(dir, names, sizeof(names));
	assert_string_equal(names, "");
	rmdir(dir);
}

static void test_textfile_errors(void **state)
{
	char dir[] = "/tmp/ksnoop-prom.XXXXXX", path[128], names[256];

	(void)state;
	assert_non_null(mkdtemp(dir));
	/* a directory that does not exist, and one no one (root included) can write */
	snprintf(path, sizeof(path), "%s/none/k.prom", dir);
	expect_textfile_error(path, "No such file or directory");
	expect_textfile_error("/proc/ksnoop-test.prom", "cannot create a file beside it");
	expect_textfile_error("/tmp/", "names a directory");
	/* written, but not renamed over a directory: the temporary file goes */
	snprintf(path, sizeof(path), "%s/d.prom", dir);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path + strlen(path), sizeof(path) - strlen(path), "/x");
	assert_int_equal(mkdir(path, 0755), 0);
	path[strlen(path) - 2] = '\0';
	expect_textfile_error(path, "cannot write it");
	list_dir(dir, names, sizeof(names));
	assert_string_equal(names, "d.prom");
	snprintf(path + strlen(path), sizeof(path) - strlen(path), "/x");
	rmdir(path);
	path[strlen(path) - 2] = '\0';
	rmdir(path);
	rmdir(dir);
}

/* ---- --prometheus HOST:PORT ---------------------------------------------- */

static int render_nothing(void *ctx, FILE *out)
{
	(void)ctx;
	(void)out;
	return 0;
}

static void expect_start_error(const char *hostport, const char *msg)
{
	struct stderr_capture cap;
	struct prom_server *srv;
	char err[512];

	stderr_capture_begin(&cap);
	srv = prom_server__start(hostport, render_nothing, NULL);
	stderr_capture_end(&cap, err, sizeof(err));
	assert_null(srv);
	expect_one_error_line(err, msg);
}

/* Whether a plain TCP socket can bind addr:port here. */
static UNUSED bool can_bind(const char *addr, int port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(port) };
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	bool ok;

	assert_true(fd >= 0);
	assert_int_equal(inet_pton(AF_INET, addr, &sin.sin_addr), 1);
	ok = !bind(fd, (struct sockaddr *)&sin, sizeof(sin));
	close(fd);
	return ok;
}

/* A port another socket listens on: one line naming the reason. */
static void test_port_in_use(void **state)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	socklen_t len = sizeof(sin);
	char hostport[32];
	int fd;

	(void)state;
	fd = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(fd >= 0);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	assert_int_equal(listen(fd, 1), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sin, &len), 0);
	snprintf(hostport, sizeof(hostport), "127.0.0.1:%d", ntohs(sin.sin_port));
#ifdef HAVE_MHD
	expect_start_error(hostport, "Address already in use");
#else
	expect_start_error(hostport, "built without libmicrohttpd");
#endif
	close(fd);
}

/* A free port of 127.0.0.1, as the kernel picks one. */
static int free_port(void)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	socklen_t len = sizeof(sin);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sin, &len), 0);
	close(fd);
	return ntohs(sin.sin_port);
}

/* The port is decimal: a leading 0 is not octal ("0100" was port 64). */
static void test_port_is_decimal(void **state)
{
	struct prom_server *srv;
	char hostport[32];
	int port = free_port();

	(void)state;
#ifdef HAVE_MHD
	snprintf(hostport, sizeof(hostport), "127.0.0.1:0%d", port);
	srv = prom_server__start(hostport, render_nothing, NULL);
	assert_non_null(srv);
	assert_false(can_bind("127.0.0.1", port));
	prom_server__stop(srv);
#else
	(void)srv;
	(void)hostport;
	(void)port;
#endif
}

static void test_hostport_errors(void **state)
{
	char long_host[300];

	(void)state;
#ifdef HAVE_MHD
	memset(long_host, 'a', sizeof(long_host) - 1);
	long_host[sizeof(long_host) - 1] = '\0';
	expect_start_error("127.0.0.1", "want HOST:PORT");
	expect_start_error(":9100", "no address");
	expect_start_error("localhost:9100", "'localhost' is not a numeric IPv4 address");
	expect_start_error("::1:9100", "IPv6 goes in brackets");
	expect_start_error("[::1]9100", "want [IPv6]:PORT");
	expect_start_error("[::1:9100", "want [IPv6]:PORT");
	expect_start_error("[127.0.0.1]:9100", "not a numeric IPv6 address");
	expect_start_error("127.0.0.1:0", "not a number from 1 to 65535");
	expect_start_error("127.0.0.1:65536", "not a number from 1 to 65535");
	expect_start_error("127.0.0.1:0x10", "not a number from 1 to 65535");
	expect_start_error("127.0.0.1:", "not a number from 1 to 65535");
	expect_start_error("127.0.0.1:-1", "not a number from 1 to 65535");
	expect_start_error("127.0.0.1: 80", "not a number from 1 to 65535");
	expect_start_error("300.0.0.1:80", "not a numeric IPv4 address");
	expect_start_error(long_host, "longer than 128 bytes");
	/* an address this machine does not have (documentation's TEST-NET-3) */
	if (!can_bind("203.0.113.7", 9))
		expect_start_error("203.0.113.7:9", "cannot listen");
#else
	(void)long_host;
	expect_start_error("127.0.0.1:9100", "built without libmicrohttpd");
#endif
}

/* A connection to 127.0.0.1:port that has sent first, reads time out after timeout_s. */
static UNUSED int client(int port, const char *first, int timeout_s)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(port) };
	struct timeval tv = { .tv_sec = timeout_s };
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(connect(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	assert_int_equal(setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)), 0);
	assert_int_equal(send(fd, first, strlen(first), 0), (ssize_t)strlen(first));
	return fd;
}

/*
 * Clients that connect, send a byte and stop hold no slot a scrape needs:
 * with 40 of them connected, a GET is answered at once (it waited in the
 * backlog behind 16 of them, 10 s each, and got nothing).
 */
static void test_idle_clients_keep_no_scrape_out(void **state)
{
	char buf[64] = "";
	int fds[40], port = free_port(), fd;
	struct prom_server *srv;
	char hostport[32];
	size_t i;

	(void)state;
#ifdef HAVE_MHD
	snprintf(hostport, sizeof(hostport), "127.0.0.1:%d", port);
	srv = prom_server__start(hostport, render_nothing, NULL);
	assert_non_null(srv);
	for (i = 0; i < ARRAY_SIZE(fds); i++)
		fds[i] = client(port, "G", 2);
	fd = client(port, "GET /metrics HTTP/1.0\r\n\r\n", 3);
	assert_true(recv(fd, buf, sizeof(buf) - 1, MSG_WAITALL) > 0);
	assert_memory_equal(buf, "HTTP/1.1 200", 12);
	close(fd);
	for (i = 0; i < ARRAY_SIZE(fds); i++)
		close(fds[i]);
	prom_server__stop(srv);
#else
	(void)buf, (void)fds, (void)port, (void)fd, (void)srv, (void)hostport, (void)i;
#endif
}

/*
 * A request's header has 5 s, however it trickles: a byte a second does
 * not keep the connection (it did: each reset a 10 s idle timer).
 */
static void test_slow_header_shut_at_deadline(void **state)
{
	int port = free_port(), fd, i;
	struct prom_server *srv;
	char hostport[32], c;
	ssize_t n = -1;

	(void)state;
#ifdef HAVE_MHD
	snprintf(hostport, sizeof(hostport), "127.0.0.1:%d", port);
	srv = prom_server__start(hostport, render_nothing, NULL);
	assert_non_null(srv);
	fd = client(port, "GET /metrics HTTP/1.1\r\nX-Slow: ", 1);
	/* 10 s of a byte a second; the end comes after 5 (and a reaper tick) */
	for (i = 0; i < 10; i++) {
		n = recv(fd, &c, 1, 0);
		if (n >= 0)
			break;
		assert_int_equal(errno, EAGAIN);
		send(fd, "a", 1, MSG_NOSIGNAL);
	}
	assert_int_equal(n, 0);
	assert_in_range(i, 4, 7);
	close(fd);
	prom_server__stop(srv);
#else
	(void)port, (void)fd, (void)i, (void)srv, (void)hostport, (void)c, (void)n;
#endif
}

/* Too few descriptors for a connection: one line saying so, not a silent server. */
static void test_too_few_fds(void **state)
{
	struct rlimit rl, low;
	int fd = dup(2);

	(void)state;
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &rl), 0);
	low = rl;
	low.rlim_cur = fd + 4; /* about 4 free */
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
#ifdef HAVE_MHD
	expect_start_error("127.0.0.1:9", "file descriptors free, it needs 10 (ulimit -n)");
#else
	expect_start_error("127.0.0.1:9", "built without libmicrohttpd");
#endif
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &rl), 0);
	close(fd);
}

/* ---- the hidden --serve mode --------------------------------------------- */

static struct agg_field serve_comm[] = { { AGG_F_FUNC, "func" }, { AGG_F_COMM, "comm" } };
static struct agg_val serve_comm_key[] = { { .text = "tcp_sendmsg" }, { .text = "a \"b\"\\c" } };
static struct agg_row serve_comm_rows[] = { { .key = serve_comm_key, .count = 11 } };
static struct agg_table serve_glob = {
	.kind = AGG_COUNT,
	.func = "tcp_send*",
	.fields = serve_comm,
	.nr_fields = 2,
	.rows = serve_comm_rows,
	.nr_rows = 1,
};
static uint64_t serve_len_b[66] = { [2] = 1, [9] = 3 };
static struct agg_row serve_len_rows[] = { { .buckets = serve_len_b, .sum = 535, .count = 4 } };
static struct agg_table serve_len = {
	.kind = AGG_HIST,
	.func = "ip_send_skb",
	.value = "skb->len",
	.layout = LOG2_LAYOUT,
	.rows = serve_len_rows,
	.nr_rows = 1,
};
/* 10 calls: 5 under 1 us, 5 of [2, 4) us: the median is 1 us */
static uint64_t serve_lat_b[66] = { [1] = 5, [3] = 5 };
static struct agg_row serve_lat_rows[] = { { .buckets = serve_lat_b, .sum = 15, .count = 10 } };
static struct agg_table serve_lat = {
	.kind = AGG_HIST,
	.func = "vfs_read",
	.value = "latency",
	.unit = "us",
	.layout = LOG2_LAYOUT,
	.rows = serve_lat_rows,
	.nr_rows = 1,
};

static int render_fixed(void *ctx, FILE *out)
{
	struct agg_table *tables[] = { &count_len, &serve_glob, &serve_len, &serve_lat };

	if (ctx)
		return -EIO;
	return prom_write(out, tables, ARRAY_SIZE(tables), &drops);
}

static int serve(const char *hostport, bool fail)
{
	struct prom_server *srv;
	sigset_t stop;
	int sig;

	sigemptyset(&stop);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGINT);
	sigprocmask(SIG_BLOCK, &stop, NULL);
	srv = prom_server__start(hostport, render_fixed, fail ? (void *)1 : NULL);
	if (!srv)
		return 1;
	printf("serving %s\n", hostport);
	fflush(stdout);
	sigwait(&stop, &sig);
	prom_server__stop(srv);
	return 0;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_count_table),
		cmocka_unit_test(test_kstack_outermost_first),
		cmocka_unit_test(test_log2_hist),
		cmocka_unit_test(test_unsigned_sum_above_int64),
		cmocka_unit_test(test_linear_hist),
		cmocka_unit_test(test_linear_negative_lo),
		cmocka_unit_test(test_latency_seconds),
		cmocka_unit_test(test_latency_ns_and_ms),
		cmocka_unit_test(test_label_names),
		cmocka_unit_test(test_hist_reserved_labels),
		cmocka_unit_test(test_label_values_escaped),
		cmocka_unit_test(test_families_grouped),
		cmocka_unit_test(test_spec_label_only_where_series_could_clash),
		cmocka_unit_test(test_hist_spec_labels),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_bad_tables),
		cmocka_unit_test(test_write_error),
		cmocka_unit_test(test_textfile_written),
		cmocka_unit_test(test_textfile_replaced),
		cmocka_unit_test(test_textfile_reader_sees_whole_files),
		cmocka_unit_test(test_textfile_errors),
		cmocka_unit_test(test_textfile_check),
		cmocka_unit_test(test_hostport_errors),
		cmocka_unit_test(test_port_is_decimal),
		cmocka_unit_test(test_port_in_use),
		cmocka_unit_test(test_idle_clients_keep_no_scrape_out),
		cmocka_unit_test(test_slow_header_shut_at_deadline),
		cmocka_unit_test(test_too_few_fds),
	};

	if (argc >= 3 && !strcmp(argv[1], "--serve"))
		return serve(argv[2], argc > 3 && !strcmp(argv[3], "fail"));
	return cmocka_run_group_tests(tests, NULL, NULL);
}
