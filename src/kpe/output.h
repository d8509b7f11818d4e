/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprobe_events records -> lines in the kernel's trace format:
 *   comm-pid [cpu] secs.usecs: EVENT: (sym+0xoff/0xsize) name=value ...
 *   comm-pid [cpu] secs.usecs: EVENT: (caller+0xoff/0xsize <- func) ...
 */
#ifndef KSNOOP_KPE_OUTPUT_H
#define KSNOOP_KPE_OUTPUT_H

#include <stddef.h>

#include "kpe/compile.h"
#include "lib/ksyms.h"
#include "abi/kpe.h"
#include "lib/util.h"

/* Checks a ring buffer record against its probe before anything reads it. */
int kpe_event_validate(const struct kpe_event *ev, size_t size, const struct kpe_probe *probes,
		       int nr);

/* Appends one line, without the newline. syms may be NULL. */
void kpe_format_event(struct strbuf *sb, const struct kpe_probe *p, const struct ksyms *syms,
		      const struct kpe_event *ev);

/*
 * Each frame of a validated event's --kstack record, innermost first, at
 * most depth of them: "func+0xoff [module]". syms may be NULL.
 */
void kpe_stack_frames(const struct kpe_probe *p, struct ksyms *syms, const struct kpe_event *ev,
		      int depth, void (*fn)(void *ctx, const char *frame, int i), void *ctx);
/* Appends them as lines of their own, " => frame", each after a newline. */
void kpe_format_kstack(struct strbuf *sb, const struct kpe_probe *p, struct ksyms *syms,
		       const struct kpe_event *ev, int depth);

/*
 * The event as one JSON object (ksnoop(8), JSON OF THE OTHER COMMANDS),
 * with its stack when depth > 0; no newline. tmp is the caller's scratch,
 * kept across events so that none allocates.
 */
void kpe_json_event(struct strbuf *sb, struct strbuf *tmp, const struct kpe_probe *p,
		    struct ksyms *syms, const struct kpe_event *ev, int depth);

/* One value as the kernel prints it: 178, 0xffff..., "text", (fault). */
void kpe_format_value(struct strbuf *sb, const struct kpe_field *fd, const struct ksyms *syms,
		      const struct kpe_event *ev, int i);

#endif
