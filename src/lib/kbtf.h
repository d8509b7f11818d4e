/* SPDX-License-Identifier: GPL-2.0 */
/* Kernel BTF: vmlinux plus module BTF, function lookup and prototypes. */
#ifndef KSNOOP_KBTF_H
#define KSNOOP_KBTF_H

#include <bpf/btf.h>

#include "lib/util.h"

#define KBTF_MAX_MATCHES 16

struct kbtf;

struct kbtf_func {
	struct btf *btf;
	__u32 id;	    /* BTF_KIND_FUNC id */
	const char *module; /* NULL for vmlinux */
};

/*
 * Every BTF is validated when it is opened (btfcheck.h); a damaged one is
 * reported there, with p_err, and fails with -EBADMSG.
 */

/*
 * Open vmlinux BTF, from btf_path (raw BTF or ELF) when not NULL. *err is
 * -EBADMSG for damaged BTF (reported), else libbpf's error (not reported).
 */
struct kbtf *kbtf__new(const char *btf_path, int *err);
/* kbtf__new with every failure reported in one line (p_err): for commands. */
struct kbtf *kbtf__open(const char *btf_path);
/*
 * Wrap an already parsed vmlinux BTF, taking ownership; no sysfs modules.
 * NULL when it is damaged or memory is short: the caller keeps it then.
 */
struct kbtf *kbtf__new_from_btf(struct btf *vmlinux);
/*
 * Add a module's BTF (split on vmlinux), taking ownership. A damaged one
 * (-EBADMSG) is freed and makes later lookups in that module fail.
 */
int kbtf__add_module(struct kbtf *kb, const char *name, struct btf *btf);
void kbtf__free(struct kbtf *kb);
struct btf *kbtf__vmlinux(const struct kbtf *kb);

/*
 * Of btf's functions, how many `has` finds (by name): a BTF file given for
 * the running kernel names the functions its kallsyms has. *total counts
 * them all.
 */
unsigned int kbtf__funcs_found(const struct btf *btf, bool (*has)(void *ctx, const char *name),
			       void *ctx, unsigned int *total);

/*
 * All BTF functions for a name: "name", "module:name", or a compiler clone
 * such as "name.isra.0" (which resolves to the BTF of "name"). Modules are
 * searched only when vmlinux has no match. Returns the number of matches
 * (up to max) or a negative errno: -EBADMSG when a module searched has
 * damaged BTF (reported when it was loaded).
 */
int kbtf__find_funcs(struct kbtf *kb, const char *name, struct kbtf_func *out, int max);

/*
 * Every loaded module's BTF (read from sysfs on the first call), in turn:
 * the i-th, or NULL past the last or where it is damaged (*name, when
 * name is not NULL, is set then). Their types follow vmlinux's, whose ids they share.
 */
int kbtf__nr_modules(struct kbtf *kb);
const struct btf *kbtf__module(const struct kbtf *kb, int i, const char **name);

/* Closest function name in vmlinux BTF, or NULL. */
const char *kbtf__suggest(struct kbtf *kb, const char *name);
/* One error line: NAME is not in BTF, with the closest name that is. */
void kbtf__report_unknown(struct kbtf *kb, const char *name);

/* Strip compiler-clone suffixes: "foo.isra.0" -> "foo". */
size_t kbtf_base_name_len(const char *name);

/* "int ip_send_skb(struct net *net, struct sk_buff *skb)" (no ';'). */
int kbtf_format_proto(const struct btf *btf, __u32 func_id, const char *name, struct strbuf *out);
/* The same without the parameters before first (a tracepoint stub's __data). */
int kbtf_format_proto_from(const struct btf *btf, __u32 func_id, const char *name, int first,
			   struct strbuf *out);

/* Type declaration with an optional name, e.g. "struct sk_buff *skb". */
int kbtf_format_decl(const struct btf *btf, __u32 type_id, const char *name, struct strbuf *out);

/* Parameters of a BTF function: count and whether it is variadic. */
int kbtf_func_params(const struct btf *btf, __u32 func_id, const struct btf_param **params,
		     bool *variadic);

/*
 * How deep a walk over types goes: chains of typedefs and modifiers, and
 * anonymous structs and unions within each other.
 */
#define KBTF_MAX_TYPE_DEPTH 32

/*
 * Strip typedefs and const/volatile/restrict; returns the underlying id,
 * or 0 (void) past KBTF_MAX_TYPE_DEPTH of them.
 */
__u32 btf_skip_mods(const struct btf *btf, __u32 id);

/* A pointer type whose target is id, or 0 when btf has none. */
__u32 btf_ptr_to(const struct btf *btf, __u32 id);

#endif
