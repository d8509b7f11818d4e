// SPDX-License-Identifier: GPL-2.0
/*
 * serve/config.c: a full configuration into its exact fields; every class
 * of error, at its FILE:LINE, all of a file's errors in one run; comments,
 * CRLF, the line and file size limits, NUL bytes; serve_metric_same and
 * serve_metric_argv; loading from a file.
 */
#include <errno.h>
#include <fcntl.h>

#include "testutil.h"
#include "lib/util.h"
#include "serve/config.h"

#define PATH "t.conf"
/* A metric that is valid alone, to append to or prepend. */
#define COUNT_OK "[a_total]\nhelp = h\nkind = count\nspec = f\n"

static char errbuf[1 << 16];

static int parse_len(const char *text, size_t len, struct serve_config *c)
{
	struct stderr_capture cap;
	int rc;

	stderr_capture_begin(&cap);
	rc = serve_config_parse(PATH, text, len, c);
	stderr_capture_end(&cap, errbuf, sizeof(errbuf));
	return rc;
}

static int parse(const char *text, struct serve_config *c)
{
	return parse_len(text, strlen(text), c);
}

/*
 * stderr held exactly n lines, line i starting "Error: t.conf:" want[i]
 * (a line number, then the message or its start).
 */
static void expect_errors(const char *const *want, int n)
{
	const char *line = errbuf, *nl;
	char prefix[512];
	int i;

	for (i = 0; i < n; i++, line = nl + 1) {
		nl = strchr(line, '\n');
		snprintf(prefix, sizeof(prefix), "Error: " PATH ":%s", want[i]);
		if (!nl || strncmp(line, prefix, strlen(prefix))) {
			print_error("stderr:\n%s\nwant line %d: '%s'\n", errbuf, i + 1, prefix);
			fail();
		}
	}
	if (*line) {
		print_error("stderr:\n%s\nwant only %d lines\n", errbuf, n);
		fail();
	}
}

#define ERRS(...) \
	(const char *const[]){ __VA_ARGS__ }, ARRAY_SIZE(((const char *const[]){ __VA_ARGS__ }))

static void expect_bad_len(const char *text, size_t len, const char *const *want, int n)
{
	struct serve_config c;

	assert_int_equal(parse_len(text, len, &c), -EINVAL);
	expect_errors(want, n);
	serve_config_free(&c);
}

/* text is refused with exactly the errors given. */
#define EXPECT_BAD(text, ...) expect_bad_len((text), strlen(text), ERRS(__VA_ARGS__))

static void expect_good(const char *text, struct serve_config *c)
{
	int rc = parse(text, c);

	if (rc || errbuf[0])
		print_error("rc %d, stderr:\n%s\n", rc, errbuf);
	assert_int_equal(rc, 0);
	assert_string_equal(errbuf, "");
}

static const char full[] = "# comment (a whole line; '#' or ';' first, after blanks)\n"
			   "listen = 127.0.0.1:9435\n"
			   "textfile = /var/lib/prometheus/node-exporter/ksnoop.prom\n"
			   "textfile-interval = 15s\n"
			   "max-series = 1000\n"
			   "\n"
			   "[syscall_errors_total]\n"
			   "help = System calls that failed, by errno\n"
			   "kind = count\n"
			   "spec = tp:raw_syscalls:sys_exit(ret < 0)\n"
			   "by = comm\n"
			   "\n"
			   "[block_io_seconds]\n"
			   "help = Block requests from issue to completion\n"
			   "kind = latency\n"
			   "from = blk_mq_start_request(rq)\n"
			   "to = blk_mq_end_request(rq)\n"
			   "unit = us\n"
			   "buckets = log2\n"
			   "max-keys = 10240\n"
			   "max-series = 500\n"
			   "comm = nginx*\n"
			   "cgroup = /sys/fs/cgroup/system.slice\n"
			   "\n"
			   "[skb_len]\n"
			   "help = Sizes of sent packets\n"
			   "kind = hist\n"
			   "spec = ip_send_skb(skb->len)\n"
			   "spec = ip6_send_skb(skb->len)\n"
			   "buckets = linear 0,1500,100\n"
			   "by = cpu,comm\n";

static void test_full_example(void **state)
{
	const struct serve_metric *m;
	struct serve_config c;

	(void)state;
	expect_good(full, &c);
	assert_string_equal(c.path, PATH);
	assert_string_equal(c.listen, "127.0.0.1:9435");
	assert_string_equal(c.textfile, "/var/lib/prometheus/node-exporter/ksnoop.prom");
	assert_true(c.textfile_ns == 15000000000ULL);
	assert_int_equal(c.max_series, 1000);
	assert_int_equal(c.nr, 3);

	m = &c.metrics[0];
	assert_string_equal(m->name, "syscall_errors_total");
	assert_int_equal(m->line, 7);
	assert_string_equal(m->help, "System calls that failed, by errno");
	assert_int_equal(m->kind, SERVE_COUNT);
	assert_int_equal(m->nr_specs, 1);
	assert_string_equal(m->specs[0], "tp:raw_syscalls:sys_exit(ret < 0)");
	assert_int_equal(m->spec_lines[0], 10);
	assert_string_equal(m->by, "comm");
	assert_null(m->from);
	assert_null(m->to);
	assert_null(m->linear);
	assert_null(m->unit);
	assert_int_equal(m->max_keys, 0);
	assert_int_equal(m->max_series, 0);
	assert_null(m->comm);
	assert_null(m->cgroup);

	m = &c.metrics[1];
	assert_string_equal(m->name, "block_io_seconds");
	assert_int_equal(m->line, 13);
	assert_int_equal(m->kind, SERVE_LATENCY);
	assert_int_equal(m->nr_specs, 0);
	assert_string_equal(m->from, "blk_mq_start_request(rq)");
	assert_string_equal(m->to, "blk_mq_end_request(rq)");
	assert_string_equal(m->unit, "us");
	assert_null(m->linear);
	assert_null(m->by);
	assert_int_equal(m->max_keys, 10240);
	assert_int_equal(m->max_series, 500);
	assert_string_equal(m->comm, "nginx*");
	assert_string_equal(m->cgroup, "/sys/fs/cgroup/system.slice");

	m = &c.metrics[2];
	assert_string_equal(m->name, "skb_len");
	assert_int_equal(m->kind, SERVE_HIST);
	assert_int_equal(m->nr_specs, 2);
	assert_string_equal(m->specs[1], "ip6_send_skb(skb->len)");
	assert_int_equal(m->spec_lines[1], 29);
	assert_string_equal(m->linear, "0,1500,100");
	/* ksnoop's order of the words, the order of its keys */
	assert_string_equal(m->by, "comm,cpu");
	serve_config_free(&c);
}

static void test_defaults(void **state)
{
	struct serve_config c;

	(void)state;
	expect_good(COUNT_OK, &c);
	assert_string_equal(c.listen, SERVE_DEFAULT_LISTEN);
	assert_null(c.textfile);
	assert_int_equal(c.max_series, SERVE_DEFAULT_MAX_SERIES);
	assert_true(c.textfile_ns == SERVE_DEFAULT_TEXTFILE_NS);
	serve_config_free(&c);

	/* a textfile alone serves no HTTP */
	expect_good("textfile = /x.prom\n" COUNT_OK, &c);
	assert_null(c.listen);
	assert_string_equal(c.textfile, "/x.prom");
	serve_config_free(&c);
}

static void test_comments_blanks_crlf(void **state)
{
	struct serve_config c;

	(void)state;
	expect_good("\r\n  # a comment\r\n\t; another = [x]\r\n   \r\n"
		    "listen\t=  [::1]:99 \t\r\n"
		    "  [a_total]  \r\n"
		    "help=  a # b ; c = d\t\r\n"
		    "kind = count\r\n"
		    "spec = f(x == 1)\r\n",
		    &c);
	assert_string_equal(c.listen, "[::1]:99");
	assert_int_equal(c.metrics[0].line, 6);
	/* verbatim: no inline comment, '=' in values */
	assert_string_equal(c.metrics[0].help, "a # b ; c = d");
	assert_string_equal(c.metrics[0].specs[0], "f(x == 1)");
	assert_int_equal(c.metrics[0].spec_lines[0], 9);
	serve_config_free(&c);
}

static void test_no_trailing_newline(void **state)
{
	struct serve_config c;

	(void)state;
	expect_good("[a_total]\nhelp = h\nkind = count\nspec = last", &c);
	assert_string_equal(c.metrics[0].specs[0], "last");
	serve_config_free(&c);
	expect_good("[a_total]\r\nhelp = h\r\nkind = count\r\nspec = last\r", &c);
	assert_string_equal(c.metrics[0].specs[0], "last");
	serve_config_free(&c);
	/* the last line without '\n' counts: its error has its number */
	EXPECT_BAD(COUNT_OK "bogus", "5: expected 'key = value' or '[metric]', not 'bogus'");
}

/* "[a_total]\n" then a line of len bytes ("help = hhh..." or "#..."), then the rest. */
static char *long_line(size_t len, const char *start, const char *end)
{
	size_t n = strlen(start);
	char *s = malloc(len + 256);

	assert_non_null(s);
	strcpy(s, "[a_total]\n");
	strcat(s, start);
	memset(s + strlen(s), 'h', len - n);
	strcpy(s + 10 + len, end);
	return s;
}

static void test_line_limit(void **state)
{
	struct serve_config c;
	char *s;

	(void)state;
	s = long_line(SERVE_LINE_MAX, "help = ", "\nkind = count\nspec = f\n");
	expect_good(s, &c);
	assert_int_equal(strlen(c.metrics[0].help), SERVE_LINE_MAX - 7);
	serve_config_free(&c);
	free(s);
	/* "\r\n" ends the line: the '\r' is not one of its bytes */
	s = long_line(SERVE_LINE_MAX, "help = ", "\r\nkind = count\nspec = f\n");
	expect_good(s, &c);
	serve_config_free(&c);
	free(s);

	s = long_line(SERVE_LINE_MAX + 1, "#", "\nhelp = h\nkind = count\nspec = f\n");
	EXPECT_BAD(s, "2: line longer than 4096 bytes");
	free(s);
	/* too long a last line, without '\n', and the help it held is missing */
	s = long_line(SERVE_LINE_MAX + 1, "help = ", "");
	EXPECT_BAD(s, "2: line longer than 4096 bytes", "1: 'help' is missing in [a_total]",
		   "1: 'kind' is missing in [a_total]",
		   "1: 'spec' (or 'from' and 'to') is missing");
	free(s);
}

static void test_nul_byte(void **state)
{
	static const char text[] = "[a_total]\nhelp = h\0idden\nkind = count\nspec = f\n";
	char *exact;
	size_t len;

	(void)state;
	expect_bad_len(text, sizeof(text) - 1,
		       ERRS("2: a NUL byte", "1: 'help' is missing in [a_total]"));
	/* text ends where len says, before the spec line here (ASan checks the bound) */
	len = strlen(COUNT_OK) - strlen("spec = f\n");
	exact = malloc(len);
	assert_non_null(exact);
	memcpy(exact, COUNT_OK, len);
	expect_bad_len(exact, len, ERRS("1: 'spec' (or 'from' and 'to') is missing in [a_total]"));
	free(exact);
}

static void test_syntax_errors(void **state)
{
	(void)state;
	EXPECT_BAD(COUNT_OK "just words\n",
		   "5: expected 'key = value' or '[metric]', not 'just words'");
	EXPECT_BAD(COUNT_OK "= x\n", "5: a key is missing before '='");
	EXPECT_BAD(COUNT_OK "by =\n", "5: key 'by' has an empty value in [a_total]");
	EXPECT_BAD(COUNT_OK "comm =   \t\n", "5: key 'comm' has an empty value in [a_total]");
	EXPECT_BAD("listen =\n" COUNT_OK, "1: key 'listen' has an empty value");
}

static void test_unknown_keys(void **state)
{
	(void)state;
	EXPECT_BAD(COUNT_OK "zzz = 1\n", "5: unknown key 'zzz' in [a_total]\n");
	EXPECT_BAD(COUNT_OK "hepl = x\n",
		   "5: unknown key 'hepl' in [a_total] (did you mean 'help'?)\n");
	EXPECT_BAD("lisen = :1\n" COUNT_OK,
		   "1: unknown global key 'lisen' (did you mean 'listen'?)");
	/* keys are lower case, as written */
	EXPECT_BAD(COUNT_OK "Comm = x\n", "5: unknown key 'Comm' in [a_total]");
}

static void test_misplaced_keys(void **state)
{
	struct serve_config c;

	(void)state;
	EXPECT_BAD("help = x\n" COUNT_OK,
		   "1: key 'help' belongs in a [metric] section, after the global keys");
	EXPECT_BAD(
		COUNT_OK "listen = :1\n",
		"5: key 'listen' is global: give it before the first [metric], not in [a_total]");
	EXPECT_BAD(COUNT_OK "textfile-interval = 5s\n", "5: key 'textfile-interval' is global");
	/* max-series is both: a metric's own cap inside a section */
	expect_good("max-series = 7\n" COUNT_OK "max-series = 9\n", &c);
	assert_int_equal(c.max_series, 7);
	assert_int_equal(c.metrics[0].max_series, 9);
	serve_config_free(&c);
}

static void test_key_twice(void **state)
{
	struct serve_config c;

	(void)state;
	EXPECT_BAD("[a_total]\nhelp = h\nkind = count\nspec = f\nkind = hist\n",
		   "5: key 'kind' given twice in [a_total] (first at line 3)");
	EXPECT_BAD("listen = :1\nlisten = :2\n" COUNT_OK,
		   "2: key 'listen' given twice (first at line 1)");
	/* the same key in another section is that section's */
	expect_good(COUNT_OK "[b_total]\nhelp = h\nkind = count\nspec = g\nspec = f\n", &c);
	assert_int_equal(c.metrics[1].nr_specs, 2);
	serve_config_free(&c);
}

static void test_duplicate_metric(void **state)
{
	(void)state;
	EXPECT_BAD("\n\n" COUNT_OK "\n" COUNT_OK,
		   "8: duplicate metric [a_total] (first at line 3)");
}

static void test_bad_names(void **state)
{
	struct serve_config c;

	(void)state;
	EXPECT_BAD("[1a_total]\nhelp = h\nkind = count\nspec = f\n",
		   "1: bad metric name '1a_total'");
	EXPECT_BAD("[a-b_total]\nhelp = h\nkind = count\nspec = f\n",
		   "1: bad metric name 'a-b_total'");
	EXPECT_BAD("[ a_total ]\nhelp = h\nkind = count\nspec = f\n",
		   "1: bad metric name ' a_total '");
	EXPECT_BAD("[a:b_total]\nhelp = h\nkind = count\nspec = f\n",
		   "1: bad metric name 'a:b_total'");
	EXPECT_BAD("[]\nhelp = h\nkind = count\nspec = f\n", "1: bad metric name ''");
	EXPECT_BAD("[__a_total]\nhelp = h\nkind = count\nspec = f\n",
		   "1: metric name '__a_total' starts with '__'");
	EXPECT_BAD("[ksnoop_serve_a_total]\nhelp = h\nkind = count\nspec = f\n",
		   "1: metric name 'ksnoop_serve_a_total' is reserved");
	EXPECT_BAD("[a_total\nhelp = h\nkind = count\nspec = f\n",
		   "1: '[a_total' is no section header: expected '[metric]' alone on its line");
	EXPECT_BAD("[a_total] # no comment here\nhelp = h\nkind = count\nspec = f\n",
		   "1: '[a_total] # no comment here' is no section header");
	/* a leading underscore alone is allowed */
	expect_good("[_a_total]\nhelp = h\nkind = count\nspec = f\n", &c);
	serve_config_free(&c);
}

static void test_name_by_kind(void **state)
{
	struct serve_config c;

	(void)state;
	EXPECT_BAD("[a]\nhelp = h\nkind = count\nspec = f\n",
		   "1: metric name 'a' of kind count must end in _total");
	EXPECT_BAD("[a_total]\nhelp = h\nkind = latency\nspec = f\n",
		   "1: metric name 'a_total' of kind latency must end in _seconds");
	EXPECT_BAD("[a_total]\nhelp = h\nkind = hist\nspec = f\n",
		   "1: metric name 'a_total' of kind hist must not end in _total");
	EXPECT_BAD("[a_bucket]\nhelp = h\nkind = hist\nspec = f\n", "1: metric name 'a_bucket'");
	EXPECT_BAD("[a_sum]\nhelp = h\nkind = hist\nspec = f\n", "1: metric name 'a_sum'");
	EXPECT_BAD("[a_count]\nhelp = h\nkind = hist\nspec = f\n", "1: metric name 'a_count'");
	/* a hist in seconds is a plain hist's name */
	expect_good("[a_seconds]\nhelp = h\nkind = hist\nspec = f\n", &c);
	serve_config_free(&c);
}

static void test_missing_keys(void **state)
{
	(void)state;
	/* at the section's line, after the errors of its own lines */
	EXPECT_BAD(COUNT_OK "\n[b_total]\nkind = count\nspec = f\nfoo = 1\n",
		   "9: unknown key 'foo' in [b_total]", "6: 'help' is missing in [b_total]");
	EXPECT_BAD(COUNT_OK "[b_total]\nhelp = h\nspec = f\n",
		   "5: 'kind' is missing in [b_total]: count, hist or latency");
	EXPECT_BAD("[b_total]\nhelp = h\nkind = count\n",
		   "1: 'spec' (or 'from' and 'to') is missing in [b_total]");
}

static void test_spec_and_span(void **state)
{
	(void)state;
	EXPECT_BAD(COUNT_OK "from = f\nto = g\n",
		   "5: 'spec' and 'from'/'to' cannot both be given in [a_total]");
	EXPECT_BAD("[a_total]\nhelp = h\nto = g\nkind = count\nfrom = f\nspec = s\n",
		   "6: 'spec' and 'from'/'to' cannot both be given in [a_total]");
	/* one end of a span is enough for the clash */
	EXPECT_BAD(COUNT_OK "to = g\n",
		   "5: 'spec' and 'from'/'to' cannot both be given in [a_total]");
	EXPECT_BAD("[a_total]\nhelp = h\nkind = count\nfrom = f\n",
		   "4: 'from' without 'to' in [a_total]");
	EXPECT_BAD("[a_total]\nhelp = h\nkind = count\nto = f\n",
		   "4: 'to' without 'from' in [a_total]");
	EXPECT_BAD("[a]\nhelp = h\nkind = hist\nfrom = f\nto = g\n",
		   "4: kind hist takes no 'from'/'to' in [a]: a hist of a span is kind = latency");
}

static void test_options_by_kind(void **state)
{
	(void)state;
	EXPECT_BAD(COUNT_OK "buckets = log2\n",
		   "5: 'buckets' in [a_total] is for kind hist or latency, not count");
	EXPECT_BAD(COUNT_OK "unit = ms\n", "5: 'unit' in [a_total] is for kind latency only");
	EXPECT_BAD("[a]\nhelp = h\nkind = hist\nspec = f\nunit = ns\n",
		   "5: 'unit' in [a] is for kind latency only");
}

static void test_bad_values(void **state)
{
	(void)state;
	EXPECT_BAD("[a_total]\nhelp = h\nkind = counter\nspec = f\n",
		   "3: unknown kind 'counter' in [a_total]: count, hist or latency");
	EXPECT_BAD(COUNT_OK "max-keys = 0\n",
		   "5: bad number '0' for max-keys in [a_total] (1 to 1048576)");
	EXPECT_BAD(COUNT_OK "max-keys = 1048577\n", "5: bad number '1048577' for max-keys");
	EXPECT_BAD(COUNT_OK "max-series = abc\n",
		   "5: bad number 'abc' for max-series in [a_total] (1 to 1000000)");
	EXPECT_BAD("max-series = 1000001\n" COUNT_OK,
		   "1: bad number '1000001' for max-series (1 to 1000000)");
	EXPECT_BAD("max-series = 0x10\n" COUNT_OK, "1: bad number '0x10' for max-series");
	EXPECT_BAD("[a_seconds]\nhelp = h\nkind = latency\nspec = f\nunit = s\n",
		   "5: bad unit 's' in [a_seconds]: ns, us or ms");
}

static void test_buckets(void **state)
{
	static const char *const bad[] = {
		"linear",	   "linear 10,0,1", "linear 0,10,0",   "linear 0,10,3",
		"linear 0,1000,1", "linear 0,10",   "linear 0,10,1,2", "linear a,10,1",
		"linear0,10,1",	   "log",	    "cubic 1,2,3",     "linear 0,,1"
	};
	const char *head = "[a]\nhelp = h\nkind = hist\nspec = f\nbuckets = ";
	struct serve_config c;
	char text[256], want[128];
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		snprintf(text, sizeof(text), "%s%s\n", head, bad[i]);
		snprintf(want, sizeof(want),
			 "5: bad buckets '%s' in [a]: log2, or linear LO,HI,STEP", bad[i]);
		EXPECT_BAD(text, want);
	}
	/* blanks around the numbers go, the numbers are written back in decimal */
	snprintf(text, sizeof(text), "%slinear \t-50 , 0100,\t10 \n", head);
	expect_good(text, &c);
	assert_string_equal(c.metrics[0].linear, "-50,100,10");
	serve_config_free(&c);
	/* 126 steps is ksnoop's most */
	snprintf(text, sizeof(text), "%slinear 0,126,1\n", head);
	expect_good(text, &c);
	serve_config_free(&c);
	snprintf(text, sizeof(text), "%slinear 0,127,1\n", head);
	EXPECT_BAD(text, "5: bad buckets");
}

static void test_intervals(void **state)
{
	static const struct {
		const char *text;
		unsigned long long ns;
	} good[] = { { "15s", 15000000000ULL },	  { "500ms", 500000000ULL },
		     { "2m", 120000000000ULL },	  { "1h", 3600000000000ULL },
		     { "30", 30000000000ULL },	  { "86400", 86400000000000ULL },
		     { "24h", 86400000000000ULL } };
	static const char *const bad[] = { "0",
					   "0s",
					   "86401",
					   "25h",
					   "1d",
					   "1.5s",
					   "-1s",
					   "s",
					   "1 s",
					   "5us",
					   "99999999999999999999999" };
	struct serve_config c;
	char text[256], want[128];
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(good); i++) {
		snprintf(text, sizeof(text), "textfile-interval = %s\n" COUNT_OK, good[i].text);
		expect_good(text, &c);
		assert_true(c.textfile_ns == good[i].ns);
		serve_config_free(&c);
	}
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		snprintf(text, sizeof(text), "textfile-interval = %s\n" COUNT_OK, bad[i]);
		snprintf(want, sizeof(want), "1: bad duration '%s' for textfile-interval", bad[i]);
		EXPECT_BAD(text, want);
	}
}

static void test_by(void **state)
{
	struct serve_config c;

	(void)state;
	expect_good(COUNT_OK "by = ustack , tid,\tcomm,pid,cpu,kstack\n", &c);
	assert_string_equal(c.metrics[0].by, "comm,pid,tid,cpu,kstack,ustack");
	serve_config_free(&c);
	EXPECT_BAD(COUNT_OK "by = comm,errno\n",
		   "5: unknown word 'errno' in by in [a_total]: a comma list of comm, pid,");
	EXPECT_BAD(COUNT_OK "by = cpu,comm,cpu\n", "5: 'cpu' is twice in by in [a_total]");
	EXPECT_BAD(COUNT_OK "by = comm,\n", "5: by in [a_total] has an empty item");
	EXPECT_BAD(COUNT_OK "by = comm, ,cpu\n", "5: by in [a_total] has an empty item");
	EXPECT_BAD(COUNT_OK "by = comm cpu\n", "5: unknown word 'comm cpu' in by");
}

static void test_control_chars(void **state)
{
	struct serve_config c;

	(void)state;
	EXPECT_BAD(COUNT_OK "comm = a\033[31m\n",
		   "5: the value of 'comm' in [a_total] has a control character");
	EXPECT_BAD(COUNT_OK "cgroup = /a\x7f\n",
		   "5: the value of 'cgroup' in [a_total] has a control");
	EXPECT_BAD("[a_total]\nhelp = a\rb\nkind = count\nspec = f\n",
		   "2: the value of 'help' in [a_total] has a control character");
	EXPECT_BAD("textfile = /a\x01\n" COUNT_OK, "1: the value of 'textfile' has a control");
	/* a tab inside, and bytes past ASCII, are text */
	expect_good("[a_total]\nhelp = a\tb \xc3\xa9\nkind = count\nspec = f\n", &c);
	assert_string_equal(c.metrics[0].help, "a\tb \xc3\xa9");
	serve_config_free(&c);
}

static void test_no_metric(void **state)
{
	(void)state;
	EXPECT_BAD("", "1: no [metric] section");
	EXPECT_BAD("listen = :1\n# nothing else\n\n", "3: no [metric] section");
}

static void test_too_many(void **state)
{
	struct serve_config c;
	struct strbuf sb;
	int i;

	(void)state;
	sb_init(&sb);
	for (i = 0; i < SERVE_MAX_METRICS + 2; i++)
		sb_printf(&sb, "[m%d_total]\nhelp = h\nkind = count\nspec = f\n", i);
	/* one error, at the first metric too many; the later ones are still checked */
	sb_printf(&sb, "[x]\nhelp = h\nkind = count\nspec = f\n");
	assert_int_equal(parse(sb_str(&sb), &c), -EINVAL);
	expect_errors(ERRS("257: more than 64 metrics",
			   "265: metric name 'x' of kind count must end in _total"));
	assert_int_equal(c.nr, SERVE_MAX_METRICS);
	assert_string_equal(c.metrics[SERVE_MAX_METRICS - 1].name, "m63_total");
	serve_config_free(&c);

	sb_reset(&sb);
	sb_printf(&sb, "[a_total]\nhelp = h\nkind = count\n");
	for (i = 0; i < SERVE_MAX_SPECS + 1; i++)
		sb_printf(&sb, "spec = f%d\n", i);
	assert_int_equal(parse(sb_str(&sb), &c), -EINVAL);
	expect_errors(ERRS("20: more than 16 'spec' in [a_total]"));
	assert_int_equal(c.metrics[0].nr_specs, SERVE_MAX_SPECS);
	serve_config_free(&c);
	sb_free(&sb);
}

static void test_many_errors(void **state)
{
	(void)state;
	EXPECT_BAD("listen = :1\n"
		   "bogus\n"
		   "max-series = -1\n"
		   "[a]\n"
		   "help = h\n"
		   "kind = count\n"
		   "spec = f\n"
		   "kind = hist\n"
		   "colour = red\n"
		   "[a]\n"
		   "kind = latency\n"
		   "by = comm,nope\n"
		   "from = f\n",
		   "2: expected 'key = value' or '[metric]', not 'bogus'",
		   "3: bad number '-1' for max-series (1 to 1000000)",
		   "8: key 'kind' given twice in [a] (first at line 6)",
		   "9: unknown key 'colour' in [a]",
		   "4: metric name 'a' of kind count must end in _total",
		   "10: duplicate metric [a] (first at line 4)",
		   "12: unknown word 'nope' in by in [a]", "10: 'help' is missing in [a]",
		   "13: 'from' without 'to' in [a]",
		   "10: metric name 'a' of kind latency must end in _seconds");
}

static void test_same(void **state)
{
	struct serve_config c1, c2;
	struct serve_metric a, b;
	char *other = "other";
	int i;

	(void)state;
	expect_good("[a_seconds]\nhelp = h\nkind = latency\nspec = f\nspec = g\nby = comm\n"
		    "buckets = linear 0,100,10\nunit = ms\nmax-keys = 10\nmax-series = 20\n"
		    "comm = c\ncgroup = /g\n",
		    &c1);
	/* moved down, keys in another order, comments between */
	expect_good("\n\n# moved\n[a_seconds]\ncgroup = /g\ncomm = c\nmax-series = 20\n"
		    "max-keys = 10\nunit = ms\nbuckets = linear 0, 100, 10\nby = comm\nspec = f\n"
		    "; here\nspec = g\nkind = latency\nhelp = h\n",
		    &c2);
	assert_true(serve_metric_same(&c1.metrics[0], &c2.metrics[0]));
	assert_int_not_equal(c1.metrics[0].line, c2.metrics[0].line);

	a = c1.metrics[0];
	for (i = 0; i < 14; i++) {
		b = a;
		switch (i) {
		case 0:
			b.name = "b_seconds";
			break;
		case 1:
			b.help = other;
			break;
		case 2:
			b.kind = SERVE_HIST;
			break;
		case 3:
			b.specs[1] = "h";
			break;
		case 4:
			b.nr_specs = 1;
			break;
		case 5:
			b.from = other;
			break;
		case 6:
			b.to = other;
			break;
		case 7:
			b.by = NULL;
			break;
		case 8:
			b.linear = "0,100,5";
			break;
		case 9:
			b.unit = NULL;
			break;
		case 10:
			b.max_keys = 11;
			break;
		case 11:
			b.max_series = 0;
			break;
		case 12:
			b.comm = other;
			break;
		case 13:
			b.cgroup = NULL;
			break;
		}
		if (serve_metric_same(&a, &b) || serve_metric_same(&b, &a))
			print_error("change %d not seen\n", i);
		assert_false(serve_metric_same(&a, &b));
		assert_false(serve_metric_same(&b, &a));
	}
	/* the specs' order is part of it: the same metric otherwise */
	b = a;
	b.specs[0] = a.specs[1];
	b.specs[1] = a.specs[0];
	assert_false(serve_metric_same(&a, &b));
	b.spec_lines[0] = 99;
	b.specs[0] = a.specs[0];
	b.specs[1] = a.specs[1];
	b.line = 1000;
	assert_true(serve_metric_same(&a, &b));
	serve_config_free(&c1);
	serve_config_free(&c2);
}

static void expect_argv(const char *text, const char *const *want, int n)
{
	struct serve_config c;
	char **argv;
	int argc = -1, i;

	expect_good(text, &c);
	argv = serve_metric_argv(&c.metrics[0], &argc);
	assert_non_null(argv);
	for (i = 0; i < n && argv[i]; i++)
		assert_string_equal(argv[i], want[i]);
	assert_int_equal(i, n);
	assert_int_equal(argc, n);
	assert_null(argv[n]);
	serve_argv_free(argv);
	serve_config_free(&c);
}

static void test_argv(void **state)
{
	(void)state;
	expect_argv(COUNT_OK "spec = g(x)\nby = comm\n",
		    ERRS("count", "--by", "comm", "f", "g(x)"));
	expect_argv("[a]\nhelp = h\nkind = hist\nspec = f(skb->len)\nbuckets = linear 0,1500,100\n"
		    "max-keys = 64\ncomm = nginx*\ncgroup = /sys/fs/cgroup/x\n",
		    ERRS("hist", "--linear", "0,1500,100", "--max-keys", "64", "--comm", "nginx*",
			 "--cgroup", "/sys/fs/cgroup/x", "f(skb->len)"));
	expect_argv("[io_seconds]\nhelp = h\nkind = latency\nfrom = a(rq)\nto = b(rq)\nby = cpu\n"
		    "unit = ms\nmax-series = 5\n",
		    ERRS("hist", "--latency", "--unit", "ms", "--by", "cpu", "--from", "a(rq)",
			 "--to", "b(rq)"));
	/* latency's unit is us unless given */
	expect_argv("[io_seconds]\nhelp = h\nkind = latency\nspec = f\n",
		    ERRS("hist", "--latency", "--unit", "us", "f"));
}

static void test_config_free(void **state)
{
	struct serve_config c;

	(void)state;
	memset(&c, 0, sizeof(c));
	serve_config_free(&c);
	expect_good(full, &c);
	serve_config_free(&c);
	assert_null(c.path);
	assert_int_equal(c.nr, 0);
	serve_config_free(&c);
	/* a refused file leaves what it got for the caller to free */
	assert_int_equal(parse(COUNT_OK "by = bad\n", &c), -EINVAL);
	serve_config_free(&c);
	serve_argv_free(NULL);
}

static void write_file(const char *path, const char *text, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	assert_int_equal(close(fd), 0);
}

static int load(const char *path, struct serve_config *c)
{
	struct stderr_capture cap;
	int rc;

	stderr_capture_begin(&cap);
	rc = serve_config_load(path, c);
	stderr_capture_end(&cap, errbuf, sizeof(errbuf));
	return rc;
}

static void test_load(void **state)
{
	char dir[64], path[128], want[256];
	struct serve_config c;
	char *big;
	int i;

	(void)state;
	tmpdir_make(dir, sizeof(dir), "serve");
	snprintf(path, sizeof(path), "%s/missing.conf", dir);
	assert_int_equal(load(path, &c), -ENOENT);
	snprintf(want, sizeof(want), "Error: %s: No such file or directory\n", path);
	assert_string_equal(errbuf, want);
	serve_config_free(&c);

	assert_int_equal(load(dir, &c), -EISDIR);
	snprintf(want, sizeof(want), "Error: %s: Is a directory\n", dir);
	assert_string_equal(errbuf, want);
	serve_config_free(&c);

	/* exactly the most: read whole; one byte more: one error naming the limit */
	big = malloc(SERVE_CONFIG_MAX + 1);
	assert_non_null(big);
	for (i = 0; i < SERVE_CONFIG_MAX + 1; i++)
		big[i] = i % 64 == 63 ? '\n' : '#';
	memcpy(big, COUNT_OK, strlen(COUNT_OK));
	snprintf(path, sizeof(path), "%s/max.conf", dir);
	write_file(path, big, SERVE_CONFIG_MAX);
	assert_int_equal(load(path, &c), 0);
	assert_string_equal(errbuf, "");
	assert_string_equal(c.path, path);
	assert_string_equal(c.metrics[0].name, "a_total");
	serve_config_free(&c);

	snprintf(path, sizeof(path), "%s/big.conf", dir);
	write_file(path, big, SERVE_CONFIG_MAX + 1);
	assert_int_equal(load(path, &c), -EFBIG);
	snprintf(want, sizeof(want), "Error: %s: larger than 1048576 bytes", path);
	expect_one_error_line(errbuf, want);
	assert_int_equal(c.nr, 0);
	serve_config_free(&c);
	free(big);

	/* the file's errors name it */
	snprintf(path, sizeof(path), "%s/bad.conf", dir);
	write_file(path, "[a]\n", 4);
	assert_int_equal(load(path, &c), -EINVAL);
	snprintf(want, sizeof(want), "Error: %s:1: 'help' is missing in [a]\n", path);
	assert_int_equal(strncmp(errbuf, want, strlen(want)), 0);
	serve_config_free(&c);
	tmpdir_remove(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full_example),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_comments_blanks_crlf),
		cmocka_unit_test(test_no_trailing_newline),
		cmocka_unit_test(test_line_limit),
		cmocka_unit_test(test_nul_byte),
		cmocka_unit_test(test_syntax_errors),
		cmocka_unit_test(test_unknown_keys),
		cmocka_unit_test(test_misplaced_keys),
		cmocka_unit_test(test_key_twice),
		cmocka_unit_test(test_duplicate_metric),
		cmocka_unit_test(test_bad_names),
		cmocka_unit_test(test_name_by_kind),
		cmocka_unit_test(test_missing_keys),
		cmocka_unit_test(test_spec_and_span),
		cmocka_unit_test(test_options_by_kind),
		cmocka_unit_test(test_bad_values),
		cmocka_unit_test(test_buckets),
		cmocka_unit_test(test_intervals),
		cmocka_unit_test(test_by),
		cmocka_unit_test(test_control_chars),
		cmocka_unit_test(test_no_metric),
		cmocka_unit_test(test_too_many),
		cmocka_unit_test(test_many_errors),
		cmocka_unit_test(test_same),
		cmocka_unit_test(test_argv),
		cmocka_unit_test(test_config_free),
		cmocka_unit_test(test_load),
	};

	return cmocka_run_group_tests_name("serve_config", tests, NULL, NULL);
}
