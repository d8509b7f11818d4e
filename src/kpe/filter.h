/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Event filters, as written to tracefs events/GRP/EVENT/filter, compiled
 * into a probe's predicates (evaluated in BPF):
 *
 *   expr := and { '||' and }        and := unary { '&&' unary }
 *   unary := '!' unary | '(' expr ')' | FIELD OP VALUE
 *   OP := == | != | < | <= | > | >= | & | ~
 *   VALUE := number | "text" | 'text' | word
 *
 * FIELD is one of the probe's argument names, or common_pid, comm or cpu.
 * Strings compare with ==, != and ~ (a glob with '*' and '?').
 */
#ifndef KSNOOP_KPE_FILTER_H
#define KSNOOP_KPE_FILTER_H

#include "kpe/compile.h"
#include "kpe/parse.h"

#define KPE_FILTER_MAX_LEN 4096

/* Returns 0, or -EINVAL with err filled in (pos in text). */
int kpe_filter_compile(struct kpe_probe *p, const char *text, struct kpe_error *err);

#endif
