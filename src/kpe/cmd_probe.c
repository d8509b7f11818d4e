// SPDX-License-Identifier: GPL-2.0
/*
 * ksnoop probe DEF... [--filter EXPR]: tracefs kprobe_events definitions
 * run through BPF, printed in the kernel's trace format. Nothing is
 * written to tracefs, so this works where kprobe_events is missing,
 * read-only or forbidden.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "trace/backend.h"
#include "lib/bpfutil.h"
#include "env.h"
#include "kpe/compile.h"
#include "lib/kcore.h"
#include "kpe/filter.h"
#include "kpe/output.h"
#include "kpe/parse.h"
#include "lib/ksyms.h"
#include "lib/opts.h"
#include "lib/ring.h"
#include "lib/util.h"
#include "kpe.skel.h"
#include "lib/btfcheck.h"
#include "lib/json_writer.h"
#include "lib/kbtf.h"

_Static_assert(KPE_KSTACK_MAX == KSNOOP_KSTACK_MAX, "probe and trace take stacks alike");
_Static_assert(KPE_DROP_NR <= RING_MAX_DROP_REASONS, "the ring loop reads every reason");

/* A --filter and the definition it follows (-1: before any, so all). */
struct filter_arg {
	int def;
	const char *text;
};

struct kpe_session {
	struct env *env;
	const char **defs;
	int nr_defs;
	struct kpe_def *parsed; /* defs[], parsed before anything is read */
	struct filter_arg *filters;
	int nr_filters;
	struct kbtf *kb;
	struct ksyms *syms;
	struct kpe_probe *probes;
	int nr;
	struct kpe_bpf *skel;
	struct bpf_link **links; /* nr probes', then nr entry halves' (or NULL) */
	__u64 missed_at_detach;	 /* what the kernel skipped, kept as the links go */
	bool detached;
	struct ring_loop *ring;
	struct strbuf line;
	struct strbuf scratch; /* -j: a field's text */
	bool check;	       /* --check: verdicts only, nothing loads */
};

static void probe_usage(FILE *f, const char *prog)
{
	fprintf(f,
		"Usage: %s probe [OPTIONS] DEF [DEF...]\n"
		"\n"
		"DEF is a tracefs kprobe_events definition (one argument each):\n"
		"  p[:[GRP/]EVENT] [MOD:]SYM[+offs]|MEMADDR [FETCHARGS]\n"
		"  r[MAXACTIVE][:[GRP/]EVENT] [MOD:]SYM[+0] [FETCHARGS]\n"
		"  f[:[GRP/]EVENT] [MOD:]SYM[%%return] [FETCHARGS]\n"
		"  t[:[GRP/]EVENT] TRACEPOINT [FETCHARGS]\n"
		"  e[:[GRP/]EVENT] SYSTEM.EVENT [FETCHARGS]\n"
		"FETCHARG := [NAME=]%%REG|@ADDR|@SYM[+|-offs]|$stackN|$stack|$argN|$arg*\n"
		"            |$retval[->member]|$comm|$FIELD|+|-[u]OFFS(FETCHARG)|\\IMM\n"
		"            |BTFARG[:TYPE]\n"
		"\n"
		"OPTIONS:\n"
		"  -f, --filter EXPR   event filter for the DEF before it (all DEFs when first)\n"
		"  -p, --pid PID       only this process (all its threads)\n"
		"  -P, --pages N       ring buffer pages per CPU (default: 64 MiB in all,\n"
		"                      or %d pages per CPU where that is more)\n"
		"      --kstack        the kernel stack under each event, one frame a line\n"
		"      --kstack-depth N  at most N frames of it (1-%d, default %d; implies --kstack)\n"
		"      --btf FILE      this kernel's BTF from a file (a kernel built without it)\n"
		"      --check         check each DEF on its own against this kernel and print\n"
		"                      its verdict; nothing is loaded or attached\n"
		"  -j, --json          each event as a JSON object (see ksnoop(8))\n"
		"  -d, --debug         print debug output, including libbpf's\n"
		"  -h, --help          show this help and exit\n"
		"See ksnoop-probe(8).\n",
		prog, KSNOOP_DEFAULT_PAGES, KSNOOP_KSTACK_MAX, KSNOOP_KSTACK_MAX);
}

static int add_filter(void *ctx, const char *text)
{
	struct kpe_session *s = ctx;
	struct filter_arg *f = realloc(s->filters, (s->nr_filters + 1) * sizeof(*f));

	if (!f)
		return -ENOMEM;
	s->filters = f;
	f[s->nr_filters].def = s->nr_defs - 1;
	f[s->nr_filters++].text = text;
	return 0;
}

/* s->defs has room for every word of the command line. */
static int add_def(void *ctx, const char *def)
{
	struct kpe_session *s = ctx;

	s->defs[s->nr_defs++] = def;
	return 0;
}

static int set_pid(void *ctx, const char *arg)
{
	return env_add_pid(((struct kpe_session *)ctx)->env, arg);
}

static int set_pages(void *ctx, const char *arg)
{
	return env_set_pages(((struct kpe_session *)ctx)->env, arg);
}

static int set_debug(void *ctx, const char *arg)
{
	return env_set_debug(((struct kpe_session *)ctx)->env, arg);
}

static int set_json(void *ctx, const char *arg)
{
	return env_set_json(((struct kpe_session *)ctx)->env, arg);
}

static int set_kstack(void *ctx, const char *arg)
{
	return env_set_kstack(((struct kpe_session *)ctx)->env, arg);
}

static int set_kstack_depth(void *ctx, const char *arg)
{
	return env_set_kstack_depth(((struct kpe_session *)ctx)->env, arg);
}

static int set_btf(void *ctx, const char *arg)
{
	((struct kpe_session *)ctx)->env->btf_path = arg;
	return 0;
}

static void help(void *ctx)
{
	probe_usage(stdout, ((struct kpe_session *)ctx)->env->prog_name);
}

static const struct opt probe_table[] = {
	OPT_CALL("filter", 'f', true, add_filter),
	OPT_CALL("pid", 'p', true, set_pid),
	OPT_CALL("pages", 'P', true, set_pages),
	OPT_CALL("debug", 'd', false, set_debug),
	OPT_CALL("json", 'j', false, set_json),
	OPT_CALL("kstack", 0, false, set_kstack),
	OPT_CALL("kstack-depth", 0, true, set_kstack_depth),
	OPT_CALL("btf", 0, true, set_btf),
	OPT_FLAG("check", 0, struct kpe_session, check),
	{},
};

/* Options and definitions in order: a --filter belongs to the DEF before it. */
static const struct opts_spec probe_opts = {
	.opts = probe_table,
	.mode = OPTS_IN_ORDER,
	.cmd = "probe",
	.help = help,
	.operand = add_def,
};

/* 0, OPTS_HELP, or -errno once it said why. */
static int parse_args(struct kpe_session *s, int argc, char **argv)
{
	struct opts_rest rest;
	int err;

	s->defs = calloc(argc + 1, sizeof(*s->defs));
	if (!s->defs)
		return -ENOMEM;
	err = opts_parse(&probe_opts, s, argc, argv, &rest);
	if (!err && !s->nr_defs) {
		p_err("probe needs at least one kprobe_events definition");
		err = -EINVAL;
	} else if (!err && s->nr_defs > KPE_MAX_DEFS && !s->check) {
		p_err("at most %d definitions at once", KPE_MAX_DEFS);
		err = -E2BIG;
	}
	return err;
}

static void report(const char *what, const char *text, const struct kpe_error *e)
{
	char clip[CLIP_BUF];

	p_err("invalid %s '%s': %s (at offset %d)", what, str_clip(text, clip), e->msg, e->pos);
	if (!util_json())
		kpe_print_caret("Command", text, e->pos);
}

static void open_sources(struct kpe_session *s)
{
	int err = 0;

	/* Both are optional: without them only plain definitions work. */
	/* A damaged one counts as missing: say why only with -d. */
	util_mute(true);
	s->kb = s->env->btf_path ? NULL : kbtf__new(NULL, &err);
	util_mute(false);
	if (s->env->btf_path)
		s->kb = kbtf__open(s->env->btf_path);
	else if (!s->kb)
		p_dbg("no kernel BTF (%s): BTF arguments are unavailable", strerror(-err));
	s->syms = ksyms__load_all(NULL);
	if (!s->syms)
		p_dbg("cannot read /proc/kallsyms (%s): probe points are not checked",
		      strerror(errno));
}

/* --btf FILE: this kernel's, or nothing attaches. */
static int check_btf_file(const struct kpe_session *s)
{
	if (!s->env->btf_path)
		return 0;
	if (!s->kb || !s->syms) {
		if (s->kb)
			p_err("--btf is checked against /proc/kallsyms, which cannot be read");
		return -EINVAL;
	}
	return btf_check_running(kbtf__vmlinux(s->kb), s->syms, s->env->btf_path);
}

/* Two definitions of one event must agree on its fields, as tracefs wants. */
static int check_same_event(const struct kpe_session *s, int i)
{
	const struct kpe_probe *p = &s->probes[i], *q;
	int j, k;

	for (j = 0; j < i; j++) {
		q = &s->probes[j];
		if (strcmp(p->group, q->group) || strcmp(p->event, q->event))
			continue;
		for (k = 0; p->nr_fields == q->nr_fields && k < p->nr_fields; k++) {
			if (strcmp(p->fields[k].name, q->fields[k].name) ||
			    memcmp(&p->fields[k].type, &q->fields[k].type,
				   sizeof(p->fields[k].type)))
				break;
		}
		if (k != p->nr_fields || p->nr_fields != q->nr_fields ||
		    p->is_return != q->is_return) {
			p_err("'%s/%s' is defined twice: Argument type or name is different from existing probe",
			      p->group, p->event);
			return -EINVAL;
		}
	}
	return 0;
}

/* Linux 6.6 and later type $argN and $retval from BTF in probe events. */
static bool kernel_btf_probe_args(void)
{
	struct utsname u;
	int major, minor;

	if (uname(&u) || sscanf(u.release, "%d.%d", &major, &minor) != 2)
		return true;
	return major > 6 || (major == 6 && minor >= 6);
}

/*
 * Syntax first: a malformed definition is refused before BTF and kallsyms
 * are read, which takes seconds on a slow machine.
 */
static int parse_defs(struct kpe_session *s)
{
	const struct kpe_limits *lim = kpe_limits_running();
	struct kpe_error e;
	int i, err = 0;

	s->parsed = calloc(s->nr_defs, sizeof(*s->parsed));
	if (!s->parsed)
		return -ENOMEM;
	for (i = 0; i < s->nr_defs && !err; i++) {
		err = kpe_parse_def_with(s->defs[i], lim, &s->parsed[i], &e);
		if (err == -EINVAL)
			report("definition", s->defs[i], &e);
	}
	return err;
}

/*
 * Where ftrace calls out of fn: the address available_filter_functions_addrs
 * (6.5 and on) gives it; 0 without.
 */
static uint64_t ftrace_site(const char *fn)
{
	const char *tracefs = bpfutil_tracefs();
	unsigned long long addr = 0, a;
	char path[PATH_MAX], line[512], name[256];
	FILE *f;

	if (!tracefs)
		return 0;
	snprintf(path, sizeof(path), "%s/available_filter_functions_addrs", tracefs);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (!addr && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %255s", &a, name) == 2 && !strcmp(name, fn))
			addr = a;
	}
	fclose(f);
	return addr;
}

/*
 * t: the kernel's tracepoint probes are fprobes on the tracepoint's
 * __probestub_TP and print where ftrace enters it; a raw tracepoint has
 * no address of its own, so the event line shows the kernel's.
 */
static int tprobe_location(struct kpe_session *s, struct kpe_probe *p)
{
	uint64_t addr = 0, start, size, site;
	const char *mod = NULL;

	if (s->syms && !ksyms__restricted(s->syms) && !ksyms__addr_of(s->syms, p->func, &addr) &&
	    ksyms__find(s->syms, addr, &start, &size, &mod)) {
		site = ftrace_site(p->func);
		if (site < start || site >= start + size)
			site = start;
		if (asprintf(&p->loc, "%s+0x%llx/0x%llx", p->func,
			     (unsigned long long)(site - start), (unsigned long long)size) < 0)
			p->loc = NULL;
	} else {
		p->loc = strdup(p->attach);
	}
	return p->loc ? 0 : -ENOMEM;
}

static int compile_defs(struct kpe_session *s)
{
	struct kpe_ctx ctx = { .kb = s->kb,
			       .syms = s->syms,
			       .btf_probe_args = kernel_btf_probe_args(),
			       .tracefs = bpfutil_tracefs(),
			       .read_text = kcore_read };
	struct kpe_error e;
	int i, err = 0;

	s->probes = calloc(s->nr_defs, sizeof(*s->probes));
	if (!s->probes)
		return -ENOMEM;
	for (i = 0; i < s->nr_defs && !err; i++) {
		s->nr = i + 1;
		err = kpe_compile(&ctx, &s->parsed[i], &s->probes[i], &e);
		if (err == -EINVAL)
			report("definition", s->defs[i], &e);
		if (!err && s->probes[i].kind == 't')
			err = tprobe_location(s, &s->probes[i]);
		if (!err)
			err = check_same_event(s, i);
	}
	return err;
}

static int apply_filters(struct kpe_session *s)
{
	struct kpe_error e;
	int i, j;

	for (i = 0; i < s->nr_filters; i++) {
		const struct filter_arg *f = &s->filters[i];

		for (j = 0; j < s->nr; j++) {
			if (f->def >= 0 && f->def != j)
				continue;
			if (kpe_filter_compile(&s->probes[j], f->text, &e)) {
				char clip[CLIP_BUF];

				p_err("invalid filter '%s' for %s/%s: %s (at offset %d)",
				      str_clip(f->text, clip), s->probes[j].group,
				      s->probes[j].event, e.msg, e.pos);
				if (!util_json())
					kpe_print_caret("Filter", f->text, e.pos);
				return -EINVAL;
			}
		}
	}
	return 0;
}

/* A return probe that keeps entry arguments, or its return address, at entry. */
static bool entry_half(const struct kpe_probe *p)
{
	return p->cfg->nr_eargs || (p->cfg->flags & KPE_DEF_ENTRY_RA);
}

/*
 * Before 5.13 a kretprobe's handler runs with ip at the trampoline, whose
 * name 5.15 changed: the return address is kept at entry there.
 */
static void mark_entry_ra(struct kpe_session *s)
{
	uint64_t addr;
	int i;

	if (!s->syms || ksyms__addr_of(s->syms, "kretprobe_trampoline", &addr))
		return;
	for (i = 0; i < s->nr; i++) {
		if (s->probes[i].is_return && s->probes[i].kind != 't' && s->probes[i].kind != 'e')
			s->probes[i].cfg->flags |= KPE_DEF_ENTRY_RA;
	}
}

/* Definition i's copy of its kind's program; for a kprobe's entry half, entry_half. */
static struct bpf_program *copy_prog(const struct kpe_session *s, const struct kpe_probe *p,
				     bool entry_half)
{
	char name[32];
	char kind = p->kind == 't' || p->kind == 'e' ? p->kind : 'k';

	snprintf(name, sizeof(name), "kpe_%cprobe%d", kind,
		 entry_half ? p->entry_slot : p->prog_slot);
	return bpf_object__find_program_by_name(s->skel->obj, name);
}

/*
 * Each definition gets a copy of its kind's program, told its definition
 * in .rodata (kpe.bpf.c says why); only those copies load, each a
 * verification of its own.
 */
static int select_programs(struct kpe_session *s)
{
	struct kpe_bpf__rodata *ro = s->skel->rodata;
	int i, nr_k = 0, nr_e = 0, nr_t = 0;
	struct bpf_program *prog;

	bpf_object__for_each_program(prog, s->skel->obj)
		bpf_program__set_autoload(prog, false);
	for (i = 0; i < s->nr; i++) {
		struct kpe_probe *p = &s->probes[i];

		if (p->kind == 't' && nr_t >= KPE_MAX_TPROBES) {
			p_err("%s/%s: at most %d tracepoint probes (t) run in one ksnoop probe",
			      p->group, p->event, KPE_MAX_TPROBES);
			return -E2BIG;
		}
		if (p->kind == 't') {
			p->prog_slot = nr_t++;
			ro->tprobe_def[p->prog_slot] = i;
		} else if (p->kind == 'e') {
			p->prog_slot = nr_e++;
			ro->eprobe_def[p->prog_slot] = i;
		} else {
			if (entry_half(p)) {
				p->entry_slot = nr_k++;
				ro->kprobe_def[p->entry_slot] = i | KPE_PROG_ENTRY;
				bpf_program__set_autoload(copy_prog(s, p, true), true);
			}
			p->prog_slot = nr_k++;
			ro->kprobe_def[p->prog_slot] = i;
		}
		bpf_program__set_autoload(copy_prog(s, p, false), true);
	}
	_Static_assert(KPE_MAX_KPROBES >= 2 * KPE_MAX_DEFS, "a definition and its entry half each");
	_Static_assert(KPE_MAX_EPROBES >= KPE_MAX_DEFS, "every definition");
	return 0;
}

static bool wants_entry_halves(const struct kpe_session *s)
{
	int i;

	for (i = 0; i < s->nr; i++) {
		if (entry_half(&s->probes[i]))
			return true;
	}
	return false;
}

static int load_bpf(struct kpe_session *s)
{
	int nr_cpus = libbpf_num_possible_cpus(), err, fd, i;
	__u8 one = 1;

	mark_entry_ra(s);
	s->skel = kpe_bpf__open();
	if (!s->skel || nr_cpus <= 0) {
		p_err("cannot open the kprobe_events BPF object: %s", strerror(errno));
		return -EINVAL;
	}
	err = select_programs(s);
	if (err)
		return err;
	s->skel->rodata->filter_tgid = s->env->nr_pids > 0;
	/* kprobes unwind from the probed registers: no hidden frames to ask for. */
	s->skel->rodata->kstack_bytes = 8 * s->env->kstack_depth;
	err = bpf_map__set_max_entries(s->skel->maps.kpe_events,
				       ringbuf_size_unplanned(s->env->pages, nr_cpus));
	if (!err && !wants_entry_halves(s))
		err = bpf_map__set_max_entries(s->skel->maps.kpe_frames, 1);
	if (!err)
		err = kpe_bpf__load(s->skel);
	if (err) {
		p_err("cannot load the kprobe_events BPF program: %s%s", strerror(-err),
		      err == -EACCES ? " (the verifier refused it; -d shows its log)"
				     : bpfutil_perm_hint(err));
		return err;
	}
	fd = bpf_map__fd(s->skel->maps.kpe_defs);
	for (i = 0; i < s->nr; i++) {
		__u32 key = i;

		if (bpf_map_update_elem(fd, &key, s->probes[i].cfg, BPF_ANY))
			return -errno;
	}
	fd = bpf_map__fd(s->skel->maps.kpe_tgids);
	for (i = 0; i < s->env->nr_pids; i++) {
		__u32 tgid = s->env->pids[i];

		if (bpf_map_update_elem(fd, &tgid, &one, BPF_ANY))
			return -errno;
	}
	return 0;
}

/*
 * Whether an offset into a function falls on an instruction only the
 * kernel knows: it registers a kprobe there, for a moment and with no
 * program, and refuses one inside an instruction as tracefs does. So
 * such a definition is refused before anything attaches, at its probe
 * point as tracefs points. Other errors are left to attaching, which
 * explains them (privileges, a missing kprobe PMU).
 */
static int check_probe_points(const struct kpe_session *s)
{
	struct kpe_error e;
	int i, fd;

	for (i = 0; i < s->nr; i++) {
		const struct kpe_probe *p = &s->probes[i];

		if (!p->offset || p->is_return || p->kind == 't' || p->kind == 'e')
			continue;
		fd = bpfutil_kprobe_open(p->attach, p->offset, false);
		if (fd >= 0)
			close(fd);
		if (fd != -EILSEQ && fd != -EINVAL)
			continue;
		e.pos = s->parsed[i].sym_pos;
		snprintf(e.msg, sizeof(e.msg), "%s",
			 fd == -EILSEQ ? "Probe point is not an instruction boundary"
				       : "Failed to register probe event");
		report("definition", s->defs[i], &e);
		return -EINVAL;
	}
	return 0;
}

/* Why attaching failed, in the words the rest of ksnoop uses. */
static void attach_error(struct strbuf *sb, const struct kpe_probe *p, int err)
{
	if (err == -EILSEQ)
		sb_printf(sb, "Probe point is not an instruction boundary (EILSEQ)");
	else if (err == -EADDRNOTAVAIL)
		sb_printf(sb, "The symbol is not unique (EADDRNOTAVAIL)");
	else
		bpfutil_explain(sb, p->is_return ? "kretprobe" : "kprobe", BPFUTIL_ATTACH, err);
}

/* t: a raw tracepoint; e: the attached event, a perf tracepoint. */
static int attach_tracepoint(struct kpe_session *s, int i)
{
	const struct kpe_probe *p = &s->probes[i];
	struct strbuf why;
	int err;

	if (p->kind == 't')
		s->links[i] = bpf_program__attach_raw_tracepoint(copy_prog(s, p, false), p->attach);
	else
		s->links[i] = bpf_program__attach_tracepoint(copy_prog(s, p, false), p->system,
							     p->attach);
	if (s->links[i])
		return 0;
	err = -errno;
	sb_init(&why);
	if (p->kind == 'e' && (err == -EINVAL || err == -EOPNOTSUPP))
		sb_printf(&why,
			  "%s is a dynamic event; an event probe run by BPF attaches to "
			  "the kernel's own trace events",
			  p->func);
	else
		bpfutil_explain(&why, p->kind == 't' ? "raw tracepoint" : "tracepoint",
				BPFUTIL_ATTACH, err);
	p_err("cannot attach %s/%s to %s: %s", p->group, p->event, p->func, sb_str(&why));
	sb_free(&why);
	return err;
}

/* One kprobe of definition i: its own, or its entry half (entry_half). */
static int attach_one(struct kpe_session *s, int i, bool entry_half)
{
	const struct kpe_probe *p = &s->probes[i];
	bool ret = p->is_return && !entry_half;
	LIBBPF_OPTS(bpf_kprobe_opts, opts, .offset = p->offset, .retprobe = ret);
	struct bpf_link **link = &s->links[entry_half ? s->nr + i : i];
	struct strbuf why;
	int err;

	*link = bpf_program__attach_kprobe_opts(copy_prog(s, p, entry_half), p->attach, &opts);
	if (*link) {
		p_dbg("%s/%s: %s at %s+%llu%s", p->group, p->event, ret ? "kretprobe" : "kprobe",
		      p->attach, p->offset, entry_half ? " (entry values for the return)" : "");
		return 0;
	}
	err = -errno;
	sb_init(&why);
	attach_error(&why, p, err);
	p_err("cannot attach %s/%s at %s+%llu: %s", p->group, p->event, p->attach, p->offset,
	      sb_str(&why));
	sb_free(&why);
	return err;
}

static int attach_all(struct kpe_session *s)
{
	bool warned = false;
	int i, err;

	s->links = calloc(2 * s->nr, sizeof(*s->links));
	if (!s->links)
		return -ENOMEM;
	for (i = 0; i < s->nr; i++) {
		const struct kpe_probe *p = &s->probes[i];

		/* libbpf 1.1 attaches through the perf kprobe PMU: no maxactive. */
		if (p->maxactive && !warned) {
			p_warn("r%d: MAXACTIVE cannot be set through BPF; the kernel's default applies",
			       p->maxactive);
			warned = true;
		}
		if (p->kind == 't' || p->kind == 'e') {
			err = attach_tracepoint(s, i);
			if (err)
				return err;
			continue;
		}
		/*
		 * The entry half first: no return of a call it did not see.
		 * Except where it keeps the return address: a kretprobe swaps
		 * it for the trampoline's on entry, and of the probes on one
		 * address the kernel runs the last registered first.
		 */
		if (p->cfg->flags & KPE_DEF_ENTRY_RA)
			err = attach_one(s, i, false) ?: attach_one(s, i, true);
		else
			err = (entry_half(p) ? attach_one(s, i, true) : 0)
				      ?: attach_one(s, i, false);
		if (err)
			return err;
	}
	return 0;
}

static int handle_event(void *ctx, const void *data, size_t size)
{
	struct kpe_session *s = ctx;
	const struct kpe_event *ev = data;

	if (kpe_event_validate(ev, size, s->probes, s->nr))
		return RING_MALFORMED;
	sb_reset(&s->line);
	if (util_json()) {
		kpe_json_event(&s->line, &s->scratch, &s->probes[ev->def_id], s->syms, ev,
			       s->env->kstack_depth);
	} else {
		kpe_format_event(&s->line, &s->probes[ev->def_id], s->syms, ev);
		kpe_format_kstack(&s->line, &s->probes[ev->def_id], s->syms, ev,
				  s->env->kstack_depth);
	}
	sb_putc(&s->line, '\n');
	fputs(sb_str(&s->line), stdout);
	return 0;
}

static const char *const drop_names[KPE_DROP_NR] = {
	[KPE_DROP_RINGBUF] = "ring buffer full",
	[KPE_DROP_STACK] = "kernel stack not taken",
	[KPE_DROP_KERNEL] = "calls the kernel skipped: a probe already running on the CPU",
	[KPE_DROP_NEST] = "probes nested too deep on one CPU",
};

/* What the kernel counted of the calls it made without running ours (lib/bpfutil.h). */
static __u64 kernel_missed(const struct kpe_session *s)
{
	__u64 n = bpfutil_object_missed(s->skel->obj);
	int i;

	for (i = 0; s->links && i < s->nr; i++)
		n += bpfutil_blink_missed(s->links[i]);
	return n;
}

static int read_drops(void *ctx, __u64 *drops)
{
	struct kpe_session *s = ctx;
	int fd = bpf_map__fd(s->skel->maps.kpe_drops), nr_cpus = libbpf_num_possible_cpus(), c;
	__u64 *vals = calloc(nr_cpus > 0 ? nr_cpus : 1, sizeof(*vals));
	int err = vals ? 0 : -ENOMEM;
	__u32 why;

	for (why = 0; !err && why < KPE_DROP_NR; why++) {
		if (bpf_map_lookup_elem(fd, &why, vals)) {
			err = -ENOENT;
			break;
		}
		drops[why] = 0;
		for (c = 0; c < nr_cpus; c++)
			drops[why] += vals[c];
	}
	free(vals);
	drops[KPE_DROP_KERNEL] = s->detached ? s->missed_at_detach : kernel_missed(s);
	return err;
}

static void detach_all(struct kpe_session *s);

static void detach(void *ctx)
{
	detach_all(ctx);
}

static int setup_ringbuf(struct kpe_session *s)
{
	struct ring_source src = {
		.map_fd = bpf_map__fd(s->skel->maps.kpe_events),
		.handle = handle_event,
		.read_drops = read_drops,
		.drop_names = drop_names,
		.nr_drop_reasons = ARRAY_SIZE(drop_names),
		.ring_full = KPE_DROP_RINGBUF,
		.detach = detach,
		.ctx = s,
	};

	s->ring = ring_loop__new(&src);
	if (!s->ring)
		return -ENOMEM;
	if (!isatty(STDOUT_FILENO))
		setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	/* The header of tracefs "trace"; tests wait for it. JSON has none. */
	if (!util_json())
		printf("#           TASK-PID     CPU#     TIMESTAMP  FUNCTION\n");
	fflush(stdout);
	return 0;
}

static void detach_all(struct kpe_session *s)
{
	int i;

	if (!s->detached && s->skel)
		s->missed_at_detach = kernel_missed(s);
	s->detached = true;
	for (i = 0; s->links && i < 2 * s->nr; i++) {
		bpf_link__destroy(s->links[i]);
		s->links[i] = NULL;
	}
}

static void cleanup(struct kpe_session *s)
{
	int i;

	detach_all(s);
	free(s->links);
	ring_loop__free(s->ring);
	kpe_bpf__destroy(s->skel);
	for (i = 0; i < s->nr; i++)
		kpe_probe_free(&s->probes[i]);
	free(s->probes);
	ksyms__free(s->syms);
	kbtf__free(s->kb);
	sb_free(&s->line);
	sb_free(&s->scratch);
	for (i = 0; s->parsed && i < s->nr_defs; i++)
		kpe_def_free(&s->parsed[i]);
	free(s->parsed);
	free(s->defs);
	free(s->filters);
}

/* Definition i alone, with the filters that apply to it. */
static int one_def(const struct kpe_session *all, int i, struct kpe_session *one)
{
	int k;

	*one = (struct kpe_session){ .env = all->env,
				     .defs = &all->defs[i],
				     .nr_defs = 1,
				     .kb = all->kb,
				     .syms = all->syms };
	one->filters = calloc(all->nr_filters + 1, sizeof(*one->filters));
	if (!one->filters)
		return -ENOMEM;
	for (k = 0; k < all->nr_filters; k++) {
		if (all->filters[k].def < 0 || all->filters[k].def == i)
			one->filters[one->nr_filters++] =
				(struct filter_arg){ 0, all->filters[k].text };
	}
	return 0;
}

static void print_verdict(const char *def, bool accepted)
{
	struct strbuf sb;
	struct jw w;

	if (!util_json()) {
		printf("%s: %s\n", accepted ? "accepted" : "refused", def);
	} else {
		sb_init(&sb);
		jw_init(&w, &sb);
		jw_object(&w);
		jw_kstr(&w, "definition", def);
		jw_kstr(&w, "verdict", accepted ? "accepted" : "refused");
		jw_end(&w);
		printf("%s\n", sb_str(&sb));
		sb_free(&sb);
	}
	/* after the refusal's lines on stderr, in a stream that merges both */
	fflush(stdout);
}

/* What one_def made, without what it shares with all. */
static void one_free(struct kpe_session *one)
{
	one->defs = NULL;
	one->kb = NULL;
	one->syms = NULL;
	cleanup(one);
}

/*
 * --check: each definition on its own, as probe takes it up to loading:
 * syntax, then BTF and symbols (read once, for the first that parses),
 * its filters and its probe point. Its verdict follows what refused it.
 */
static int check_each(struct kpe_session *all)
{
	struct kpe_session one;
	bool opened = false;
	int i, err = 0, refused = 0;

	for (i = 0; i < all->nr_defs && err != -ENOMEM; i++) {
		err = one_def(all, i, &one) ?: parse_defs(&one);
		if (!err && !opened) {
			opened = true;
			open_sources(all);
			/* a --btf that is not this kernel's is no definition's fault */
			if (check_btf_file(all)) {
				one_free(&one);
				return -EINVAL;
			}
		}
		one.kb = all->kb;
		one.syms = all->syms;
		if (!err)
			err = compile_defs(&one) ?: apply_filters(&one) ?: check_probe_points(&one);
		if (err != -ENOMEM)
			print_verdict(all->defs[i], !err);
		refused += !!err;
		one_free(&one);
	}
	return err == -ENOMEM ? err : refused ? -EINVAL : 0;
}

int cmd_probe(struct env *env, int argc, char **argv)
{
	struct kpe_session s = { .env = env };
	int err;

	err = parse_args(&s, argc, argv);
	if (err) {
		cleanup(&s);
		return err == OPTS_HELP ? 0 : err;
	}
	if (s.check) {
		err = check_each(&s);
		cleanup(&s);
		return err;
	}
	err = parse_defs(&s);
	if (err) {
		cleanup(&s);
		return err;
	}
	open_sources(&s);
	raise_fd_limit();
	err = check_btf_file(&s) ?: compile_defs(&s) ?: apply_filters(&s) ?: check_probe_points(&s) ?: setup_stop_signals()
		?: load_bpf(&s)
		?: attach_all(&s) ?: setup_ringbuf(&s);
	if (!err) {
		err = ring_loop__run(s.ring);
		err = ring_loop__finish(s.ring) ?: err;
	}
	cleanup(&s);
	return err;
}
