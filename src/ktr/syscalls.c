// SPDX-License-Identifier: GPL-2.0
/* Lookups over the generated syscall, errno and signal tables. */
#include <stdio.h>
#include <string.h>

#include "ktr/systab.h"
#include "lib/util.h"

const struct ktr_sysent *ktr_sys_lookup(unsigned int nr)
{
	if (nr >= ktr_systab_len || !ktr_systab[nr].name)
		return NULL;
	return &ktr_systab[nr];
}

int ktr_sys_by_name(const char *name)
{
	unsigned int i;

	for (i = 0; i < ktr_systab_len; i++) {
		if (ktr_systab[i].name && !strcmp(ktr_systab[i].name, name))
			return i;
	}
	return -1;
}

const char *ktr_signal_name(int sig, char *buf, size_t len)
{
	/* The kernel's real-time signals start at 32; glibc reserves two. */
	if (sig > 0 && (unsigned int)sig < ktr_signames_len && ktr_signames[sig])
		return ktr_signames[sig];
	if (sig >= 32 && sig <= 64) {
		snprintf(buf, len, "SIGRT%d", sig - 32);
		return buf;
	}
	return NULL;
}

/* Argument names the kernel resolves as paths (tracefs prototypes). */
static const char *const path_arg_names[] = {
	"filename", "pathname", "path",	    "oldname", "newname",     "specialfile",
	"special",  "dir_name", "new_root", "put_old", "to_pathname", "from_pathname",
};

static bool is_path_arg(const struct ktr_sysarg *a)
{
	size_t i;

	/* char pointers only: "const char *const *" is argv, not a path. */
	if (!a->type || !strstr(a->type, "char *") || strstr(a->type, "* const") ||
	    strstr(a->type, "*const"))
		return false;
	for (i = 0; i < ARRAY_SIZE(path_arg_names); i++) {
		if (!strcmp(a->name, path_arg_names[i]))
			return true;
	}
	return false;
}

struct gio_rule {
	const char *syscall;
	enum ktr_gio_kind kind;
	enum ktr_rw rw;
};

/* The read and write family: (fd, data, ...) returning bytes moved. */
static const struct gio_rule gio_rules[] = {
	{ "read", KTR_GIO_BUF, KTR_READ },	{ "pread64", KTR_GIO_BUF, KTR_READ },
	{ "recvfrom", KTR_GIO_BUF, KTR_READ },	{ "write", KTR_GIO_BUF, KTR_WRITE },
	{ "pwrite64", KTR_GIO_BUF, KTR_WRITE }, { "sendto", KTR_GIO_BUF, KTR_WRITE },
	{ "readv", KTR_GIO_IOV, KTR_READ },	{ "preadv", KTR_GIO_IOV, KTR_READ },
	{ "preadv2", KTR_GIO_IOV, KTR_READ },	{ "writev", KTR_GIO_IOV, KTR_WRITE },
	{ "pwritev", KTR_GIO_IOV, KTR_WRITE },	{ "pwritev2", KTR_GIO_IOV, KTR_WRITE },
	{ "recvmsg", KTR_GIO_MSG, KTR_READ },	{ "sendmsg", KTR_GIO_MSG, KTR_WRITE },
};

void ktr_sysinfo_for(unsigned int nr, struct ktr_sysinfo *out)
{
	const struct ktr_sysent *e = ktr_sys_lookup(nr);
	size_t i;
	int a;

	memset(out, 0, sizeof(*out));
	out->nargs = KTR_SYSCALL_ARGS;
	if (!e)
		return;
	if (e->nargs >= 0 && e->nargs < KTR_SYSCALL_ARGS)
		out->nargs = e->nargs;
	for (a = 0; a < e->nargs && a < KTR_SYSCALL_ARGS; a++) {
		if (is_path_arg(&e->args[a]))
			out->path_args |= 1u << a;
	}
	for (i = 0; i < ARRAY_SIZE(gio_rules); i++) {
		if (!strcmp(e->name, gio_rules[i].syscall)) {
			out->gio = gio_rules[i].kind;
			out->gio_rw = gio_rules[i].rw;
		}
	}
	out->is_exec = !strcmp(e->name, "execve") || !strcmp(e->name, "execveat");
}
