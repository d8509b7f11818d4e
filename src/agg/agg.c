// SPDX-License-Identifier: GPL-2.0
/* count and hist: key layouts for BPF, and the kernel's maps into tables. */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "agg/agg.h"
#include "lib/cgroup.h"
#include "lib/bucket.h"
#include "lib/histadd.h"
#include "lib/stackhash.h"
#include "lib/ustack.h"
#include "lib/util.h"
#include "lib/uunwind.h"

/* What a key value or a hist value may be: an integer the BPF side can hold. */
static const struct btf_type *scalar_type(const struct plan_value *pv)
{
	int id = btf__resolve_type(pv->btf, pv->type_id);
	const struct btf_type *t = id < 0 ? NULL : btf__type_by_id(pv->btf, id);

	if (!t || pv->full_size > 8 || pv->full_size == 0)
		return NULL;
	if (btf_is_int(t) || btf_is_enum(t) || btf_is_enum64(t) || btf_is_ptr(t))
		return t;
	return NULL;
}

static bool type_signed(const struct plan_value *pv)
{
	const struct btf_type *t = scalar_type(pv);

	if (!t)
		return false;
	if (btf_is_int(t))
		return btf_int_encoding(t) & BTF_INT_SIGNED;
	return (btf_is_enum(t) || btf_is_enum64(t)) && btf_kflag(t);
}

/*
 * Value vi's bytes in a key. A pointer to a struct keys by its address, as
 * a span's key does: the struct behind it is not read.
 */
static int key_slot(struct func_plan *p, int vi)
{
	struct plan_value *pv = &p->values[vi];
	int len;

	if (pv->show == SHOW_PTR_DUMP)
		plan_show_address(p, vi);
	if (pv->show == SHOW_STRING) {
		len = pv->full_size && pv->full_size < KSNOOP_AGG_STR_MAX ? pv->full_size
									  : KSNOOP_AGG_STR_MAX;
		len = (len + 7) & ~7;
		return len < 16 ? 16 : len;
	}
	if ((pv->show == SHOW_SCALAR || pv->show == SHOW_MEMORY) && scalar_type(pv))
		return pv->full_size;
	p_err("%s: cannot count by %s: a key is an integer, enum, pointer or string, not a struct; name a member",
	      p->name, pv->name);
	return -EINVAL;
}

static int add_key(struct func_plan *p, int vi, int *off)
{
	struct ksnoop_agg_cfg *a = &p->cfg.agg;
	int len = key_slot(p, vi);

	if (len < 0)
		return len;
	if (a->nr_keys >= KSNOOP_AGG_MAX_KEYS || *off + (len > 8 ? len : 8) > KSNOOP_AGG_KEY_DATA) {
		p_err("%s: a key holds at most %d values of %d bytes", p->name, KSNOOP_AGG_MAX_KEYS,
		      KSNOOP_AGG_KEY_DATA);
		return -E2BIG;
	}
	a->key_value[a->nr_keys] = vi;
	a->key_off[a->nr_keys] = *off;
	a->key_len[a->nr_keys++] = len;
	*off += len > 8 ? len : 8;
	return 0;
}

static int set_hist_value(struct func_plan *p, int vi)
{
	struct ksnoop_agg_cfg *a = &p->cfg.agg;
	const struct plan_value *pv;

	if (vi < 0) {
		p_err("%s: hist needs one value item, such as %s(skb->len), or --latency", p->name,
		      p->name);
		return -EINVAL;
	}
	pv = &p->values[vi];
	if (!scalar_type(pv) || pv->show == SHOW_STRING || pv->show == SHOW_PTR_DUMP ||
	    pv->bit_size) {
		p_err("%s: cannot make a histogram of %s: it is not an integer", p->name, pv->name);
		return -EINVAL;
	}
	a->hist_value = vi;
	a->hist_signed = type_signed(pv);
	a->hist_width = pv->full_size;
	return 0;
}

/* A value BPF has without reading memory: a register, the return value, `current`. */
static bool in_register(const struct ksnoop_value *v)
{
	return (v->base == KSNOOP_BASE_RET || v->base == KSNOOP_BASE_CURRENT ||
		(v->base == KSNOOP_BASE_ARG && v->arg < KSNOOP_REG_ARGS)) &&
	       !v->nr_steps && !(v->flags & KSNOOP_V_READ);
}

/*
 * Whether agg_fast or span_fast (bpf/agg/agg.h, bpf/trace/spans.h) can
 * take the sample: see ksnoop_agg_cfg.fast. A span's TO side keys nothing
 * but by its first value; span_fast makes keys of one value.
 */
static bool sample_is_fast(const struct func_plan *p, int data_used)
{
	const struct ksnoop_func_cfg *cfg = &p->cfg;
	__u32 i, n = cfg->flags & KSNOOP_CFG_SPAN_TO ? 1 : cfg->nr_values;

	if (cfg->emit == KSNOOP_EMIT_COMBINED || data_used > KSNOOP_AGG_FAST_DATA ||
	    cfg->nr_fast_preds != cfg->nr_preds ||
	    ((cfg->flags & KSNOOP_CFG_SPAN) && p->key_items > 1))
		return false;
	for (i = 0; i < n; i++) {
		/* fast comparisons read their own operands */
		if (!p->values[i].hidden && !in_register(&cfg->values[i]))
			return false;
	}
	return true;
}

/* --by ustack's stack id and caller, then --by cgroup's id, come first (bpf/agg/agg.h). */
static int cgroup_off(unsigned int by)
{
	return by & KSNOOP_BY_USTACK ? (int)sizeof(struct ksnoop_agg_ustack) : 0;
}

static int key_data_start(unsigned int by)
{
	return cgroup_off(by) + (by & KSNOOP_BY_CGROUP ? (int)sizeof(__u64) : 0);
}

static int layout_plan(struct func_plan *p, const struct agg_opts *ea, int *data_used)
{
	bool hist_value = ea->mode == KSNOOP_AGG_HIST && !ea->latency;
	int i, first = -1, err = 0;
	int off = key_data_start(ea->by);

	memset(&p->cfg.agg, 0, sizeof(p->cfg.agg));
	p->cfg.agg.hist_value = KSNOOP_AGG_LATENCY;
	/* A span's first values are its key; the TO side's values key nothing. */
	if (p->cfg.flags & KSNOOP_CFG_SPAN_TO) {
		p->cfg.agg.fast = sample_is_fast(p, 0);
		return 0;
	}
	for (i = p->cfg.flags & KSNOOP_CFG_SPAN_FROM ? p->key_items : 0;
	     i < (int)p->cfg.nr_values && !err; i++) {
		if (p->values[i].hidden)
			continue;
		if (hist_value && first >= 0) {
			p_err("%s: hist takes one value item; count takes several", p->name);
			return -EINVAL;
		}
		if (first < 0)
			first = i;
		if (!hist_value)
			err = add_key(p, i, &off);
	}
	if (!err && hist_value)
		err = set_hist_value(p, first);
	p->cfg.agg.fast = !err && sample_is_fast(p, off);
	if (off > *data_used)
		*data_used = off;
	return err;
}

/*
 * Prometheus counters only ever grow: with --prometheus or --textfile the
 * maps keep running totals, whatever -i prints.
 */
bool agg_interval_resets(const struct agg_opts *a)
{
	return a->interval_ns && !a->cumulative && !a->prometheus && !a->textfile;
}

int agg_layout_plans(struct session *s, const struct agg_opts *a, struct tracer_agg *layout)
{
	int i, used = 0, fast = 0, err = 0;

	for (i = 0; i < s->nr && !err; i++)
		err = layout_plan(&s->plans[i], a, &used);
	for (i = 0; i < s->nr; i++) {
		struct func_plan *p = &s->plans[i];

		/* an open span holds the largest key: it must fit span_fast's */
		if (p->cfg.flags & KSNOOP_CFG_SPAN)
			p->cfg.agg.fast = p->cfg.agg.fast && used <= KSNOOP_AGG_FAST_DATA;
		/* the general path keys a user function's caller, in no frame at its entry */
		if ((a->by & KSNOOP_BY_USTACK) && (plan_is_user(p) || a->ustack_dump_bytes))
			p->cfg.agg.fast = false;
		fast += p->cfg.agg.fast;
	}
	*layout = (struct tracer_agg){
		.mode = a->mode,
		.by = a->by,
		.linear = a->linear,
		.lo = a->lo,
		.hi = a->hi,
		.step = a->step,
		.unit_ns = a->unit_ns,
		.max_keys = a->max_keys,
		.key_size = KSNOOP_AGG_KEY_HDR + used,
		.keyless = !a->by && !used,
		.epochs = agg_interval_resets(a),
	};
	p_dbg("aggregate keys of %d bytes; %d of %d functions sampled from registers",
	      layout->key_size, fast, s->nr);
	return err;
}

/*
 * Sizes of the kernel's map layouts (6.x; kernel/bpf/hashtab.c): a hash
 * element's header (struct htab_elem) before its key and, per-CPU, the
 * pointer to its values, else the value itself; a bucket per power-of-two
 * slot. A preallocated map (the stacks) has an element more per CPU.
 */
#define HTAB_ELEM_BYTES 48
#define HTAB_BUCKET_BYTES 16

static unsigned long long slots_for(unsigned long long n)
{
	unsigned long long s = 1;

	while (s < n)
		s <<= 1;
	return s;
}

static unsigned long long max_keys_of(const struct tracer_agg *l)
{
	return l->max_keys > 0 ? l->max_keys : KSNOOP_DEFAULT_MAX_KEYS;
}

unsigned long long agg_kernel_bytes(const struct tracer_agg *l, int nr_cpus)
{
	unsigned long long keys = max_keys_of(l), slots = slots_for(keys);
	unsigned long long bytes = slots * HTAB_BUCKET_BYTES;

	/* hist's table is BPF_F_NO_PREALLOC: its elements come with its keys */
	if (l->mode == KSNOOP_AGG_COUNT)
		bytes += keys * (HTAB_ELEM_BYTES + ((l->key_size + 7ULL) & ~7ULL) + 8 +
				 sizeof(__u64) * nr_cpus);
	if (l->by & (KSNOOP_BY_KSTACK | KSNOOP_BY_USTACK))
		bytes += slots * HTAB_BUCKET_BYTES +
			 (keys + nr_cpus) * (HTAB_ELEM_BYTES + 8 + sizeof(struct ksnoop_stack));
	return bytes;
}

static const char *stacks_by(unsigned int by)
{
	switch (by & (KSNOOP_BY_KSTACK | KSNOOP_BY_USTACK)) {
	case KSNOOP_BY_KSTACK:
		return " with --by kstack";
	case KSNOOP_BY_USTACK:
		return " with --by ustack";
	case KSNOOP_BY_KSTACK | KSNOOP_BY_USTACK:
		return " with --by kstack,ustack";
	}
	return "";
}

int agg_check_memory(const struct tracer_agg *l, int nr_cpus, unsigned long long avail)
{
	unsigned long long need = agg_kernel_bytes(l, nr_cpus), bound = AGG_MEMORY_CAP;
	bool quarter = avail && avail / 4 < bound;

	if (quarter)
		bound = avail / 4;
	p_dbg("count and hist maps: %llu KiB of kernel memory at attach", need >> 10);
	if (need <= bound)
		return 0;
	p_err("--max-keys %llu%s takes %llu MiB of kernel memory at attach, over %s (%llu MiB); "
	      "lower --max-keys",
	      max_keys_of(l), stacks_by(l->by), need >> 20,
	      quarter ? "a quarter of MemAvailable" : "ksnoop's bound", bound >> 20);
	return -E2BIG;
}

static void agg_layout_init(struct agg_layout *l, const struct agg_opts *a);

struct table_build {
	struct agg_table *t;
	char **joined; /* each row's key as one string, to merge equal keys */
	size_t cap;
};

struct agg_reader {
	const struct session *s;
	const struct agg_opts *a;
	const struct tracer_agg *layout;
	int map_fd, array_fd, stacks_fd, nr_cpus;
	size_t value_size;
	void *values;		     /* one map value per possible CPU */
	void *zeros;		     /* as many zeros, to clear an array slot */
	int epoch;		     /* the epoch being read, with layout->epochs */
	struct ksnoop_agg_key *done; /* its keys, deleted once read */
	size_t nr_done, cap_done;
	uint64_t *ips;
	struct ustack_syms *usyms;    /* --by ustack: processes' maps and objects' symbols */
	struct cgroup_names *cgroups; /* --by cgroup: ids to paths */
	struct table_build *builds;
	uint64_t drops[KSNOOP_DROP_NR];
	/* --by ustack: processes the ring noted, to read while they live */
	struct ring_buffer *notes;
	pid_t pending[AGG_NOTES_BATCH];
	int nr_pending;
	/*
	 * --call-graph dwarf: the samples' stacks, unwound here as they
	 * arrive (the ring's thread only: agg_read takes none of these).
	 */
	struct uunwind *unwind;
	void *sample_values;	      /* one map value per possible CPU */
	__u64 sample_step, sample_nr; /* the layout's buckets, as BPF's rodata has them */
	uint64_t sample_drops[KSNOOP_DROP_NR];
	unsigned long long sample_ips[KSNOOP_STACK_DEPTH];
};

static bool pending_has(const struct agg_reader *r, pid_t tgid)
{
	int i;

	for (i = 0; i < r->nr_pending; i++) {
		if (r->pending[i] == tgid)
			return true;
	}
	return false;
}

/*
 * The stack's slot in the stacks map, as the BPF side picks one
 * (bpf/agg/agg.h stack_id), so that equal stacks share a slot: its id,
 * or -errno when the map has no room for it.
 */
static __s32 stack_intern(struct agg_reader *r, const unsigned long long *ips, int n)
{
	struct ksnoop_stack st = {}, old;
	__u32 id;
	int i;

	for (i = 0; i < n && i < KSNOOP_STACK_DEPTH; i++)
		st.ips[i] = ips[i];
	st.hash = ksnoop_stack_hash(st.ips, i, BPF_F_USER_STACK);
	for (i = 0; i < KSNOOP_STACK_PROBES; i++) {
		id = (st.hash + i) & 0x7fffffff;
		if (!bpf_map_update_elem(r->stacks_fd, &id, &st, BPF_NOEXIST))
			return id;
		if (errno != EEXIST)
			return -errno;
		if (!bpf_map_lookup_elem(r->stacks_fd, &id, &old) && old.hash == st.hash)
			return id;
	}
	return -EEXIST;
}

/* v's bucket, as the BPF side numbers it. */
static __u32 sample_bucket(const struct agg_reader *r, __u64 v, bool is_signed)
{
	return hist_bucket(v, is_signed, r->layout->linear, r->layout->lo, r->sample_step,
			   r->sample_nr);
}

/* One sample into the key's slot of CPU 0: BPF adds to the others. */
static void sample_add(struct agg_reader *r, const struct ksnoop_agg_key *key,
		       const struct ksnoop_vrec *vr)
{
	bool is_signed = vr->flags & KSNOOP_VR_SIGNED;

	if (bpf_map_lookup_elem(r->map_fd, key, r->sample_values))
		memset(r->sample_values, 0, r->nr_cpus * r->value_size);
	if (r->a->mode == KSNOOP_AGG_HIST)
		hist_slot_add(r->sample_values, vr->raw, is_signed,
			      sample_bucket(r, vr->raw, is_signed));
	else
		(*(__u64 *)r->sample_values)++;
	if (bpf_map_update_elem(r->map_fd, key, r->sample_values, BPF_ANY))
		r->sample_drops[KSNOOP_DROP_KEYS]++;
}

/*
 * --call-graph dwarf: a sample whose user stack is unwound here, then
 * added to the maps as BPF adds the others (KSNOOP_EV_AGG_SAMPLE).
 */
static void on_sample(struct agg_reader *r, const struct ksnoop_event *ev, size_t size)
{
	const struct ksnoop_vrec *vr = (const void *)ev->data, *dump;
	struct uunwind_sample us;
	struct ksnoop_agg_ustack *u;
	struct ksnoop_agg_key key;
	int n;

	if (size < KSNOOP_EVENT_HDR_SIZE + sizeof(*vr) + sizeof(key) ||
	    ev->data_len > size - KSNOOP_EVENT_HDR_SIZE || !ev->nr_vrecs ||
	    vr->idx != KSNOOP_VREC_AGG_KEY || vr->len != sizeof(key))
		return;
	memcpy(&key, vr + 1, sizeof(key));
	u = (struct ksnoop_agg_ustack *)key.data;
	u->id = -EFAULT; /* a kernel thread's, with no user stack */
	u->ra = 0;
	dump = (const void *)((const char *)vr + KSNOOP_VREC_SIZE(vr->len));
	if (ev->nr_vrecs > 1 &&
	    ev->data_len >= KSNOOP_VREC_SIZE(vr->len) + sizeof(*dump) + KSNOOP_UREGS_SIZE &&
	    dump->idx == KSNOOP_VREC_USTACK_DUMP && dump->len >= KSNOOP_UREGS_SIZE &&
	    dump->len <= ev->data_len - KSNOOP_VREC_SIZE(vr->len) - sizeof(*dump)) {
		us = (struct uunwind_sample){
			.regs = dump + 1,
			.sp = dump->raw,
			.stack = (const char *)(dump + 1) + KSNOOP_UREGS_SIZE,
			.stack_len = dump->len - KSNOOP_UREGS_SIZE,
		};
		n = uunwind__frames(r->unwind, key.tgid, &us, r->sample_ips, KSNOOP_STACK_DEPTH);
		u->id = stack_intern(r, r->sample_ips, n);
		if (u->id < 0)
			r->sample_drops[KSNOOP_DROP_STACK]++;
	}
	sample_add(r, &key, vr);
	if (u->id >= 0 && !pending_has(r, key.tgid) && r->nr_pending < AGG_NOTES_BATCH)
		r->pending[r->nr_pending++] = key.tgid;
}

/* A process's first sample: kept for agg_reader__note_pending; or a sample to unwind. */
static int on_note(void *ctx, void *data, size_t size)
{
	struct agg_reader *r = ctx;
	const struct ksnoop_task_note *n = data;
	const struct ksnoop_event *ev = data;

	/* a sample notes no more processes than there is room for */
	if (size >= KSNOOP_EVENT_HDR_SIZE && ev->kind == KSNOOP_EV_AGG_SAMPLE && r->unwind) {
		on_sample(r, ev, size);
		return 0;
	}
	if (size >= sizeof(*n) && n->magic == KSNOOP_TASK_NOTE)
		r->pending[r->nr_pending++] = n->tgid;
	/* full: libbpf stops at an error, the rest waiting in the ring */
	return r->nr_pending == AGG_NOTES_BATCH ? -E2BIG : 0;
}

int agg_reader__wait(struct agg_reader *r, int timeout_ms)
{
	int err;

	if (!r->notes) {
		poll(NULL, 0, timeout_ms);
		return 0;
	}
	err = ring_buffer__poll(r->notes, timeout_ms);
	/* samples batched below the wakeup size wait for no wakeup (and at the end, for none) */
	if (r->unwind && (err >= 0 || err == -EINTR))
		err = ring_buffer__consume(r->notes);
	return err < 0 && err != -EINTR && err != -E2BIG ? err : 0;
}

void agg_reader__note_pending(struct agg_reader *r)
{
	int i;

	for (i = 0; i < r->nr_pending; i++)
		ustack_syms__note(r->usyms, r->pending[i]);
	r->nr_pending = 0;
}

struct agg_reader *agg_reader__new(const struct session *s, const struct agg_opts *a,
				   const struct tracer_agg *layout)
{
	struct agg_reader *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->s = s;
	r->a = a;
	r->layout = layout;
	r->map_fd = tracer__agg_fd(s->tracer);
	r->stacks_fd = tracer__stacks_fd(s->tracer);
	r->array_fd = tracer__func_agg_fd(s->tracer);
	r->nr_cpus = libbpf_num_possible_cpus();
	r->value_size = a->mode == KSNOOP_AGG_HIST ? sizeof(struct ksnoop_hist) : sizeof(__u64);
	if (r->nr_cpus > 0) {
		r->values = calloc(r->nr_cpus, r->value_size);
		r->zeros = calloc(r->nr_cpus, r->value_size);
	}
	r->ips = calloc(KSNOOP_STACK_DEPTH + 1, sizeof(*r->ips)); /* + restore_func's */
	r->builds = calloc(s->nr_specs, sizeof(*r->builds));
	if (a->by & KSNOOP_BY_USTACK) {
		r->usyms = ustack_syms__new();
		r->notes = ring_buffer__new(tracer__events_fd(s->tracer), on_note, r, NULL);
	}
	if ((a->by & KSNOOP_BY_USTACK) && a->ustack_dump_bytes && r->nr_cpus > 0) {
		r->unwind = uunwind__new();
		r->sample_values = calloc(r->nr_cpus, r->value_size);
		r->sample_step = tracer_agg_step(layout);
		r->sample_nr = tracer_agg_nr_linear(layout);
		if (!r->unwind || !r->sample_values) {
			agg_reader__free(r);
			return NULL;
		}
	}
	if (a->by & KSNOOP_BY_CGROUP)
		r->cgroups = cgroup_names__new();
	if (!r->values || !r->zeros || !r->ips || !r->builds ||
	    ((a->by & KSNOOP_BY_USTACK) && (!r->usyms || !r->notes)) ||
	    ((a->by & KSNOOP_BY_CGROUP) && !r->cgroups)) {
		agg_reader__free(r);
		return NULL;
	}
	return r;
}

void agg_reader__prime(struct agg_reader *r, const pid_t *pids, int nr)
{
	ustack_syms__prime(r->usyms, pids, nr);
}

void agg_reader__free(struct agg_reader *r)
{
	if (!r)
		return;
	free(r->values);
	free(r->zeros);
	free(r->done);
	free(r->ips);
	ring_buffer__free(r->notes);
	uunwind__free(r->unwind);
	free(r->sample_values);
	ustack_syms__free(r->usyms);
	cgroup_names__free(r->cgroups);
	free(r->builds);
	free(r);
}

static const char *const by_names[] = AGG_BY_WORDS;
static const enum agg_field_kind by_kinds[] = { AGG_F_COMM,   AGG_F_PID,    AGG_F_TID,	 AGG_F_CPU,
						AGG_F_KSTACK, AGG_F_USTACK, AGG_F_CGROUP };

static bool table_has_func(const struct func_plan *p, const struct agg_opts *a)
{
	return p->from_glob || (a->mode == KSNOOP_AGG_COUNT && !p->cfg.agg.nr_keys);
}

static int add_field(struct agg_table *t, enum agg_field_kind kind, const char *name)
{
	struct agg_field *f = &t->fields[t->nr_fields];

	f->kind = kind;
	f->name = strdup(name);
	if (!f->name)
		return -ENOMEM;
	t->nr_fields++;
	return 0;
}

/* A span's table: "FROM -> TO", or "FROM -> TO1|TO2" for two ends. */
static char *span_name(const struct agg_reader *r, int spec)
{
	struct strbuf sb;
	int i;

	sb_init(&sb);
	sb_printf(&sb, "%s -> ", r->s->spec_funcs[spec]);
	for (i = r->s->span_from; i < r->s->nr_specs; i++)
		sb_printf(&sb, "%s%s", i > r->s->span_from ? "|" : "", r->s->spec_funcs[i]);
	return sb_take(&sb);
}

/* The fields of a spec's table, from its first plan: all its plans share the spec. */
static struct agg_table *new_table(const struct agg_reader *r, int spec)
{
	const struct func_plan *p = NULL;
	struct agg_table *t;
	int i, err = 0;

	for (i = 0; i < r->s->nr && !p; i++)
		p = r->s->plans[i].spec_idx == spec ? &r->s->plans[i] : NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->kind = r->a->mode == KSNOOP_AGG_HIST ? AGG_HIST : AGG_COUNT;
	t->func = r->s->span_from ? span_name(r, spec) : strdup(r->s->spec_funcs[spec]);
	t->fields = calloc(KSNOOP_AGG_MAX_KEYS + 1 + ARRAY_SIZE(by_names), sizeof(*t->fields));
	if (!t->func || !t->fields)
		goto fail;
	if (t->kind == AGG_HIST) {
		t->unit = r->a->latency ? r->a->unit : NULL;
		t->value = strdup(r->a->latency ? "latency"
				  : p && p->cfg.agg.hist_value < KSNOOP_MAX_VALUES
					  ? p->values[p->cfg.agg.hist_value].name
					  : "value");
		if (!t->value)
			goto fail;
		agg_layout_init(&t->layout, r->a);
	}
	if (p && table_has_func(p, r->a))
		err = add_field(t, AGG_F_FUNC, "func");
	for (i = 0; p && !err && i < p->cfg.agg.nr_keys; i++)
		err = add_field(t, AGG_F_VALUE, p->values[p->cfg.agg.key_value[i]].name);
	for (i = 0; !err && i < (int)ARRAY_SIZE(by_names); i++) {
		if (r->a->by & (1u << i))
			err = add_field(t, by_kinds[i], by_names[i]);
	}
	if (!err)
		return t;
fail:
	agg_table_free(t);
	free(t);
	return NULL;
}

static void agg_layout_init(struct agg_layout *l, const struct agg_opts *a)
{
	l->scale = a->linear ? AGG_LINEAR : AGG_LOG2;
	l->lo = a->lo;
	l->hi = a->hi;
	l->step = a->step;
	l->nr_buckets = a->linear ? (int)((a->hi - a->lo) / a->step) + 2 : KSNOOP_HIST_LOG2_BUCKETS;
}

static bool enum_name(const struct btf *btf, const struct btf_type *t, __u64 v, struct strbuf *sb)
{
	const struct btf_enum *e = btf_enum(t);
	int i;

	for (i = 0; i < btf_vlen(t); i++, e++) {
		if ((__u32)e->val == (__u32)v) {
			sb_printf(sb, "%s", btf__name_by_offset(btf, e->name_off));
			return true;
		}
	}
	return false;
}

static bool func_symbol(const struct agg_reader *r, const struct plan_value *pv,
			const struct btf_type *ptr, __u64 v, struct strbuf *sb)
{
	int id = btf__resolve_type(pv->btf, ptr->type);
	const struct btf_type *to = id < 0 ? NULL : btf__type_by_id(pv->btf, id);
	const char *name;
	uint64_t start;

	if (!to || !btf_is_func_proto(to) || !r->s->ks)
		return false;
	name = ksyms__addr_name(r->s->ks, v, &start);
	if (!name)
		return false;
	if (v == start)
		sb_printf(sb, "%s", name);
	else
		sb_printf(sb, "%s+0x%llx", name, (unsigned long long)(v - start));
	return true;
}

/* An integer in a key, by its BTF type: enum names, function symbols. */
static char *render_int(const struct agg_reader *r, const struct plan_value *pv, __u64 v,
			bool *number)
{
	int id = btf__resolve_type(pv->btf, pv->type_id);
	const struct btf_type *t = id < 0 ? NULL : btf__type_by_id(pv->btf, id);
	unsigned int bits = pv->full_size * 8;
	struct strbuf sb;

	if (pv->bit_size) {
		v >>= pv->bit_off;
		bits = pv->bit_size;
	}
	if (bits < 64)
		v &= (1ULL << bits) - 1;
	sb_init(&sb);
	*number = false;
	if (t && btf_is_enum(t) && enum_name(pv->btf, t, v, &sb))
		return sb_take(&sb);
	if (pv->decode && decode_text(pv->decode, pv->btf, &v, pv->full_size, &sb)) {
		*number = decode_is_number(pv->decode);
		return sb_take(&sb);
	}
	if (t && btf_is_ptr(t)) {
		if (!func_symbol(r, pv, t, v, &sb))
			sb_printf(&sb, "0x%llx", (unsigned long long)v);
		return sb_take(&sb);
	}
	*number = true;
	if (type_signed(pv) && bits < 64 && bits)
		sb_printf(&sb, "%lld", (long long)((__s64)(v << (64 - bits)) >> (64 - bits)));
	else if (type_signed(pv))
		sb_printf(&sb, "%lld", (long long)v);
	else
		sb_printf(&sb, "%llu", (unsigned long long)v);
	return sb_take(&sb);
}

static int render_value(const struct agg_reader *r, const struct func_plan *p, int k,
			const struct ksnoop_agg_key *key, struct agg_val *out)
{
	const struct ksnoop_agg_cfg *a = &p->cfg.agg;
	const struct plan_value *pv = &p->values[a->key_value[k]];
	const __u8 *data = key->data + a->key_off[k];
	__u64 v = 0;

	if (a->key_len[k] > 8) {
		out->text = strndup((const char *)data, a->key_len[k]);
	} else {
		memcpy(&v, data, sizeof(v));
		out->text = render_int(r, pv, v, &out->number);
	}
	return out->text ? 0 : -ENOMEM;
}

/* The frame namers of name_frames(): NULL when out of memory. */
typedef char *frame_namer(const struct agg_reader *r, const struct ksnoop_agg_key *key, __u64 ip);

static char *kframe_text(const struct agg_reader *r, const struct ksnoop_agg_key *key, __u64 ip)
{
	struct strbuf sb;

	(void)key;
	sb_init(&sb);
	ksyms__frame(r->s->ks, ip, &sb);
	return sb_take(&sb);
}

/* Named in its process as mapped now: "malloc+0x1a (/usr/lib/.../libc.so.6)". */
static char *uframe_text(const struct agg_reader *r, const struct ksnoop_agg_key *key, __u64 ip)
{
	struct ustack_frame f;
	struct strbuf sb;

	ustack_syms__resolve(r->usyms, key->tgid, ip, &f);
	sb_init(&sb);
	ustack_frame_format(&f, true, &sb);
	return sb_take(&sb);
}

/*
 * Stack id's frames into r->ips; returns how many. The slot past the
 * deepest is zeroed too, for the frame a restore puts back.
 */
static int read_stack(const struct agg_reader *r, __s32 id)
{
	struct ksnoop_stack st;
	int depth = 0;

	memset(r->ips, 0, (KSNOOP_STACK_DEPTH + 1) * sizeof(*r->ips));
	if (id >= 0 && !bpf_map_lookup_elem(r->stacks_fd, &id, &st)) {
		memcpy(r->ips, st.ips, sizeof(st.ips));
		while (depth < KSNOOP_STACK_DEPTH && r->ips[depth])
			depth++;
	}
	return depth;
}

/*
 * r->ips[from..depth) as out's frames, or the one frame none where no
 * stack was taken, so that a key always shows a line; out's text is the
 * innermost. Room for KSNOOP_STACK_DEPTH + 1: a restore adds a frame.
 */
static int name_frames(const struct agg_reader *r, const struct ksnoop_agg_key *key, int from,
		       int depth, const char *none, frame_namer *name, struct agg_val *out)
{
	int i;

	out->frames = calloc(KSNOOP_STACK_DEPTH + 1, sizeof(*out->frames));
	if (!out->frames)
		return -ENOMEM;
	if (!depth)
		out->frames[out->nr_frames++] = strdup(none);
	for (i = from; i < depth; i++)
		out->frames[out->nr_frames++] = name(r, key, r->ips[i]);
	for (i = 0; i < out->nr_frames; i++) {
		if (!out->frames[i])
			return -ENOMEM;
	}
	out->text = strdup(out->frames[0]);
	return out->text ? 0 : -ENOMEM;
}

static int render_stack(const struct agg_reader *r, const struct func_plan *p,
			const struct ksnoop_agg_key *key, struct agg_val *out)
{
	int depth = read_stack(r, key->stack_id), from = 0;

	if (depth && tracer__backend(r->s->tracer, p - r->s->plans) == BK_FENTRY)
		depth = ksyms__restore_func(r->s->ks, r->ips, depth, p->attach_name);
	if (depth)
		from = ksyms__stack_start(r->s->ks, r->ips, depth, p->attach_name);
	out->no_stack = key->stack_id == -EFAULT;
	return name_frames(r, key, from, depth,
			   out->no_stack ? "[no kernel stack]" : "[stack not taken]", kframe_text,
			   out);
}

/* A user function's caller, put back second where the frame pointers skip it. */
static int restore_ucaller(uint64_t *ips, int depth, __u64 ra)
{
	if (!ra || !depth || (depth > 1 && ips[1] == ra))
		return depth;
	memmove(&ips[2], &ips[1], (KSNOOP_STACK_DEPTH - 1) * sizeof(*ips));
	ips[1] = ra;
	return depth + 1 > KSNOOP_STACK_DEPTH ? KSNOOP_STACK_DEPTH + 1 : depth + 1;
}

static int render_ustack(const struct agg_reader *r, const struct ksnoop_agg_key *key,
			 struct agg_val *out)
{
	struct ksnoop_agg_ustack u;
	const char *none;
	int depth;

	memcpy(&u, key->data, sizeof(u));
	out->no_stack = u.id == -EFAULT;
	none = out->no_stack ? "[no user stack]" : "[stack not taken]";
	depth = restore_ucaller(r->ips, read_stack(r, u.id), u.ra);
	return name_frames(r, key, 0, depth, none, uframe_text, out);
}

static int render_number(__u64 v, struct agg_val *out)
{
	struct strbuf sb;

	sb_init(&sb);
	sb_printf(&sb, "%llu", (unsigned long long)v);
	out->number = true;
	out->text = sb_take(&sb);
	return out->text ? 0 : -ENOMEM;
}

/* A cgroup no longer there when first named shows its id. */
static int render_cgroup(const struct agg_reader *r, const struct ksnoop_agg_key *key,
			 struct agg_val *out)
{
	const char *path;
	struct strbuf sb;
	__u64 id;

	memcpy(&id, key->data + cgroup_off(r->a->by), sizeof(id));
	path = cgroup_names__path(r->cgroups, id);
	sb_init(&sb);
	if (path)
		sb_printf(&sb, "%s", path);
	else
		sb_printf(&sb, "[cgroup %llu]", (unsigned long long)id);
	out->text = sb_take(&sb);
	return out->text ? 0 : -ENOMEM;
}

static int render_field(const struct agg_reader *r, const struct func_plan *p,
			const struct agg_field *f, int *k, const struct ksnoop_agg_key *key,
			struct agg_val *out)
{
	switch (f->kind) {
	case AGG_F_FUNC:
		out->text = strdup(p->name);
		return out->text ? 0 : -ENOMEM;
	case AGG_F_VALUE:
		return render_value(r, p, (*k)++, key, out);
	case AGG_F_COMM:
		out->text = strndup(key->comm, sizeof(key->comm));
		return out->text ? 0 : -ENOMEM;
	case AGG_F_PID:
		return render_number(key->tgid, out);
	case AGG_F_TID:
		return render_number(key->pid, out);
	case AGG_F_CPU:
		return render_number(key->cpu, out);
	case AGG_F_KSTACK:
		return render_stack(r, p, key, out);
	case AGG_F_USTACK:
		return render_ustack(r, key, out);
	case AGG_F_CGROUP:
		return render_cgroup(r, key, out);
	}
	return -EINVAL;
}

/* The key's fields, and one string of them all to find equal keys by. */
static int render_key(const struct agg_reader *r, const struct agg_table *t,
		      const struct ksnoop_agg_key *key, struct agg_row *row, char **joined)
{
	const struct func_plan *p = &r->s->plans[key->func_id];
	struct strbuf sb;
	int i, j, k = 0, err = 0;

	row->key = calloc(t->nr_fields ? t->nr_fields : 1, sizeof(*row->key));
	if (!row->key)
		return -ENOMEM;
	sb_init(&sb);
	for (i = 0; i < t->nr_fields && !err; i++) {
		err = render_field(r, p, &t->fields[i], &k, key, &row->key[i]);
		if (err)
			break;
		sb_printf(&sb, "%s\x1f", row->key[i].text);
		for (j = 1; j < row->key[i].nr_frames; j++)
			sb_printf(&sb, "%s\x1e", row->key[i].frames[j]);
	}
	*joined = sb_take(&sb);
	return err ?: *joined ? 0 : -ENOMEM;
}

static bool lesser(__u64 a, __u64 b, bool is_signed)
{
	return is_signed ? (__s64)a < (__s64)b : a < b;
}

/* One CPU's histogram into the row's. */
static void add_hist(struct agg_row *row, const struct ksnoop_hist *h, int nr_buckets)
{
	int i;

	if (!h->count)
		return;
	if (!row->count || lesser(h->min, row->min, row->is_signed))
		row->min = h->min;
	if (!row->count || lesser(row->max, h->max, row->is_signed))
		row->max = h->max;
	row->count += h->count;
	row->sum += h->sum;
	for (i = 0; i < nr_buckets && i < KSNOOP_HIST_BUCKETS; i++)
		row->buckets[i] += h->buckets[i];
}

static int fill_row(const struct agg_reader *r, const struct agg_table *t,
		    const struct func_plan *p, struct agg_row *row)
{
	const char *v = r->values;
	int c;

	if (t->kind == AGG_COUNT) {
		for (c = 0; c < r->nr_cpus; c++)
			row->count += *(const __u64 *)(v + c * r->value_size);
		return 0;
	}
	row->buckets = calloc(t->layout.nr_buckets, sizeof(*row->buckets));
	if (!row->buckets)
		return -ENOMEM;
	row->is_signed = p->cfg.agg.hist_value != KSNOOP_AGG_LATENCY && p->cfg.agg.hist_signed;
	for (c = 0; c < r->nr_cpus; c++)
		add_hist(row, (const void *)(v + c * r->value_size), t->layout.nr_buckets);
	return 0;
}

static void merge_row(const struct agg_table *t, struct agg_row *into, struct agg_row *from)
{
	struct ksnoop_hist h = {
		.count = from->count, .sum = from->sum, .min = from->min, .max = from->max
	};
	int i;

	if (t->kind == AGG_COUNT) {
		into->count += from->count;
		return;
	}
	for (i = 0; i < t->layout.nr_buckets && i < KSNOOP_HIST_BUCKETS; i++)
		h.buckets[i] = from->buckets[i];
	add_hist(into, &h, t->layout.nr_buckets);
}

static void free_row(const struct agg_table *t, struct agg_row *row)
{
	int i, j;

	for (i = 0; row->key && i < t->nr_fields; i++) {
		free(row->key[i].text);
		for (j = 0; j < row->key[i].nr_frames; j++)
			free(row->key[i].frames[j]);
		free(row->key[i].frames);
	}
	free(row->key);
	free(row->buckets);
	memset(row, 0, sizeof(*row));
}

static int add_row(struct agg_reader *r, const struct ksnoop_agg_key *key)
{
	const struct func_plan *p;
	struct table_build *b;
	struct agg_row *row;
	int err;

	if (key->func_id >= (__u32)r->s->nr)
		return 0;
	p = &r->s->plans[key->func_id];
	b = &r->builds[p->spec_idx];
	if (!grow_array(&b->t->rows, &b->cap, b->t->nr_rows, sizeof(*b->t->rows), 64))
		return -ENOMEM;
	b->joined = realloc(b->joined, b->cap * sizeof(*b->joined));
	if (!b->joined)
		return -ENOMEM;
	row = &b->t->rows[b->t->nr_rows];
	memset(row, 0, sizeof(*row));
	b->joined[b->t->nr_rows] = NULL;
	err = render_key(r, b->t, key, row, &b->joined[b->t->nr_rows]) ?: fill_row(r, b->t, p, row);
	b->t->nr_rows++;
	return err;
}

struct sort_item {
	const char *joined;
	int row;
};

static int cmp_item(const void *a, const void *b)
{
	const struct sort_item *x = a, *y = b;
	int c = strcmp(x->joined, y->joined);

	return c ? c : x->row - y->row;
}

/* Keys that differ in the kernel but not as shown (bits beside a bitfield) are one. */
static int merge_rows(struct table_build *b)
{
	struct agg_table *t = b->t;
	struct sort_item *items = calloc(t->nr_rows ? t->nr_rows : 1, sizeof(*items));
	struct agg_row *rows = calloc(t->nr_rows ? t->nr_rows : 1, sizeof(*rows));
	int i, n = 0;

	if (!items || !rows) {
		free(items);
		free(rows);
		return -ENOMEM;
	}
	for (i = 0; i < t->nr_rows; i++)
		items[i] = (struct sort_item){ b->joined[i], i };
	qsort(items, t->nr_rows, sizeof(*items), cmp_item);
	for (i = 0; i < t->nr_rows; i++) {
		struct agg_row *row = &t->rows[items[i].row];

		if (n && !strcmp(items[i].joined, items[i - 1].joined)) {
			merge_row(t, &rows[n - 1], row);
			free_row(t, row);
			continue;
		}
		rows[n++] = *row;
	}
	for (i = 0; i < t->nr_rows; i++)
		free(b->joined[i]);
	free(b->joined);
	free(items);
	free(t->rows);
	b->joined = NULL;
	t->rows = rows;
	t->nr_rows = n;
	return 0;
}

/* As the BPF side's agg_keyless: every function's slot is in the arrays. */
static bool keyless(const struct agg_reader *r)
{
	return r->layout->keyless;
}

static bool slot_used(const struct agg_reader *r)
{
	const char *v = r->values;
	int c;

	/* a count, or a histogram's count: the first __u64 either way */
	for (c = 0; c < r->nr_cpus; c++) {
		if (*(const __u64 *)(v + c * r->value_size))
			return true;
	}
	return false;
}

/* Function i's slot in the arrays: two per function with epochs. */
static __u32 array_slot(const struct agg_reader *r, __u32 i)
{
	return r->layout->epochs ? i * 2 + r->epoch : i;
}

static int read_arrays(struct agg_reader *r)
{
	struct ksnoop_agg_key key = {};
	__u32 i, slot;
	int err;

	for (i = 0; i < (__u32)r->s->nr && keyless(r); i++) {
		slot = array_slot(r, i);
		if (bpf_map_lookup_elem(r->array_fd, &slot, r->values) || !slot_used(r))
			continue;
		key.func_id = i;
		err = add_row(r, &key);
		if (err)
			return err;
		/* No program adds to this epoch's slot now: clearing loses nothing. */
		if (r->layout->epochs && bpf_map_update_elem(r->array_fd, &slot, r->zeros, BPF_ANY))
			return -errno;
	}
	return 0;
}

/* A key of the epoch read, to delete after the walk (which deleting would restart). */
static int remember_key(struct agg_reader *r, const struct ksnoop_agg_key *key)
{
	if (!grow_array(&r->done, &r->cap_done, r->nr_done, sizeof(*r->done), 64))
		return -ENOMEM;
	r->done[r->nr_done++] = *key;
	return 0;
}

static int delete_keys(struct agg_reader *r)
{
	size_t i;
	int err = 0;

	for (i = 0; i < r->nr_done; i++) {
		if (bpf_map_delete_elem(r->map_fd, &r->done[i]) && errno != ENOENT)
			err = -errno;
	}
	r->nr_done = 0;
	return err;
}

static int read_map(struct agg_reader *r)
{
	struct ksnoop_agg_key key = {}, next = {};
	int err;

	err = bpf_map_get_next_key(r->map_fd, NULL, &next);
	while (!err) {
		key = next;
		if (r->layout->epochs && key.epoch != (__u32)r->epoch) {
			err = bpf_map_get_next_key(r->map_fd, &key, &next);
			continue;
		}
		if (!bpf_map_lookup_elem(r->map_fd, &key, r->values)) {
			err = add_row(r, &key) ?: (r->layout->epochs ? remember_key(r, &key) : 0);
			if (err)
				return err;
		}
		err = bpf_map_get_next_key(r->map_fd, &key, &next);
	}
	if (err != -ENOENT)
		return err;
	return r->layout->epochs ? delete_keys(r) : 0;
}

static void agg_tables_free_from(struct agg_table **tables, int from, int nr);

int agg_read(struct agg_reader *r, struct agg_table ***tables, int *nr)
{
	struct agg_table **out = calloc(r->s->nr_specs ? r->s->nr_specs : 1, sizeof(*out));
	int i, err = out ? 0 : -ENOMEM;

	if (!err && r->layout->epochs) {
		r->epoch = tracer__agg_flip_epoch(r->s->tracer);
		if (r->epoch < 0) {
			free(out);
			return r->epoch;
		}
	}
	for (i = 0; i < r->s->nr_specs && !err; i++) {
		memset(&r->builds[i], 0, sizeof(r->builds[i]));
		out[i] = r->builds[i].t = new_table(r, i);
		if (!out[i])
			err = -ENOMEM;
	}
	err = err ?: read_arrays(r) ?: read_map(r);
	for (i = 0; i < r->s->nr_specs && out; i++) {
		if (r->builds[i].t)
			err = merge_rows(&r->builds[i]) ?: err;
	}
	if (err) {
		agg_tables_free(out, r->s->nr_specs);
		p_err("reading the aggregates: %s", strerror(-err));
		return err;
	}
	*tables = out;
	*nr = r->s->nr_specs;
	/* A span's samples are its start's: the TO specs' tables stay empty. */
	if (r->s->span_from) {
		agg_tables_free_from(out, r->s->span_from, *nr);
		*nr = r->s->span_from;
	}
	return 0;
}

/* Tables [from, nr) only, the array kept. */
static void agg_tables_free_from(struct agg_table **tables, int from, int nr)
{
	int i;

	for (i = from; tables && i < nr; i++) {
		agg_table_free(tables[i]);
		free(tables[i]);
		tables[i] = NULL;
	}
}

void agg_tables_free(struct agg_table **tables, int nr)
{
	agg_tables_free_from(tables, 0, nr);
	free(tables);
}

int agg_read_drops(struct agg_reader *r, struct agg_drops *d)
{
	__u64 raw[KSNOOP_DROP_NR];
	int i, err = tracer__read_drops(r->s->tracer, raw);

	for (i = 0; i < KSNOOP_DROP_NR; i++)
		r->drops[i] = (err ? 0 : raw[i]) + r->sample_drops[i];
	d->names = tracer_drop_names;
	d->counts = r->drops;
	d->nr = KSNOOP_DROP_NR;
	return err;
}
