// SPDX-License-Identifier: GPL-2.0
/* The one option parser: tables in, setters called, one error wording out. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/opts.h"
#include "lib/util.h"

/* Every command has it; a table does not list it. */
static const struct opt help_opt = { .name = "help", .letter = 'h' };

enum opt_error { E_UNKNOWN, E_AMBIGUOUS, E_NO_ARG_WANTED, E_ARG_MISSING };

static const struct {
	const char *before, *after;
} opt_errors[] = {
	[E_UNKNOWN] = { "unknown option ", "" },
	[E_AMBIGUOUS] = { "ambiguous option ", "" },
	[E_NO_ARG_WANTED] = { "option ", " takes no argument" },
	[E_ARG_MISSING] = { "option ", " needs an argument" },
};

struct walk {
	const struct opts_spec *spec;
	void *ctx;
	int argc;
	char **argv;
	int i; /* the word being read */
};

/* One error line for word[0..len), the option as the user wrote it. */
static int opt_error(const struct walk *w, enum opt_error e, const char *word, size_t len)
{
	char part[CLIP_MAX + 2], clip[CLIP_BUF];

	/* one byte past CLIP_MAX is enough for str_clip to say "..." */
	if (len > CLIP_MAX + 1)
		len = CLIP_MAX + 1;
	memcpy(part, word, len);
	part[len] = '\0';
	p_err("%s'%s'%s%s%s%s%s", opt_errors[e].before, str_clip(part, clip),
	      w->spec->cmd ? " for " : "", w->spec->cmd ? w->spec->cmd : "", opt_errors[e].after,
	      w->spec->synopsis ? "; " : "", w->spec->synopsis ? w->spec->synopsis : "");
	return -EINVAL;
}

/* An option of a later command, given before it: say where it goes. */
static int misplaced(const struct walk *w, const char *word, size_t len)
{
	p_err("'%.*s' is an option of %s: put it after the command", (int)len, word,
	      w->spec->later_cmds);
	return -EINVAL;
}

static bool is_end(const struct opt *o)
{
	return !o->name && !o->letter;
}

static const struct opt *table_end(const struct opt *o)
{
	while (!is_end(o))
		o++;
	return o;
}

/* The tables' entries, then help_opt: the first after NULL, NULL after the last. */
static const struct opt *next_opt(const struct opts_spec *spec, const struct opt *o)
{
	if (o == &help_opt)
		return NULL;
	o = o ? o + 1 : spec->opts;
	if (is_end(o) && spec->more && o == table_end(spec->opts))
		o = spec->more;
	return is_end(o) ? &help_opt : o;
}

static const struct opt *find_letter(const struct opts_spec *spec, char c)
{
	const struct opt *o;

	for (o = next_opt(spec, NULL); o; o = next_opt(spec, o)) {
		if (o->letter == c)
			return o;
	}
	return NULL;
}

/*
 * Exact name, else the one it abbreviates; NULL with *ambiguous when several.
 * Among current names, or (aliases) among old spellings only.
 */
static const struct opt *find_name_of(const struct opts_spec *spec, const char *s, size_t len,
				      bool aliases, bool *ambiguous)
{
	const struct opt *o, *found = NULL;
	int nr_found = 0;

	for (o = len ? next_opt(spec, NULL) : NULL; o; o = next_opt(spec, o)) {
		if (!o->name || o->alias != aliases || strncmp(o->name, s, len))
			continue;
		if (!o->name[len]) {
			nr_found = 1;
			found = o;
			break;
		}
		nr_found++;
		found = o;
	}
	*ambiguous = nr_found > 1;
	return nr_found == 1 ? found : NULL;
}

static const struct opt *find_name(const struct opts_spec *spec, const char *s, size_t len,
				   bool *ambiguous)
{
	/* an old spelling the command's own table has wins: count's --dur is its run time */
	const struct opts_spec own = { .opts = spec->opts }, shared = { .opts = spec->more };
	const struct opt *o = find_name_of(spec, s, len, false, ambiguous);

	if (o || *ambiguous)
		return o;
	o = find_name_of(&own, s, len, true, ambiguous);
	if (o || *ambiguous || !spec->more)
		return o;
	return find_name_of(&shared, s, len, true, ambiguous);
}

/* How typed values name their option: "--cpu", or "-m" without a long name. */
struct opt_label {
	char buf[3];
	const char *dashes, *name;
};

static void label_of(const struct opt *o, struct opt_label *l)
{
	l->dashes = o->name ? "--" : "-";
	l->buf[0] = o->letter;
	l->buf[1] = '\0';
	l->name = o->name ? o->name : l->buf;
}

int opts_int(const char *arg, const char *what, long long min, long long max, int *out)
{
	long long v;

	if (!parse_long(arg, min, max, &v)) {
		*out = v;
		return 0;
	}
	p_err("invalid %s '%.32s': need a number from %lld to %lld", what, arg, min, max);
	return -EINVAL;
}

static int set_int(const struct opt *o, const char *arg, int *out)
{
	struct opt_label l;
	char what[64];

	label_of(o, &l);
	snprintf(what, sizeof(what), "%s%s", l.dashes, l.name);
	return opts_int(arg, what, o->min, o->max, out);
}

static int set_duration(const struct opt *o, const char *arg, unsigned long long *out)
{
	struct opt_label l;

	if (!parse_duration_ns(arg, out) && *out)
		return 0;
	label_of(o, &l);
	p_err("invalid %s%s '%.32s': use e.g. 500ns, 20us, 5ms or 1s", l.dashes, l.name, arg);
	return -EINVAL;
}

static int apply(const struct walk *w, const struct opt *o, const char *arg)
{
	char *field = (char *)w->ctx + o->off;

	if (o == &help_opt) {
		w->spec->help(w->ctx);
		return OPTS_HELP;
	}
	switch (o->kind) {
	case OPT_K_FLAG:
		*(bool *)field = true;
		return 0;
	case OPT_K_STRING:
		*(const char **)field = arg;
		return 0;
	case OPT_K_INT:
		return set_int(o, arg, (int *)field);
	case OPT_K_DURATION:
		return set_duration(o, arg, (unsigned long long *)field);
	case OPT_K_CALL:
		break;
	}
	return o->set(w->ctx, arg);
}

/* The word after the option, which is its argument; NULL when there is none. */
static const char *next_word(struct walk *w)
{
	return w->i + 1 < w->argc ? w->argv[++w->i] : NULL;
}

/* "--name", "--name=VALUE", "--name VALUE", or a unique prefix of name. */
static int long_opt(struct walk *w)
{
	const char *word = w->argv[w->i], *s = word + 2, *eq = strchr(s, '=');
	size_t len = eq ? (size_t)(eq - s) : strlen(s);
	const struct opt *o;
	const char *arg = NULL;
	bool ambiguous;

	o = find_name(w->spec, s, len, &ambiguous);
	if (ambiguous)
		return opt_error(w, E_AMBIGUOUS, word, len + 2);
	if (!o && w->spec->later && find_name(w->spec->later, s, len, &ambiguous))
		return misplaced(w, word, len + 2);
	if (!o)
		return opt_error(w, E_UNKNOWN, word, strlen(word));
	if (!o->has_arg && eq)
		return opt_error(w, E_NO_ARG_WANTED, word, len + 2);
	if (o->has_arg) {
		arg = eq ? eq + 1 : next_word(w);
		if (!arg)
			return opt_error(w, E_ARG_MISSING, word, len + 2);
	}
	return apply(w, o, arg);
}

/* "-a", "-abc", "-pVALUE", "-p VALUE", "-abp VALUE". */
static int short_opts(struct walk *w)
{
	const char *word = w->argv[w->i], *arg;
	char letter[2] = { '-' };
	const struct opt *o;
	int ret;

	for (word++; *word; word++) {
		letter[1] = *word;
		o = find_letter(w->spec, *word);
		if (!o && w->spec->later && find_letter(w->spec->later, *word))
			return misplaced(w, letter, 2);
		if (!o)
			return opt_error(w, E_UNKNOWN, letter, 2);
		if (!o->has_arg) {
			ret = apply(w, o, NULL);
			if (ret)
				return ret;
			continue;
		}
		arg = word[1] ? word + 1 : next_word(w);
		if (!arg)
			return opt_error(w, E_ARG_MISSING, letter, 2);
		return apply(w, o, arg);
	}
	return 0;
}

/* Move the option words [w->i - n + 1, w->i] before the operands from *first. */
static void move_before_operands(struct walk *w, int *first, int n)
{
	char *opt[2];
	int k;

	for (k = 0; k < n; k++)
		opt[k] = w->argv[w->i - n + 1 + k];
	memmove(w->argv + *first + n, w->argv + *first, (w->i - n + 1 - *first) * sizeof(char *));
	for (k = 0; k < n; k++)
		w->argv[*first + k] = opt[k];
	*first += n;
}

static bool is_operand(const char *word)
{
	return word[0] != '-' || !word[1];
}

int opts_parse(const struct opts_spec *spec, void *ctx, int argc, char **argv,
	       struct opts_rest *rest)
{
	struct walk w = { .spec = spec, .ctx = ctx, .argc = argc, .argv = argv };
	int first = 0; /* where the operands begin: those seen, and those to come */
	int start, ret = 0;

	rest->dashdash = false;
	for (; w.i < argc && !ret && !rest->dashdash; w.i++) {
		if (is_operand(argv[w.i])) {
			if (spec->mode == OPTS_STOP)
				break;
			if (spec->mode == OPTS_IN_ORDER)
				ret = spec->operand(ctx, argv[w.i]);
			continue;
		}
		start = w.i;
		if (!strcmp(argv[w.i], "--"))
			rest->dashdash = true;
		else if (argv[w.i][1] == '-')
			ret = long_opt(&w);
		else
			ret = short_opts(&w);
		if (spec->mode == OPTS_PERMUTE)
			move_before_operands(&w, &first, w.i - start + 1);
		else
			first = w.i + 1;
	}
	if (spec->mode == OPTS_IN_ORDER) {
		for (; w.i < argc && !ret; w.i++)
			ret = spec->operand(ctx, argv[w.i]);
		first = argc;
	}
	rest->argc = argc - first;
	rest->argv = argv + first;
	return ret;
}

int opts_pid(const char *arg, const char *what, pid_t *pid)
{
	char clip[CLIP_BUF];
	long long v;

	if (parse_long(arg, 1, KSNOOP_PID_MAX, &v)) {
		p_err("invalid %s '%s'", what, str_clip(arg, clip));
		return -EINVAL;
	}
	*pid = v;
	return 0;
}

int opts_pages(const char *arg, int *pages)
{
	char clip[CLIP_BUF];
	long long v;

	/* The ring buffer size must be a power of two pages. */
	if (parse_long(arg, 1, 1 << 16, &v) || (v & (v - 1))) {
		p_err("invalid page count '%s': need a power of two from 1 to 65536",
		      str_clip(arg, clip));
		return -EINVAL;
	}
	*pages = v;
	return 0;
}
