/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's tracepoints as BTF and tracefs describe them: the stub
 * function whose parameters name a tracepoint's arguments, and the fields
 * of a trace event's record (events/SYSTEM/EVENT/format).
 */
#ifndef KSNOOP_KTP_H
#define KSNOOP_KTP_H

#include <stdbool.h>

#include "lib/kbtf.h"

#define KTP_NAME_MAX 128  /* systems and events; the kernel's longest are near 60 */
#define KTP_FIELD_MAX 96  /* a field's type or name */
#define KTP_MAX_FIELDS 64 /* fields of one event, common ones included */

/*
 * The function whose parameters, after __data, are tracepoint event's
 * arguments: __probestub_EVENT (6.4 and on), else __bpf_trace_EVENT, else
 * (before 6.4, an event of a class) its class's, in vmlinux's or a loaded
 * module's BTF. 1 when found, 0 when not,
 * -EBADMSG for a module's damaged BTF (said when it was read).
 */
int ktp_find_stub(struct kbtf *kb, const char *event, struct kbtf_func *out);

/* The pointer to FUNC_PROTO that btf_trace_EVENT names (5.5 and on); 0 if none. */
__u32 ktp_typedef_proto(const struct btf *btf, const char *event);

struct ktp_field {
	char type[KTP_FIELD_MAX]; /* "const char *", "__data_loc char[]" */
	char name[KTP_FIELD_MAX];
	int offset, size;
	bool is_signed;
	bool common; /* common_pid and the other fields every record starts with */
};

/*
 * The fields of tracefs's events/SYSTEM/EVENT/format, in record order, up
 * to max: how many, or -errno (-ENOENT: no such event).
 */
int ktp_read_format(const char *tracefs, const char *system, const char *event, struct ktp_field *f,
		    int max);

#endif
