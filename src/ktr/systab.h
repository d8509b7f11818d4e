/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Syscall, errno and signal names for ktrace/kdump. The tables are
 * generated into build/ktr_systab.c by scripts/gen-ktr-systab.sh from the
 * system headers and the kernel's syscall prototypes; this header declares
 * them and the lookups that wrap them.
 */
#ifndef KSNOOP_KTR_SYSTAB_H
#define KSNOOP_KTR_SYSTAB_H

#include <stdbool.h>
#include <stddef.h>

#include "abi/ktrace.h"

struct ktr_sysarg {
	const char *type; /* as the kernel declares it: "const char *" */
	const char *name; /* "filename" */
};

struct ktr_sysent {
	const char *name; /* NULL: no syscall has this number */
	int nargs;	  /* -1: prototype unknown */
	struct ktr_sysarg args[KTR_SYSCALL_ARGS];
};

/* Generated. */
extern const unsigned int ktr_systab_machine; /* ELF e_machine */
extern const struct ktr_sysent ktr_systab[];
extern const unsigned int ktr_systab_len;
extern const char *const ktr_signames[];
extern const unsigned int ktr_signames_len;

/* The entry for a syscall number, NULL when there is none. */
const struct ktr_sysent *ktr_sys_lookup(unsigned int nr);
/* Syscall number for a name, -1 when unknown. */
int ktr_sys_by_name(const char *name);
/* "SIGUSR1", "SIGRT3"; NULL outside 1..64. buf holds at least 16 bytes. */
const char *ktr_signal_name(int sig, char *buf, size_t len);

/* What the BPF recorder captures for syscall nr (paths, I/O). */
void ktr_sysinfo_for(unsigned int nr, struct ktr_sysinfo *out);

#endif
