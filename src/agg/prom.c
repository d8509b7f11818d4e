// SPDX-License-Identifier: GPL-2.0
/* The aggregate tables in Prometheus's text exposition format 0.0.4; see prom.h. */
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agg/prom.h"
#include "lib/cgroup.h"
#include "lib/outfile.h"
#include "lib/util.h"

enum prom_family { FAM_CALLS, FAM_VALUE, FAM_LATENCY, NR_FAMILIES };

static const struct {
	const char *name, *type, *help;
} families[NR_FAMILIES] = {
	[FAM_CALLS] = { "ksnoop_calls_total", "counter",
			"Calls counted in the kernel by ksnoop count, by function and key." },
	[FAM_VALUE] = { "ksnoop_value", "histogram",
			"Values recorded in the kernel by ksnoop hist; the value label is the expression." },
	[FAM_LATENCY] = { "ksnoop_latency_seconds", "histogram",
			  "Durations of the traced calls, recorded in the kernel by ksnoop hist --latency." },
};

#define DROPS_NAME "ksnoop_lost_samples_total"
#define DROPS_HELP "Samples the kernel could not count, by reason."

/* Label names no key field may take. */
#define LABEL_FUNC "func"
#define LABEL_SPEC "spec"
#define LABEL_VALUE "value"
#define LABEL_LE "le"
#define LABEL_FOLDED "folded"
/* Beside a cgroup label, where its path names a container (lib/cgroup.h). */
#define LABEL_CONTAINER "container"
#define LABEL_POD "pod"

/* A latency's le and _sum: nanoseconds printed as seconds. */
#define NS_DECIMALS 9

/* How one table's series are labelled. */
struct table_plan {
	enum prom_family family;
	const char *name;      /* the family's, or serve's metric name */
	int spec;	       /* the table's position, from 1 */
	bool show_spec;	       /* another table could expose the same series */
	int func_field;	       /* index of the AGG_F_FUNC field, or -1 */
	char **labels;	       /* per key field; NULL for the AGG_F_FUNC one */
	long long ns_per_unit; /* FAM_LATENCY; else 1 */
	bool has_cgroup;       /* a key field is AGG_F_CGROUP: container and pod are taken */
};

/* ---- label names --------------------------------------------------------- */

static bool is_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* name made a label name; see prom.h. */
static char *label_name(const char *name)
{
	size_t n = strlen(name);
	char *out = malloc(n + 4), *p = out; /* a '_' before a digit; "key" */
	bool gap = false;

	if (!out)
		return NULL;
	for (; *name; name++) {
		if (!is_alnum(*name)) {
			gap = true;
			continue;
		}
		if (gap && p > out)
			*p++ = '_';
		gap = false;
		if (p == out && *name >= '0' && *name <= '9')
			*p++ = '_';
		*p++ = *name;
	}
	*p = '\0';
	if (p == out)
		strcpy(out, "key");
	return out;
}

static bool label_taken(const struct table_plan *plan, int nr, const char *name)
{
	int i;

	if (!strcmp(name, LABEL_FUNC) || !strcmp(name, LABEL_SPEC) || !strcmp(name, LABEL_FOLDED))
		return true;
	if (plan->family != FAM_CALLS && !strcmp(name, LABEL_LE))
		return true;
	if (plan->family == FAM_VALUE && !strcmp(name, LABEL_VALUE))
		return true;
	if (plan->has_cgroup && (!strcmp(name, LABEL_CONTAINER) || !strcmp(name, LABEL_POD)))
		return true;
	for (i = 0; i < nr; i++) {
		if (plan->labels[i] && !strcmp(plan->labels[i], name))
			return true;
	}
	return false;
}

/* The label of field nr, after the nr before it: its name, or name_2, name_3... */
static char *unique_label(const struct table_plan *plan, int nr, const char *field)
{
	char *base = label_name(field), *name;
	size_t size;
	int n;

	if (!base || !label_taken(plan, nr, base))
		return base;
	size = strlen(base) + 16;
	name = malloc(size);
	for (n = 2; name; n++) {
		snprintf(name, size, "%s_%d", base, n);
		if (!label_taken(plan, nr, name))
			break;
	}
	free(base);
	return name;
}

/* ---- planning ------------------------------------------------------------ */

static long long unit_ns(const char *unit)
{
	if (!strcmp(unit, "ns"))
		return 1;
	if (!strcmp(unit, "us"))
		return 1000;
	if (!strcmp(unit, "ms"))
		return 1000000;
	return 0;
}

static bool layout_ok(const struct agg_layout *l)
{
	if (l->scale == AGG_LOG2)
		return l->nr_buckets == 66;
	if (l->scale != AGG_LINEAR || l->step <= 0 || l->hi <= l->lo)
		return false;
	return l->nr_buckets == ((__int128)l->hi - l->lo) / l->step + 2;
}

static bool rows_ok(const struct agg_table *t)
{
	int i;

	if (t->nr_rows && !t->rows)
		return false;
	for (i = 0; i < t->nr_rows; i++) {
		if ((t->nr_fields && !t->rows[i].key) ||
		    (t->kind == AGG_HIST && !t->rows[i].buckets))
			return false;
	}
	return true;
}

static int plan_table(const struct agg_table *t, int spec, struct table_plan *plan)
{
	int i;

	plan->spec = spec;
	plan->func_field = -1;
	plan->name = NULL;
	plan->ns_per_unit = 1;
	if (t->kind == AGG_COUNT) {
		plan->family = FAM_CALLS;
	} else {
		plan->family = t->unit ? FAM_LATENCY : FAM_VALUE;
		if (!layout_ok(&t->layout))
			return -EINVAL;
		if (t->unit && !(plan->ns_per_unit = unit_ns(t->unit)))
			return -EINVAL;
	}
	plan->name = families[plan->family].name;
	if (!t->func || (plan->family == FAM_VALUE && !t->value) || !rows_ok(t))
		return -EINVAL;
	plan->labels = calloc(t->nr_fields ?: 1, sizeof(*plan->labels));
	if (!plan->labels)
		return -ENOMEM;
	for (i = 0; i < t->nr_fields; i++)
		plan->has_cgroup |= t->fields[i].kind == AGG_F_CGROUP;
	for (i = 0; i < t->nr_fields; i++) {
		if (t->fields[i].kind == AGG_F_FUNC && plan->func_field < 0) {
			plan->func_field = i;
			continue;
		}
		plan->labels[i] = unique_label(plan, i, t->fields[i].name ?: "");
		if (!plan->labels[i])
			return -ENOMEM;
	}
	return 0;
}

static bool has_label(const struct table_plan *p, int nr, const char *name)
{
	int i;

	for (i = 0; i < nr; i++) {
		if (p->labels[i] && !strcmp(p->labels[i], name))
			return true;
	}
	return false;
}

/* Whether a's labels are b's: both tables' key labels are unique in them. */
static bool same_label_names(const struct agg_table *a, const struct table_plan *pa,
			     const struct agg_table *b, const struct table_plan *pb)
{
	int i, na = 0, nb = 0;

	for (i = 0; i < a->nr_fields; i++) {
		na += pa->labels[i] != NULL;
		if (pa->labels[i] && !has_label(pb, b->nr_fields, pa->labels[i]))
			return false;
	}
	for (i = 0; i < b->nr_fields; i++)
		nb += pb->labels[i] != NULL;
	return na == nb;
}

static bool is_pattern(const char *func)
{
	return strpbrk(func, "*?[") != NULL;
}

/*
 * Whether the rows of specs a and b could name the same function. A
 * pattern's rows name the functions it matched, as ksyms matches them;
 * two patterns are taken to overlap, and so is a module ("mod:fn"),
 * whose rows may not spell it.
 */
static bool funcs_may_overlap(const char *a, const char *b)
{
	if (strchr(a, ':') || strchr(b, ':') || (is_pattern(a) && is_pattern(b)))
		return true;
	if (is_pattern(a))
		return !fnmatch(a, b, 0);
	if (is_pattern(b))
		return !fnmatch(b, a, 0);
	return !strcmp(a, b);
}

/* Whether a row of a and one of b could carry the very same labels. */
static bool may_share_series(const struct agg_table *a, const struct table_plan *pa,
			     const struct agg_table *b, const struct table_plan *pb)
{
	if (pa->family != pb->family || !funcs_may_overlap(a->func, b->func))
		return false;
	if (pa->family == FAM_VALUE && strcmp(a->value, b->value))
		return false;
	return same_label_names(a, pa, b, pb);
}

static void free_plans(struct table_plan *plans, struct agg_table *const *tables, int nr)
{
	int i, j;

	for (i = 0; plans && i < nr; i++) {
		for (j = 0; plans[i].labels && j < tables[i]->nr_fields; j++)
			free(plans[i].labels[j]);
		free(plans[i].labels);
	}
	free(plans);
}

static int plan_tables(struct agg_table *const *tables, int nr, struct table_plan **out)
{
	struct table_plan *plans = calloc(nr ?: 1, sizeof(*plans));
	int i, j, err = plans ? 0 : -ENOMEM;

	for (i = 0; !err && i < nr; i++)
		err = tables[i] ? plan_table(tables[i], i + 1, &plans[i]) : -EINVAL;
	if (err) {
		free_plans(plans, tables, i);
		return err;
	}
	for (i = 0; i < nr; i++) {
		for (j = i + 1; j < nr; j++) {
			if (may_share_series(tables[i], &plans[i], tables[j], &plans[j]))
				plans[i].show_spec = plans[j].show_spec = true;
		}
	}
	*out = plans;
	return 0;
}

/* ---- label values -------------------------------------------------------- */

/* The length of the valid UTF-8 sequence at s, or 0 when it is not one. */
static int utf8_len(const unsigned char *s)
{
	uint32_t cp;
	int n, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	/* A NUL ends the loop too: it is no continuation byte. */
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

static void put_escaped(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ?: "");
	int n;

	while (*p) {
		n = utf8_len(p);
		if (!n) {
			fputs("\xef\xbf\xbd", out); /* U+FFFD for the byte */
			p++;
		} else if (*p == '\\' || *p == '"') {
			fputc('\\', out);
			fputc(*p++, out);
		} else if (*p == '\n') {
			fputs("\\n", out);
			p++;
		} else {
			fwrite(p, 1, n, out);
			p += n;
		}
	}
}

/* Frames come innermost first; the label reads outermost first. */
static void put_stack(FILE *out, const struct agg_val *v)
{
	int i;

	for (i = v->nr_frames - 1; v->frames && i >= 0; i--) {
		put_escaped(out, v->frames[i]);
		if (i)
			fputc(';', out);
	}
}

void prom_put_label(FILE *out, const char *name, const char *value)
{
	fprintf(out, "%s=\"", name);
	put_escaped(out, value);
	fputc('"', out);
}

/* The cgroup's path, and the container and pod it names, if any. */
static void put_cgroup(FILE *out, const char *name, const char *path)
{
	char id[CGROUP_NAME_MAX], pod[CGROUP_POD_MAX];

	prom_put_label(out, name, path);
	if (!cgroup_container(path, id, pod))
		return;
	fputc(',', out);
	prom_put_label(out, LABEL_CONTAINER, id);
	if (!pod[0])
		return;
	fputc(',', out);
	prom_put_label(out, LABEL_POD, pod);
}

/* func, spec, value and the key labels, without braces. */
static void put_row_labels(FILE *out, const struct agg_table *t, const struct table_plan *plan,
			   const struct agg_row *row)
{
	int i;

	prom_put_label(out, LABEL_FUNC,
		       plan->func_field >= 0 ? row->key[plan->func_field].text : t->func);
	if (plan->show_spec)
		fprintf(out, "," LABEL_SPEC "=\"%d\"", plan->spec);
	if (plan->family == FAM_VALUE) {
		fputc(',', out);
		prom_put_label(out, LABEL_VALUE, t->value);
	}
	for (i = 0; i < t->nr_fields; i++) {
		if (!plan->labels[i])
			continue;
		fputc(',', out);
		if (t->fields[i].kind == AGG_F_CGROUP) {
			put_cgroup(out, plan->labels[i], row->key[i].text);
			continue;
		}
		if (!agg_field_is_stack(t->fields[i].kind)) {
			prom_put_label(out, plan->labels[i], row->key[i].text);
			continue;
		}
		fprintf(out, "%s=\"", plan->labels[i]);
		put_stack(out, &row->key[i]);
		fputc('"', out);
	}
	if (row->folded)
		fputs("," LABEL_FOLDED "=\"true\"", out);
}

/* ---- numbers ------------------------------------------------------------- */

/* A decimal __int128 with its sign and point: 39 digits at most. */
#define DECIMAL_MAX 64

/* v / 10^decimals in buf, exactly, without trailing zeros: 1999 and 9 -> "0.000001999". */
static const char *fmt_decimal(char buf[DECIMAL_MAX], __int128 v, int decimals)
{
	unsigned __int128 u = v < 0 ? -(unsigned __int128)v : (unsigned __int128)v;
	char digits[48], *p = buf; /* 39 digits, or NS_DECIMALS + 1 */
	int n = 0, low = 0, i;

	do {
		digits[n++] = '0' + (char)(u % 10);
		u /= 10;
	} while (u);
	while (n <= decimals)
		digits[n++] = '0';
	while (low < decimals && digits[low] == '0')
		low++;
	if (v < 0)
		*p++ = '-';
	for (i = n - 1; i >= decimals; i--)
		*p++ = digits[i];
	if (low < decimals)
		*p++ = '.';
	for (i = decimals - 1; i >= low; i--)
		*p++ = digits[i];
	*p = '\0';
	return buf;
}

/*
 * The end of bucket idx, the first value past it (in the table's unit),
 * in *high; false for the last linear bucket, which has none.
 */
static bool bucket_high(const struct agg_layout *l, int idx, __int128 *high)
{
	if (l->scale == AGG_LOG2) {
		/* 0: negative; 1: [0]; k: [2^(k-2), 2^(k-1)) */
		*high = idx ? (__int128)1 << (idx - 1) : 0;
		return true;
	}
	if (idx >= l->nr_buckets - 1)
		return false;
	/* 0: below lo; i: [lo + (i-1) * step, lo + i * step) */
	*high = (__int128)l->lo + (__int128)idx * l->step;
	return true;
}

/* ---- families ------------------------------------------------------------ */

void prom_put_header(FILE *out, const char *name, const char *type, const char *help)
{
	const char *p;

	fprintf(out, "# HELP %s ", name);
	/* The format escapes only these two in HELP. */
	for (p = help; *p; p++) {
		if (*p == '\\' || *p == '\n')
			fputs(*p == '\n' ? "\\n" : "\\\\", out);
		else
			fputc(*p, out);
	}
	fprintf(out, "\n# TYPE %s %s\n", name, type);
}

static void put_count_rows(FILE *out, const struct agg_table *t, const struct table_plan *plan)
{
	int i;

	for (i = 0; i < t->nr_rows; i++) {
		fprintf(out, "%s{", plan->name);
		put_row_labels(out, t, plan, &t->rows[i]);
		fprintf(out, "} %" PRIu64 "\n", t->rows[i].count);
	}
}

static void put_bucket(FILE *out, const struct agg_table *t, const struct table_plan *plan,
		       const struct agg_row *row, const char *le, uint64_t cum)
{
	fprintf(out, "%s_bucket{", plan->name);
	put_row_labels(out, t, plan, row);
	fprintf(out, ",le=\"%s\"} %" PRIu64 "\n", le, cum);
}

/* The sample line's name and labels: NAME_suffix{...} */
static void put_hist_series(FILE *out, const struct agg_table *t, const struct table_plan *plan,
			    const struct agg_row *row, const char *suffix)
{
	fprintf(out, "%s_%s{", plan->name, suffix);
	put_row_labels(out, t, plan, row);
	fputs("} ", out);
}

static void put_hist_row(FILE *out, const struct agg_table *t, const struct table_plan *plan,
			 const struct agg_row *row)
{
	int decimals = plan->family == FAM_LATENCY ? NS_DECIMALS : 0;
	char num[DECIMAL_MAX];
	uint64_t cum = 0;
	__int128 high, sum;
	int i;

	for (i = 0; i < t->layout.nr_buckets; i++) {
		cum += row->buckets[i];
		if (!bucket_high(&t->layout, i, &high))
			continue;
		if (t->layout.scale == AGG_LOG2 && i == 0 && !row->is_signed)
			continue;
		/* The largest value in it: integers, or nanoseconds truncated to the unit. */
		fmt_decimal(num, high * plan->ns_per_unit - 1, decimals);
		put_bucket(out, t, plan, row, num, cum);
	}
	put_bucket(out, t, plan, row, "+Inf", cum);
	sum = row->is_signed ? (__int128)row->sum : (__int128)(uint64_t)row->sum;
	put_hist_series(out, t, plan, row, "sum");
	fprintf(out, "%s\n", fmt_decimal(num, sum * plan->ns_per_unit, decimals));
	put_hist_series(out, t, plan, row, "count");
	fprintf(out, "%" PRIu64 "\n", cum);
}

static void put_family(FILE *out, enum prom_family fam, struct agg_table *const *tables, int nr,
		       const struct table_plan *plans, const char *help)
{
	bool any = false;
	int i, r;

	for (i = 0; i < nr; i++) {
		if (plans[i].family != fam)
			continue;
		if (!any)
			prom_put_header(out, plans[i].name, families[fam].type,
					help ?: families[fam].help);
		any = true;
		if (fam == FAM_CALLS) {
			put_count_rows(out, tables[i], &plans[i]);
			continue;
		}
		for (r = 0; r < tables[i]->nr_rows; r++)
			put_hist_row(out, tables[i], &plans[i], &tables[i]->rows[r]);
	}
}

static void put_drops(FILE *out, const struct agg_drops *drops)
{
	int i;

	prom_put_header(out, DROPS_NAME, "counter", DROPS_HELP);
	for (i = 0; drops && drops->names && drops->counts && i < drops->nr; i++) {
		fputs(DROPS_NAME "{", out);
		prom_put_label(out, "reason", drops->names[i]);
		fprintf(out, "} %" PRIu64 "\n", drops->counts[i]);
	}
}

static int flushed(FILE *out)
{
	if (fflush(out) == EOF || ferror(out))
		return errno > 0 ? -errno : -EIO;
	return 0;
}

int prom_write(FILE *out, struct agg_table *const *tables, int nr, const struct agg_drops *drops)
{
	struct table_plan *plans;
	int fam, err;

	if (nr < 0 || (nr && !tables))
		return -EINVAL;
	err = plan_tables(tables, nr, &plans);
	if (err)
		return err;
	for (fam = 0; fam < NR_FAMILIES; fam++)
		put_family(out, fam, tables, nr, plans, NULL);
	put_drops(out, drops);
	free_plans(plans, tables, nr);
	return flushed(out);
}

int prom_write_named(FILE *out, const char *name, const char *help, struct agg_table *const *tables,
		     int nr)
{
	struct table_plan *plans;
	int i, err;

	if (nr < 1 || !tables)
		return -EINVAL;
	err = plan_tables(tables, nr, &plans);
	if (err)
		return err;
	for (i = 0; i < nr; i++) {
		if (plans[i].family != plans[0].family)
			err = -EINVAL;
		plans[i].name = name;
	}
	if (!err)
		put_family(out, plans[0].family, tables, nr, plans, help);
	free_plans(plans, tables, nr);
	return err ?: flushed(out);
}

/* ---- the textfile -------------------------------------------------------- */

/* DIR/.NAME.XXXXXX beside DIR/NAME: hidden, and not *.prom, so the collector skips it. */
static char *temp_path(const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	int dir_len = slash ? (int)(slash - path + 1) : 0;
	char *tmp;

	if (asprintf(&tmp, "%.*s.%s.XXXXXX", dir_len, path, base) < 0)
		return NULL;
	return tmp;
}

static int write_temp(int fd, prom_render_fn render, void *ctx)
{
	FILE *f;
	int err;

	f = fdopen(fd, "w");
	if (!f) {
		err = -errno;
		close(fd);
		return err;
	}
	err = render(ctx, f);
	if (!err && fsync(fileno(f)))
		err = -errno;
	if (fclose(f) && !err)
		err = -errno;
	return err;
}

static int names_dir(const char *path)
{
	char clip[CLIP_BUF];

	p_err("--textfile '%s': names a directory, not a file", str_clip(path, clip));
	return -EISDIR;
}

/* The temporary file beside path, open in *fd, its name in *tmp; or -errno after saying why. */
static int create_temp(const char *path, char **tmp, int *fd)
{
	const char *slash = strrchr(path, '/');
	char clip[CLIP_BUF];
	int err;

	if (!*path || (slash && !slash[1]))
		return names_dir(path);
	if (strnlen(path, PATH_MAX) >= PATH_MAX) {
		p_err("--textfile '%s': the path is too long", str_clip(path, clip));
		return -ENAMETOOLONG;
	}
	*tmp = temp_path(path);
	if (!*tmp) {
		p_err("--textfile '%s': out of memory", str_clip(path, clip));
		return -ENOMEM;
	}
	*fd = outfile_temp(*tmp, path);
	if (*fd < 0) {
		err = *fd;
		p_err("--textfile '%s': cannot create a file beside it: %s", str_clip(path, clip),
		      strerror(-err));
		free(*tmp);
		return err;
	}
	return 0;
}

int prom_textfile_check(const char *path)
{
	struct stat st;
	char *tmp;
	int fd, err;

	/* Only rename(2) would find it, once every probe is attached. */
	if (!stat(path, &st) && S_ISDIR(st.st_mode))
		return names_dir(path);
	err = create_temp(path, &tmp, &fd);
	if (err)
		return err;
	close(fd);
	unlink(tmp);
	free(tmp);
	return 0;
}

int prom_textfile_render(const char *path, prom_render_fn render, void *ctx)
{
	char clip[CLIP_BUF], *tmp;
	int fd, err = create_temp(path, &tmp, &fd);

	if (err)
		return err;
	err = write_temp(fd, render, ctx);
	if (!err && rename(tmp, path))
		err = -errno;
	if (err) {
		unlink(tmp);
		p_err("--textfile '%s': cannot write it: %s", str_clip(path, clip), strerror(-err));
	}
	free(tmp);
	return err;
}

struct tables_ctx {
	struct agg_table *const *tables;
	int nr;
	const struct agg_drops *drops;
};

static int render_tables(void *ctx, FILE *out)
{
	struct tables_ctx *t = ctx;

	return prom_write(out, t->tables, t->nr, t->drops);
}

int prom_textfile_write(const char *path, struct agg_table *const *tables, int nr,
			const struct agg_drops *drops)
{
	struct tables_ctx t = { tables, nr, drops };

	return prom_textfile_render(path, render_tables, &t);
}
