/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A parsed kprobe_events definition + BTF + kallsyms -> a probe: where to
 * attach, the fetch program bpf/kpe.bpf.c runs (struct
 * kpe_def_cfg), and how each argument is named and shown.
 */
#ifndef KSNOOP_KPE_COMPILE_H
#define KSNOOP_KPE_COMPILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/kbtf.h"
#include "kpe/parse.h"
#include "lib/ksyms.h"
#include "abi/kpe.h"

struct kpe_ctx {
	struct kbtf *kb;	  /* NULL: no BTF names, $arg* or BTF types */
	const struct ksyms *syms; /* NULL: probe points are not checked */
	/*
	 * Type $argN and $retval from BTF and name an unnamed $argN after its
	 * parameter, as the kernel's own probe events do since Linux 6.6
	 * (CONFIG_PROBE_EVENTS_BTF_ARGS); before, they are x64 and "argN".
	 */
	bool btf_probe_args;
	const char *tracefs; /* e: where the attached events' formats are; NULL: none */
	/* reads kernel text (kcore_read), for the entry window; NULL: no reads */
	int (*read_text)(uint64_t addr, void *buf, size_t len);
};

/* One argument as it is stored and shown. */
struct kpe_field {
	char *name;
	struct kpe_type type; /* never KPE_T_NONE */
	bool is_data;	      /* string or array: its value points into data */
};

struct kpe_probe {
	char *text; /* the definition */
	char *group;
	char *event;
	char kind;    /* the definition's: 'p', 'f', 't' or 'e' */
	char *attach; /* "sym" or "mod:sym"; t: the tracepoint; e: the EVENT */
	char *system; /* e: the attached event's SYSTEM */
	char *func;   /* the probed function, for "(ret <- func)"; t: its stub */
	/* t and e: what the kernel prints where a probe prints its address */
	char *loc;
	/* its copy of its kind's program: kpe_kprobeN, kpe_eprobeN or kpe_tprobeN */
	int prog_slot;
	int entry_slot; /* a return probe's entry half: its kpe_kprobeN */
	unsigned long long offset;
	bool is_return;
	int maxactive;
	struct kpe_field *fields;
	int nr_fields;
	struct kpe_def_cfg *cfg;
};

/* Returns 0, or a negative errno with err filled in (pos in def->text). */
int kpe_compile(const struct kpe_ctx *ctx, const struct kpe_def *def, struct kpe_probe *out,
		struct kpe_error *err);
void kpe_probe_free(struct kpe_probe *p);

/* Index of the field called name, or -1. */
int kpe_probe_field(const struct kpe_probe *p, const char *name);

/* The type kprobe_events gives a BTF type: s32 for enums, x64 for pointers. */
int kpe_type_from_btf(const struct btf *btf, __u32 id, struct kpe_type *t);
/* "u32", "x64", "string", "b3@2/8", "u8[4]"... */
void kpe_type_str(const struct kpe_type *t, char *buf, size_t size);

#endif
