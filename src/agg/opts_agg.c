// SPDX-License-Identifier: GPL-2.0
/* The options of count and hist, ahead of ksnoop's own (env_opts). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "env.h"
#include "abi/trace.h"
#include "lib/opts.h"
#include "lib/util.h"

static struct agg_opts *agg_of(void *ctx)
{
	return &((struct env *)ctx)->agg;
}

static const char *const by_words[] = { "comm", "pid", "tid", "cpu", "kstack", "ustack", "cgroup" };

/* "comm,pid": each word a KSNOOP_BY_* bit, in enum order. */
static int set_by(void *ctx, const char *arg)
{
	char word[16], clip[CLIP_BUF];
	const char *p = arg;
	size_t i, len;

	while (*p) {
		len = strcspn(p, ",");
		for (i = 0; i < ARRAY_SIZE(by_words); i++) {
			if (len == strlen(by_words[i]) && !strncmp(p, by_words[i], len))
				break;
		}
		if (i == ARRAY_SIZE(by_words)) {
			snprintf(word, sizeof(word), "%.*s", (int)(len < 15 ? len : 15), p);
			p_err("invalid --by '%s': '%s' is not one of " AGG_BY_LIST,
			      str_clip(arg, clip), word);
			return -EINVAL;
		}
		agg_of(ctx)->by |= 1u << i;
		p += len;
		if (*p == ',' && *++p == '\0')
			break;
	}
	if (!agg_of(ctx)->by) {
		p_err("--by needs comm, pid, tid, cpu, kstack, ustack or cgroup");
		return -EINVAL;
	}
	return 0;
}

/* LO,HI,STEP with LO < HI, STEP > 0, at most KSNOOP_HIST_BUCKETS - 2 steps. */
static int set_linear(void *ctx, const char *arg)
{
	struct agg_opts *a = agg_of(ctx);
	char buf[96], clip[CLIP_BUF], *lo, *hi, *step;
	long long v[3], range;

	if (strlen(arg) >= sizeof(buf))
		goto bad;
	strcpy(buf, arg);
	lo = strtok(buf, ",");
	hi = strtok(NULL, ",");
	step = strtok(NULL, "");
	if (!lo || !hi || !step || parse_long(lo, -(1LL << 62), 1LL << 62, &v[0]) ||
	    parse_long(hi, -(1LL << 62), 1LL << 62, &v[1]) ||
	    parse_long(step, 1, 1LL << 62, &v[2]) || v[1] <= v[0])
		goto bad;
	if (__builtin_sub_overflow(v[1], v[0], &range)) {
		p_err("invalid --linear '%s': HI - LO must fit in 64 bits", str_clip(arg, clip));
		return -EINVAL;
	}
	if (range / v[2] > KSNOOP_HIST_BUCKETS - 2 || range % v[2]) {
		p_err("invalid --linear '%s': (HI - LO) must be a multiple of STEP, at most %d steps",
		      str_clip(arg, clip), KSNOOP_HIST_BUCKETS - 2);
		return -EINVAL;
	}
	a->linear = true;
	a->lo = v[0];
	a->hi = v[1];
	a->step = v[2];
	return 0;
bad:
	p_err("invalid --linear '%s': need LO,HI,STEP integers with LO < HI and STEP > 0",
	      str_clip(arg, clip));
	return -EINVAL;
}

static int set_unit(void *ctx, const char *arg)
{
	static const struct {
		const char *name;
		unsigned long long ns;
	} units[] = { { "ns", 1 }, { "us", 1000 }, { "ms", 1000000 } };
	char clip[CLIP_BUF];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(units); i++) {
		if (!strcmp(arg, units[i].name)) {
			agg_of(ctx)->unit = units[i].name;
			agg_of(ctx)->unit_ns = units[i].ns;
			return 0;
		}
	}
	p_err("invalid --unit '%s': use ns, us or ms", str_clip(arg, clip));
	return -EINVAL;
}

/* Seconds ("5", as bcc takes them) or a duration with its unit ("500ms"). */
static int parse_period(const char *arg, unsigned long long *ns)
{
	long long s;

	if (!parse_long(arg, 1, 1000000, &s)) {
		*ns = s * 1000000000ULL;
		return 0;
	}
	return parse_duration_ns(arg, ns) || !*ns || !strpbrk(arg, "nums") ? -EINVAL : 0;
}

static int set_period(const char *arg, const char *what, unsigned long long *out)
{
	char clip[CLIP_BUF];

	if (!parse_period(arg, out))
		return 0;
	p_err("invalid %s '%s': use seconds, or e.g. 500ms or 2s", what, str_clip(arg, clip));
	return -EINVAL;
}

static int set_interval(void *ctx, const char *arg)
{
	return set_period(arg, "-i", &agg_of(ctx)->interval_ns);
}

/* bcc's argdist and funccount: -d SECS. --debug stays --debug here. */
static int set_run_time(void *ctx, const char *arg)
{
	char clip[CLIP_BUF];

	if (*arg >= '0' && *arg <= '9')
		return set_period(arg, "-d/--run-time", &agg_of(ctx)->run_ns);
	p_err("invalid -d/--run-time '%s': in count and hist -d is the run time, as in "
	      "'-d 5' or '-d 500ms'; debug output is --debug",
	      str_clip(arg, clip));
	return -EINVAL;
}

static void help(void *ctx)
{
	agg_usage(stdout, ((struct env *)ctx)->prog_name);
}

void agg_usage(FILE *f, const char *prog)
{
	fprintf(f,
		"Usage: %s [OPTIONS] count FUNC [FUNC...]\n"
		"       %s [OPTIONS] hist FUNC [FUNC...]\n"
		"       %s [OPTIONS] count|hist --from SPEC... --to SPEC...\n"
		"\n"
		"count: calls, keyed by the function, its value items and --by fields.\n"
		"hist:  a histogram of each FUNC's one value item, or of call durations.\n"
		"Spans: from a --from call to the --to call whose first value (or tuple\n"
		"'f((a, b))') is the same as its own (hist --latency: their time apart),\n"
		"keyed by --from's.\n"
		"\n"
		"OPTIONS (and trace's: -p, --comm, --cpu, --cgroup, -b, -j, --max-bytes, --from, --to, --max-spans):\n"
		"      --by LIST         add to the key: comm,pid,tid,cpu,kstack,ustack,cgroup\n"
		"      --linear LO,HI,STEP  linear buckets (hist), else log2\n"
		"      --latency         a histogram of call durations (hist)\n"
		"      --unit UNIT       ns, us or ms (--latency; default ns)\n"
		"  -i, --interval SECS   print each SECS' own counts, then clear them\n"
		"      --cumulative      -i prints running totals instead\n"
		"  -d, --run-time SECS   stop after SECS, or a TIME such as 500ms; was --duration,\n"
		"                        which still works (debug output here is --debug alone)\n"
		"      --top N           print the N largest rows\n"
		"      --max-keys N      keys kept in the kernel (default %d); refused when\n"
		"                        the maps would take over 512 MiB or a quarter of\n"
		"                        MemAvailable (count's table, --by kstack's stacks)\n"

		"      --call-graph dwarf[,BYTES]  --by ustack's stacks unwound by ksnoop with\n"
		"                        the objects' CFI, as trace's (default: frame pointers)\n"
		"      --folded          stacks as folded lines for flame graphs (--by kstack,\n"
		"                        ustack or both)\n"
		"      --svg FILE        write the stacks' flame graph to FILE at the end (count)\n"
		"      --prometheus HOST:PORT  serve /metrics there while running\n"
		"      --textfile FILE   write the metrics to FILE every interval\n",
		prog, prog, prog, KSNOOP_DEFAULT_MAX_KEYS);
}

static const struct opt agg_opts[] = {
	OPT_CALL("by", 0, true, set_by),
	OPT_CALL("linear", 0, true, set_linear),
	OPT_FLAG("latency", 0, struct env, agg.latency),
	OPT_CALL("unit", 0, true, set_unit),
	OPT_CALL("interval", 'i', true, set_interval),
	OPT_FLAG("cumulative", 0, struct env, agg.cumulative),
	OPT_CALL("run-time", 'd', true, set_run_time),
	/* its old name, which trace's --min-duration also had */
	{ .name = "duration",
	  .has_arg = true,
	  .kind = OPT_K_CALL,
	  .set = set_run_time,
	  .alias = true },
	OPT_INT("top", 0, struct env, agg.top, 1, 1 << 20),
	OPT_INT("max-keys", 0, struct env, agg.max_keys, 1, 1 << 20),
	OPT_FLAG("folded", 0, struct env, agg.folded),
	OPT_STRING("svg", 0, struct env, agg.svg),
	OPT_STRING("prometheus", 0, struct env, agg.prometheus),
	OPT_STRING("textfile", 0, struct env, agg.textfile),
	{},
};

const struct opts_spec agg_cmd_opts = {
	.opts = agg_opts,
	.more = env_opts,
	.mode = OPTS_PERMUTE,
	.help = help,
};
