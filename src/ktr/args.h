/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Decoding of syscall arguments, return values and signals into kdump's
 * text, from the kernel's syscall prototypes (see ktr_systab.h).
 */
#ifndef KSNOOP_KTR_ARGS_H
#define KSNOOP_KTR_ARGS_H

#include <stdbool.h>

#include "abi/ktrace.h"
#include "lib/util.h"

struct ktr_fmt_opts {
	bool raw;     /* kdump -n: no symbolic decoding, raw hex */
	bool decimal; /* kdump -d: plain numbers in decimal */
	bool names;   /* syscall names usable (trace from this architecture) */
};

/* "read", or "[nr]" when the number has no name. */
const char *ktr_syscall_name(unsigned int nr, bool names, char *buf, size_t len);

/* "openat(AT_FDCWD,0x7ffd5c2e3a10,0x80000<O_RDONLY|O_CLOEXEC>)" */
void ktr_format_call(struct strbuf *sb, const struct ktr_syscall *c, const struct ktr_fmt_opts *o);

/* "openat 3", "openat -1 errno 2 ENOENT" */
void ktr_format_ret(struct strbuf *sb, const struct ktr_sysret *r, const struct ktr_fmt_opts *o);

/* "SIGUSR1 caught handler=0x401136 mask=0x0 code=SI_TKILL pid=12 uid=0" */
void ktr_format_psig(struct strbuf *sb, const struct ktr_psig *p, const struct ktr_fmt_opts *o);

/* Flag words, exposed for tests: "0x80000<O_RDONLY|O_CLOEXEC>". */
void ktr_format_oflags(struct strbuf *sb, unsigned long long v);
void ktr_format_prot(struct strbuf *sb, unsigned long long v);
void ktr_format_mmap_flags(struct strbuf *sb, unsigned long long v);

#endif
