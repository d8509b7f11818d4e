// SPDX-License-Identifier: GPL-2.0
/*
 * kdump --format=chrome. A CALL waits in a per-thread table for the RET
 * of its thread, gathering the NAMI, GIO and ARGS/ENV records between
 * them as arguments; the pair is then one complete event. Times count
 * from the first record, so that the viewers' doubles keep every ns.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "ktr/print_chrome.h"
#include "ktr/systab.h"
#include "lib/chrome.h"
#include "lib/json_writer.h"

#define NAMED_SLOTS (2 * KDUMP_CHROME_NAMED) /* open addressing, at most half full */
#define CAT_SYSCALL "syscall"
#define STR_(x) #x
#define STR(x) STR_(x)

struct pending {
	uint32_t pid, tid;
	uint64_t ts;
	uint32_t code;
	struct strbuf call;    /* the decoded arguments */
	struct strbuf members; /* JSON members: "path":"...","io":"..." */
	unsigned int npath, nio;
	bool cut;
};

struct named {
	uint32_t tid; /* 0: free slot */
	uint32_t pid;
	char comm[KTR_COMM_LEN + 1];
};

struct kdump_chrome {
	const struct kdump_ctx *kc;
	struct chrome *w;
	struct pending *pend; /* KDUMP_CHROME_PENDING, the first npend in use */
	size_t npend;
	struct named *named; /* NAMED_SLOTS */
	size_t nnamed;
	uint64_t base_ts, last_ts;
	bool have_base;
	unsigned long long before_base; /* records dated before base_ts */
	unsigned long long backwards;	/* returns dated before their calls */
	struct strbuf tmp, json;
};

struct kdump_chrome *kdump_chrome__new(const struct kdump_ctx *c, FILE *out)
{
	struct kdump_chrome *k = calloc(1, sizeof(*k));

	if (!k)
		return NULL;
	k->kc = c;
	k->pend = calloc(KDUMP_CHROME_PENDING, sizeof(*k->pend));
	k->named = calloc(NAMED_SLOTS, sizeof(*k->named));
	if (k->pend && k->named)
		k->w = chrome__new(out);
	if (!k->w) {
		free(k->pend);
		free(k->named);
		free(k);
		return NULL;
	}
	return k;
}

void kdump_chrome__set_base(struct kdump_chrome *k, uint64_t ts)
{
	k->base_ts = ts;
	k->have_base = true;
}

void kdump_chrome__note_earliest(void *arg, const struct ktr_rec *h, const void *payload)
{
	uint64_t *earliest = arg;

	(void)payload;
	if (h->ts_ns < *earliest)
		*earliest = h->ts_ns;
}

/*
 * The viewer's time: ns since the earliest record (kdump_chrome__set_base),
 * else the first; one dated before that is shown at 0, and counted.
 */
static uint64_t rel_ts(struct kdump_chrome *k, uint64_t ts)
{
	if (!k->have_base)
		kdump_chrome__set_base(k, ts);
	if (ts > k->last_ts)
		k->last_ts = ts;
	if (ts < k->base_ts)
		k->before_base++;
	return ts > k->base_ts ? ts - k->base_ts : 0;
}

/* Remember the thread's latest command name, for its thread_name. */
static void note_thread(struct kdump_chrome *k, const struct ktr_rec *h)
{
	size_t i = (h->tid * 2654435761u) % NAMED_SLOTS;
	struct named *n;

	if (!h->tid)
		return;
	for (;; i = (i + 1) % NAMED_SLOTS) {
		n = &k->named[i];
		if (n->tid == h->tid)
			break;
		if (!n->tid) {
			if (k->nnamed >= KDUMP_CHROME_NAMED)
				return;
			k->nnamed++;
			n->tid = h->tid;
			break;
		}
	}
	n->pid = h->pid;
	memcpy(n->comm, h->comm, KTR_COMM_LEN);
	n->comm[KTR_COMM_LEN] = '\0';
}

static const char *sys_name(struct kdump_chrome *k, unsigned int code, char *buf, size_t len)
{
	return ktr_syscall_name(code, k->kc->fmt.names, buf, len);
}

static struct pending *find_pending(struct kdump_chrome *k, uint32_t tid)
{
	size_t i;

	for (i = 0; i < k->npend; i++)
		if (k->pend[i].tid == tid)
			return &k->pend[i];
	return NULL;
}

/* Free p's slot: the last entry moves into it, keeping its buffers apart. */
static void drop_pending(struct kdump_chrome *k, struct pending *p)
{
	struct pending *last = &k->pend[--k->npend];
	struct pending tmp;

	if (p == last)
		return;
	tmp = *p;
	*p = *last;
	*last = tmp;
}

/* "{...}" from members "\"a\":1,\"b\":2" (or none) and a cut note, in k->json. */
static const char *members_object(struct kdump_chrome *k, const struct strbuf *members, bool cut)
{
	struct jw w;

	sb_reset(&k->json);
	jw_init(&w, &k->json);
	jw_object(&w);
	jw_members(&w, members->buf, members->len);
	if (cut)
		jw_kstr(&w, "cut",
			"more than " STR(KDUMP_CHROME_CALL_MAX) " bytes of paths and data");
	jw_end(&w);
	return sb_str(&k->json);
}

/*
 * The call p as one event: complete up to end_ts with its return value
 * ret, or an instant when instant says why it has none.
 */
static void emit_call(struct kdump_chrome *k, struct pending *p, uint64_t end_ts, const char *ret,
		      bool instant)
{
	struct chrome_arg kv[] = { { "args", sb_str(&p->call) }, { "ret", ret } };
	struct chrome_event e = {
		.cat = CAT_SYSCALL,
		.ts_ns = p->ts,
		.pid = p->pid,
		.tid = p->tid,
		.kv = kv,
		.nkv = ARRAY_SIZE(kv),
	};
	char buf[24];

	e.name = sys_name(k, p->code, buf, sizeof(buf));
	e.args_json = members_object(k, &p->members, p->cut);
	e.dur_ns = end_ts > p->ts ? end_ts - p->ts : 0;
	if (!instant && end_ts < p->ts)
		k->backwards++;
	if (instant)
		chrome__instant(k->w, &e, 't');
	else
		chrome__complete(k->w, &e);
}

/* The arguments of "openat(AT_FDCWD,...)": what is inside the parentheses. */
static void format_call_args(struct kdump_chrome *k, struct strbuf *sb, const struct ktr_syscall *c)
{
	char buf[24];
	size_t skip = strlen(sys_name(k, c->code, buf, sizeof(buf))) + 1;

	sb_reset(&k->tmp);
	ktr_format_call(&k->tmp, c, &k->kc->fmt);
	sb_reset(sb);
	if (k->tmp.len > skip)
		sb_write(sb, k->tmp.buf + skip, k->tmp.len - skip - 1);
}

static bool never_returns(struct kdump_chrome *k, unsigned int code)
{
	char buf[24];
	const char *name = sys_name(k, code, buf, sizeof(buf));

	/* rt_sigreturn resumes the interrupted code: ktrace records no RET. */
	return k->kc->fmt.names && (!strcmp(name, "exit") || !strcmp(name, "exit_group") ||
				    !strcmp(name, "rt_sigreturn"));
}

static void on_call(struct kdump_chrome *k, const struct ktr_rec *h, const struct ktr_syscall *c)
{
	struct pending *p = find_pending(k, h->tid);

	if (p) {
		/* Its RET was dropped, or never made. */
		emit_call(k, p, 0, "(none: the thread's next record is another call)", true);
	} else if (k->npend < KDUMP_CHROME_PENDING) {
		p = &k->pend[k->npend++];
	} else {
		struct pending over = {
			.pid = h->pid, .tid = h->tid, .ts = rel_ts(k, h->ts_ns), .code = c->code
		};

		format_call_args(k, &over.call, c);
		emit_call(k, &over, 0,
			  "(not paired: more than " STR(
				  KDUMP_CHROME_PENDING) " threads were in calls)",
			  true);
		sb_free(&over.call);
		sb_free(&over.members);
		return;
	}
	p->pid = h->pid;
	p->tid = h->tid;
	p->ts = rel_ts(k, h->ts_ns);
	p->code = c->code;
	p->npath = p->nio = 0;
	p->cut = false;
	sb_reset(&p->members);
	format_call_args(k, &p->call, c);
	if (never_returns(k, c->code)) {
		emit_call(k, p, 0, "(none: the call does not return to its caller)", true);
		drop_pending(k, p);
	}
}

/* A RET whose CALL is not in the file: an instant with the return value. */
static void emit_lone_ret(struct kdump_chrome *k, const struct ktr_rec *h, uint64_t ts,
			  const char *name, const char *ret)
{
	struct chrome_arg kv[] = { { "args", "(no CALL of this thread in the trace)" },
				   { "ret", ret } };
	struct chrome_event e = { .name = name,
				  .cat = CAT_SYSCALL,
				  .ts_ns = ts,
				  .pid = h->pid,
				  .tid = h->tid,
				  .kv = kv,
				  .nkv = ARRAY_SIZE(kv) };

	chrome__instant(k->w, &e, 't');
}

static void on_ret(struct kdump_chrome *k, const struct ktr_rec *h, const struct ktr_sysret *r)
{
	struct pending *p = find_pending(k, h->tid);
	uint64_t ts = rel_ts(k, h->ts_ns);
	char buf[24];
	const char *name = sys_name(k, r->code, buf, sizeof(buf));

	/* "openat -1 errno 2 ENOENT": the value after the name. */
	sb_reset(&k->tmp);
	ktr_format_ret(&k->tmp, r, &k->kc->fmt);
	if (p && p->code == r->code) {
		emit_call(k, p, ts, sb_str(&k->tmp) + strlen(name) + 1, false);
		drop_pending(k, p);
	} else {
		emit_lone_ret(k, h, ts, name, sb_str(&k->tmp) + strlen(name) + 1);
	}
}

/* "key", or for the n-th of its kind in a call, "keyN". */
static void put_key(struct jw *w, const char *key, unsigned int n)
{
	char buf[16];

	if (n > 1) {
		snprintf(buf, sizeof(buf), "%s%u", key, n);
		key = buf;
	}
	jw_key(w, key);
}

static void put_genio(struct kdump_chrome *k, struct jw *w, const struct ktr_rec *h,
		      const struct ktr_genio *g, unsigned int n)
{
	size_t len = h->len - sizeof(*g);

	put_key(w, "io", n);
	sb_reset(&k->json);
	sb_printf(&k->json, "fd %d %s %llu bytes", g->fd, g->rw == KTR_READ ? "read" : "wrote",
		  (unsigned long long)g->count);
	jw_str(w, sb_str(&k->json));
	if (k->kc->opts.maxdata >= 0 && len > (unsigned long long)k->kc->opts.maxdata)
		len = k->kc->opts.maxdata;
	if (!len)
		return;
	put_key(w, "data", n);
	jw_strn(w, (const char *)(g + 1), len);
}

/* ARGS or ENV: "argv":["a","b"]; the strings are NUL-separated. */
static void put_exec(struct jw *w, const struct ktr_rec *h, const struct ktr_exec *x)
{
	const char *s = (const char *)(x + 1), *end = s + (h->len - sizeof(*x));

	put_key(w, h->type == KTR_EXECARGS ? "argv" : "envp", 1);
	jw_array(w);
	for (; s < end; s += strnlen(s, end - s) + 1)
		jw_strn(w, s, end - s);
	jw_end(w);
}

/*
 * The record's JSON members, without braces, in k->tmp; npath and nio
 * count those of the call.
 */
static void put_members(struct kdump_chrome *k, const struct ktr_rec *h, const void *payload,
			unsigned int *npath, unsigned int *nio)
{
	struct jw w;

	sb_reset(&k->tmp);
	jw_init(&w, &k->tmp);
	jw_object(&w);
	switch (h->type) {
	case KTR_NAMEI:
		put_key(&w, "path", ++*npath);
		jw_strn(&w, payload, h->len);
		break;
	case KTR_GENIO:
		put_genio(k, &w, h, payload, ++*nio);
		break;
	default:
		put_exec(&w, h, payload);
		break;
	}
	jw_end(&w);
	/* "{...}" to its members */
	memmove(k->tmp.buf, k->tmp.buf + 1, k->tmp.len - 2);
	k->tmp.len -= 2;
	k->tmp.buf[k->tmp.len] = '\0';
}

static const char *record_name(unsigned int type)
{
	switch (type) {
	case KTR_NAMEI:
		return "NAMI";
	case KTR_GENIO:
		return "GIO";
	case KTR_EXECARGS:
		return "ARGS";
	}
	return "ENV";
}

/* NAMI, GIO, ARGS, ENV: arguments of the thread's call, else an instant of their own. */
static void on_extra(struct kdump_chrome *k, const struct ktr_rec *h, const void *payload)
{
	struct pending *p = find_pending(k, h->tid);
	unsigned int npath = 0, nio = 0;

	if (p) {
		put_members(k, h, payload, &p->npath, &p->nio);
		/* each member with its comma, as the bound has always counted them */
		if (p->members.len + !!p->members.len + k->tmp.len + 1 > KDUMP_CHROME_CALL_MAX) {
			p->cut = true;
		} else {
			if (p->members.len)
				sb_putc(&p->members, ',');
			sb_write(&p->members, k->tmp.buf, k->tmp.len);
		}
		return;
	}
	put_members(k, h, payload, &npath, &nio);
	{
		struct chrome_event e = { .name = record_name(h->type),
					  .ts_ns = rel_ts(k, h->ts_ns),
					  .pid = h->pid,
					  .tid = h->tid };

		e.args_json = members_object(k, &k->tmp, false);
		chrome__instant(k->w, &e, 't');
	}
}

/* "SIGUSR1 caught handler=...": named by the signal, the whole line as "signal". */
static void on_psig(struct kdump_chrome *k, const struct ktr_rec *h, const struct ktr_psig *sig)
{
	struct chrome_arg kv[] = { { "signal", NULL } };
	struct chrome_event e = { .cat = "signal",
				  .ts_ns = rel_ts(k, h->ts_ns),
				  .pid = h->pid,
				  .tid = h->tid,
				  .kv = kv,
				  .nkv = 1 };
	const char *space;

	sb_reset(&k->tmp);
	ktr_format_psig(&k->tmp, sig, &k->kc->fmt);
	kv[0].val = sb_str(&k->tmp);
	space = strchr(kv[0].val, ' ');
	sb_reset(&k->json);
	sb_write(&k->json, kv[0].val, space ? (size_t)(space - kv[0].val) : strlen(kv[0].val));
	e.name = sb_str(&k->json);
	chrome__instant(k->w, &e, 't');
}

static void on_drop(struct kdump_chrome *k, const struct ktr_rec *h, const struct ktr_drop *d)
{
	struct chrome_arg kv[] = { { "dropped", NULL } };
	struct chrome_event e = { .name = "DROP",
				  .ts_ns = rel_ts(k, h->ts_ns),
				  .pid = h->pid,
				  .tid = h->tid,
				  .kv = kv,
				  .nkv = 1 };

	sb_reset(&k->tmp);
	sb_printf(&k->tmp, "%llu records lost here", (unsigned long long)d->count);
	kv[0].val = sb_str(&k->tmp);
	chrome__instant(k->w, &e, 'g');
}

void kdump_chrome__record(void *arg, const struct ktr_rec *h, const void *payload)
{
	struct kdump_chrome *k = arg;

	note_thread(k, h);
	switch (h->type) {
	case KTR_SYSCALL:
		on_call(k, h, payload);
		break;
	case KTR_SYSRET:
		on_ret(k, h, payload);
		break;
	case KTR_NAMEI:
	case KTR_GENIO:
	case KTR_EXECARGS:
	case KTR_EXECENV:
		on_extra(k, h, payload);
		break;
	case KTR_PSIG:
		on_psig(k, h, payload);
		break;
	case KTR_DROP:
		on_drop(k, h, payload);
		break;
	}
}

static void name_threads(struct kdump_chrome *k)
{
	size_t i, j, n;
	char comm[KTR_COMM_LEN + 1];

	for (i = 0; i < NAMED_SLOTS; i++) {
		if (!k->named[i].tid)
			continue;
		/* comm is anything in a file: printable ASCII, as the text shows it. */
		n = strlen(k->named[i].comm);
		for (j = 0; j < n; j++)
			comm[j] = isprint((unsigned char)k->named[i].comm[j]) ? k->named[i].comm[j]
									      : '?';
		comm[n] = '\0';
		chrome__thread_name(k->w, k->named[i].pid, k->named[i].tid, comm);
	}
}

/* Times that could not be shown as recorded are said, not silently 0. */
static void report_clock_back(const struct kdump_chrome *k)
{
	if (k->before_base)
		p_warn("%llu record%s dated before the first one shown at time 0 (the clock "
		       "went back, or the trace was read from a pipe after ktrace -a)",
		       k->before_base, k->before_base == 1 ? "" : "s");
	if (k->backwards)
		p_warn("%llu system call%s returned before %s call (the clock went back): "
		       "shown with duration 0",
		       k->backwards, k->backwards == 1 ? "" : "s",
		       k->backwards == 1 ? "its" : "their");
}

int kdump_chrome__finish(struct kdump_chrome *k)
{
	size_t i;
	int ret;

	/* Still in their call when the trace ended: up to its last record. */
	for (i = 0; i < k->npend; i++)
		emit_call(k, &k->pend[i], k->last_ts - k->base_ts, "(none: the trace ended first)",
			  false);
	name_threads(k);
	report_clock_back(k);
	ret = chrome__finish(k->w);
	for (i = 0; i < KDUMP_CHROME_PENDING; i++) {
		sb_free(&k->pend[i].call);
		sb_free(&k->pend[i].members);
	}
	sb_free(&k->tmp);
	sb_free(&k->json);
	free(k->pend);
	free(k->named);
	free(k);
	return ret;
}
