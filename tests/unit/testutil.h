/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the cmocka unit tests: a small BTF fixture that exercises the
 * prototype printer, a way to write it to a file for --btf, and a capture
 * of stderr for checking error lines.
 */
#ifndef KSNOOP_TESTUTIL_H
#define KSNOOP_TESTUTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <ftw.h>
#include <sys/stat.h>

#include <cmocka.h>
#include <bpf/btf.h>

#include "lib/kbtf.h"
#include "abi/trace.h"

#define UNUSED __attribute__((unused))

/*
 * A plan's configuration whose entry captures n arguments, reading
 * sizes[i] bytes where argument i points (0: the register alone), and
 * whose return captures the return value.
 */
static UNUSED void fixture_cfg(struct ksnoop_func_cfg *cfg, const int *sizes, int n)
{
	int i;

	memset(cfg, 0, sizeof(*cfg));
	cfg->emit = KSNOOP_EMIT_ENTRY | KSNOOP_EMIT_RETURN;
	for (i = 0; i < n; i++) {
		struct ksnoop_value *v = &cfg->values[cfg->nr_values];

		v->flags = KSNOOP_V_ENTRY | (sizes[i] ? KSNOOP_V_READ : 0);
		v->size = sizes[i];
		v->arg = i;
		cfg->side[KSNOOP_SIDE_ENTRY][cfg->nr_side[KSNOOP_SIDE_ENTRY]++] = cfg->nr_values++;
	}
	cfg->values[cfg->nr_values].base = KSNOOP_BASE_RET;
	cfg->side[KSNOOP_SIDE_RETURN][cfg->nr_side[KSNOOP_SIDE_RETURN]++] = cfg->nr_values++;
}

/* Type ids of the fixture, in the order they are added. */
struct fixture_ids {
	int int_t, char_t, ulong_t, uint_t, const_char, const_char_ptr, void_ptr;
	int net, net_ptr, skb, skb_ptr;
	int u32, my_u32, color, int_arr4, volatile_int, cv_int, cv_int_ptr;
	int cb_proto, cb_ptr, char_ptr, char_ptr_ptr, const_void, const_void_ptr;
	int anon_struct;
};

static int add_func(struct btf *btf, const char *name, int ret, int nparams, ...)
{
	va_list ap;
	int proto, i, err;

	proto = btf__add_func_proto(btf, ret);
	if (proto < 0)
		return proto;
	va_start(ap, nparams);
	for (i = 0; i < nparams; i++) {
		const char *pn = va_arg(ap, const char *);
		int pt = va_arg(ap, int);

		err = btf__add_func_param(btf, pn, pt);
		if (err) {
			va_end(ap);
			return err;
		}
	}
	va_end(ap);
	return btf__add_func(btf, name, BTF_FUNC_GLOBAL, proto);
}

/*
 * Builds, on top of base (NULL for a "vmlinux"), types and functions:
 *   int ip_send_skb(struct net *net, struct sk_buff *skb);
 *   long unsigned int noargs(void);
 *   int six(int a, int b, int c, int d, int e, int f);
 *   int vlog(int level, const char *fmt, ...);
 *   int vonly(...);
 *   void register_cb(int (*cb)(void *), void *data);
 *   int (*get_handler(int type))(void *);
 *   void fill(int arr[4]);
 *   void cv(const volatile int *p, volatile int v, const void *q);
 *   enum color paint(enum color c);
 *   my_u32 hash(my_u32 seed);            my_u32 -> u32 -> unsigned int
 *   char **argvfn(char **argv);
 *   int dup_static(int a);  void dup_static(char *s);
 *   void anon(struct { int x; } s);
 *   unnamed(int, char *)                 nameless parameters
 */
static UNUSED struct btf *fixture_new(struct fixture_ids *id)
{
	struct btf *btf = btf__new_empty();
	int err = 0;

	if (!btf)
		return NULL;
	id->int_t = btf__add_int(btf, "int", 4, BTF_INT_SIGNED);
	id->char_t = btf__add_int(btf, "char", 1, BTF_INT_SIGNED | BTF_INT_CHAR);
	id->ulong_t = btf__add_int(btf, "long unsigned int", 8, 0);
	id->uint_t = btf__add_int(btf, "unsigned int", 4, 0);
	id->const_char = btf__add_const(btf, id->char_t);
	id->const_char_ptr = btf__add_ptr(btf, id->const_char);
	id->void_ptr = btf__add_ptr(btf, 0);

	id->net = btf__add_struct(btf, "net", 8);
	err |= btf__add_field(btf, "ifindex", id->int_t, 0, 0);
	id->net_ptr = btf__add_ptr(btf, id->net);
	id->skb = btf__add_struct(btf, "sk_buff", 16);
	err |= btf__add_field(btf, "len", id->uint_t, 0, 0);
	err |= btf__add_field(btf, "net", id->net_ptr, 64, 0);
	id->skb_ptr = btf__add_ptr(btf, id->skb);

	id->u32 = btf__add_typedef(btf, "u32", id->uint_t);
	id->my_u32 = btf__add_typedef(btf, "my_u32", id->u32);
	id->color = btf__add_enum(btf, "color", 4);
	err |= btf__add_enum_value(btf, "RED", 0);
	err |= btf__add_enum_value(btf, "GREEN", 1);
	id->int_arr4 = btf__add_array(btf, id->int_t, id->int_t, 4);
	id->volatile_int = btf__add_volatile(btf, id->int_t);
	id->cv_int = btf__add_const(btf, id->volatile_int);
	id->cv_int_ptr = btf__add_ptr(btf, id->cv_int);

	id->cb_proto = btf__add_func_proto(btf, id->int_t);
	err |= btf__add_func_param(btf, "", id->void_ptr);
	id->cb_ptr = btf__add_ptr(btf, id->cb_proto);
	id->char_ptr = btf__add_ptr(btf, id->char_t);
	id->char_ptr_ptr = btf__add_ptr(btf, id->char_ptr);
	id->const_void = btf__add_const(btf, 0);
	id->const_void_ptr = btf__add_ptr(btf, id->const_void);
	id->anon_struct = btf__add_struct(btf, NULL, 4);
	err |= btf__add_field(btf, "x", id->int_t, 0, 0);

	if (err || id->anon_struct < 0)
		goto fail;

	if (add_func(btf, "ip_send_skb", id->int_t, 2, "net", id->net_ptr, "skb", id->skb_ptr) <
		    0 ||
	    add_func(btf, "noargs", id->ulong_t, 0) < 0 ||
	    add_func(btf, "six", id->int_t, 6, "a", id->int_t, "b", id->int_t, "c", id->int_t, "d",
		     id->int_t, "e", id->int_t, "f", id->int_t) < 0 ||
	    add_func(btf, "vlog", id->int_t, 3, "level", id->int_t, "fmt", id->const_char_ptr, "",
		     0) < 0 ||
	    add_func(btf, "vonly", id->int_t, 1, "", 0) < 0 ||
	    add_func(btf, "register_cb", 0, 2, "cb", id->cb_ptr, "data", id->void_ptr) < 0 ||
	    add_func(btf, "get_handler", id->cb_ptr, 1, "type", id->int_t) < 0 ||
	    add_func(btf, "fill", 0, 1, "arr", id->int_arr4) < 0 ||
	    add_func(btf, "cv", 0, 3, "p", id->cv_int_ptr, "v", id->volatile_int, "q",
		     id->const_void_ptr) < 0 ||
	    add_func(btf, "paint", id->color, 1, "c", id->color) < 0 ||
	    add_func(btf, "hash", id->my_u32, 1, "seed", id->my_u32) < 0 ||
	    add_func(btf, "argvfn", id->char_ptr_ptr, 1, "argv", id->char_ptr_ptr) < 0 ||
	    add_func(btf, "dup_static", id->int_t, 1, "a", id->int_t) < 0 ||
	    add_func(btf, "dup_static", 0, 1, "s", id->char_ptr) < 0 ||
	    add_func(btf, "anon", 0, 1, "s", id->anon_struct) < 0 ||
	    add_func(btf, "unnamed", id->int_t, 2, "", id->int_t, "", id->char_ptr) < 0 ||
	    /* --follow skb: a copy, a free, and an skb made from another */
	    add_func(btf, "skb_clone", id->skb_ptr, 2, "skb", id->skb_ptr, "gfp", id->uint_t) < 0 ||
	    add_func(btf, "consume_skb", 0, 1, "skb", id->skb_ptr) < 0 ||
	    add_func(btf, "make_reply", id->skb_ptr, 2, "net", id->net_ptr, "req", id->skb_ptr) < 0)
		goto fail;
	return btf;
fail:
	btf__free(btf);
	return NULL;
}

/* A kbtf owning btf, or NULL with btf freed (btf may be NULL). */
static UNUSED struct kbtf *fixture_kbtf(struct btf *btf)
{
	struct kbtf *kb = btf ? kbtf__new_from_btf(btf) : NULL;

	if (!kb)
		btf__free(btf);
	return kb;
}

/* Module BTF split on base: int mod_func(struct sk_buff *skb); void mod_only(u32 x); */
static UNUSED struct btf *fixture_module_new(struct btf *base, const struct fixture_ids *id)
{
	struct btf *btf = btf__new_empty_split(base);

	if (!btf)
		return NULL;
	if (add_func(btf, "mod_func", id->int_t, 1, "skb", id->skb_ptr) < 0 ||
	    add_func(btf, "mod_only", 0, 1, "x", id->u32) < 0) {
		btf__free(btf);
		return NULL;
	}
	return btf;
}

/*
 * What stderr receives between stderr_capture_begin() and _end(); with
 * fd_capture_begin(), any descriptor (STDOUT_FILENO too).
 */
struct stderr_capture {
	int saved, fd, target;
};

static UNUSED void fd_capture_begin(struct stderr_capture *cap, int target)
{
	char path[] = "/tmp/ksnoop-test-stderr.XXXXXX";

	fflush(stdout);
	fflush(stderr);
	cap->target = target;
	cap->fd = mkstemp(path);
	assert_true(cap->fd >= 0);
	unlink(path);
	cap->saved = dup(target);
	assert_true(cap->saved >= 0);
	assert_true(dup2(cap->fd, target) == target);
}

static UNUSED void stderr_capture_begin(struct stderr_capture *cap)
{
	fd_capture_begin(cap, STDERR_FILENO);
}

/* Restores the descriptor and leaves what it got, NUL-terminated, in buf. */
static UNUSED void stderr_capture_end(struct stderr_capture *cap, char *buf, size_t size)
{
	ssize_t n;

	fflush(stdout);
	fflush(stderr);
	dup2(cap->saved, cap->target);
	close(cap->saved);
	n = pread(cap->fd, buf, size - 1, 0);
	buf[n > 0 ? n : 0] = '\0';
	close(cap->fd);
}

/* The project's rule for bad input: exactly one line, "Error: ...", naming want. */
/* How many times needle is in hay, overlapping ones too. */
static UNUSED size_t count_of(const char *hay, const char *needle)
{
	size_t n = 0;

	for (; (hay = strstr(hay, needle)); hay++)
		n++;
	return n;
}

static UNUSED void expect_one_error_line(const char *got, const char *want)
{
	const char *nl = strchr(got, '\n');

	if (strncmp(got, "Error: ", 7) || !nl || nl[1] || !strstr(got, want))
		print_error("stderr: '%s', want one 'Error: ...%s...' line\n", got, want);
	assert_int_equal(strncmp(got, "Error: ", 7), 0);
	assert_non_null(nl);
	assert_int_equal(nl[1], '\0');
	assert_non_null(strstr(got, want));
}

/*
 * The symbol lists ksyms__load_from() reads, written into a new temporary
 * directory: kallsyms, available_filter_functions and the kprobe blacklist.
 */
struct sym_files {
	char dir[64];
	char kallsyms[96], filter[96], blacklist[96];
};

static UNUSED void sym_file_write(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
	assert_int_equal(fclose(f), 0);
}

/* 0, or -1 when no directory could be made. */
static UNUSED int sym_files_write(struct sym_files *f, const char *kallsyms, const char *filter,
				  const char *blacklist)
{
	strcpy(f->dir, "/tmp/ksnoop-test-syms.XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	snprintf(f->kallsyms, sizeof(f->kallsyms), "%s/kallsyms", f->dir);
	snprintf(f->filter, sizeof(f->filter), "%s/available_filter_functions", f->dir);
	snprintf(f->blacklist, sizeof(f->blacklist), "%s/blacklist", f->dir);
	sym_file_write(f->kallsyms, kallsyms);
	sym_file_write(f->filter, filter);
	sym_file_write(f->blacklist, blacklist);
	return 0;
}

static UNUSED void sym_files_remove(const struct sym_files *f)
{
	unlink(f->kallsyms);
	unlink(f->filter);
	unlink(f->blacklist);
	rmdir(f->dir);
}

static UNUSED int run_quiet(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A shell command, its output discarded: its exit status (-1 without memory). */
static UNUSED int run_quiet(const char *fmt, ...)
{
	char *cmd, *full;
	va_list ap;
	int rc, n;

	va_start(ap, fmt);
	n = vasprintf(&cmd, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -1;
	n = asprintf(&full, "%s >/dev/null 2>&1", cmd);
	free(cmd);
	if (n < 0)
		return -1;
	rc = system(full);
	free(full);
	return rc;
}

/* A new temporary folder, /tmp/ksnoop-test-TAG.XXXXXX, into dir. */
static UNUSED void tmpdir_make(char *dir, size_t size, const char *tag)
{
	assert_true((size_t)snprintf(dir, size, "/tmp/ksnoop-test-%s.XXXXXX", tag) < size);
	assert_non_null(mkdtemp(dir));
}

static UNUSED int tmpdir_rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* dir and everything in it, symbolic links not followed. */
static UNUSED void tmpdir_remove(const char *dir)
{
	nftw(dir, tmpdir_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* Write btf as a raw BTF file into a new temporary path; free() the path. */
static UNUSED char *fixture_write(const struct btf *btf)
{
	char *path = strdup("/tmp/ksnoop-test-btf.XXXXXX");
	const void *data;
	__u32 size;
	int fd;

	if (!path)
		return NULL;
	data = btf__raw_data(btf, &size);
	fd = mkstemp(path);
	if (!data || fd < 0 || write(fd, data, size) != (ssize_t)size) {
		if (fd >= 0) {
			close(fd);
			unlink(path);
		}
		free(path);
		return NULL;
	}
	close(fd);
	return path;
}

#endif
