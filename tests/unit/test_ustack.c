// SPDX-License-Identifier: GPL-2.0
/*
 * ustack.c: addresses of this very process (its own function, libc's
 * malloc, the vdso, anonymous memory) resolved and checked against what
 * the dynamic loader says; libraries built at test time for what the
 * process does not have by itself: one deleted since it was mapped, one
 * loaded after the maps were read, a stripped one with a separate debug
 * file. The caches: maps re-read at most once a second, one object read
 * once for two processes, bounds that evict, strings that outlive them.
 */
#include <dlfcn.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <link.h>
#include <signal.h>
#include <sys/auxv.h>
#include <sys/prctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "testutil.h"
#include "lib/ustack.h"
#include "lib/util.h"

/* A function of this binary to find: not static, not inlined, longer than the 5 bytes asked into it. */
__attribute__((noinline)) int ustack_test_target(int x)
{
	__asm__ volatile("nop; nop; nop; nop; nop; nop; nop; nop" : "+r"(x));
	return x * 3 + 1;
}

/* The libraries tests build: a local function only .symtab names, and two exported ones. */
static const char lib_src[] = "#ifndef HIDDEN_ADD\n"
			      "#define HIDDEN_ADD 1\n"
			      "#endif\n"
			      "__attribute__((noinline)) static int hidden_func(int x)\n"
			      "{\n"
			      "	__asm__ volatile(\"\" : \"+r\"(x));\n"
			      "	return x * 7 + HIDDEN_ADD;\n"
			      "}\n"
			      "void *ustack_lib_hidden(void)\n"
			      "{\n"
			      "	return (void *)hidden_func;\n"
			      "}\n"
			      "int ustack_lib_func(int x)\n"
			      "{\n"
			      "	__asm__ volatile(\"\" : \"+r\"(x));\n"
			      "	return hidden_func(x) + 1;\n"
			      "}\n";

static struct ustack_syms *syms_new(void)
{
	struct ustack_syms *u = ustack_syms__new();

	assert_non_null(u);
	return u;
}

static void resolve_ok(struct ustack_syms *u, int pid, uintptr_t addr, struct ustack_frame *f)
{
	int err = ustack_syms__resolve(u, pid, addr, f);

	if (err)
		fail_msg("resolving %#lx in process %d: %d", (unsigned long)addr, pid, err);
	assert_int_equal(f->addr, addr);
}

static bool ends_with(const char *s, const char *tail)
{
	size_t a = strlen(s), b = strlen(tail);

	return a >= b && !strcmp(s + a - b, tail);
}

/* f is func+off in an object whose path ends in tail. */
static void expect_frame(const struct ustack_frame *f, const char *func, unsigned long long off,
			 const char *tail)
{
	if (!f->func || strcmp(f->func, func) || f->off != off || !f->object ||
	    !ends_with(f->object, tail))
		fail_msg("got %s+%#llx (%s), want %s+%#llx (...%s)", f->func ? f->func : "NULL",
			 f->off, f->object ? f->object : "NULL", func, off, tail);
}

static void self_exe(char *buf, size_t size)
{
	ssize_t n = readlink("/proc/self/exe", buf, size - 1);

	assert_true(n > 0);
	buf[n] = '\0';
}

/* libc's own handle: dlsym on it is libc's malloc, not ASan's. */
static void *libc_handle(void)
{
	void *h = dlopen("libc.so.6", RTLD_NOLOAD | RTLD_LAZY);

	assert_non_null(h);
	return h;
}

static uintptr_t libc_sym(const char *name)
{
	void *h = libc_handle();
	void *fn = dlsym(h, name);

	assert_non_null(fn);
	dlclose(h);
	return (uintptr_t)fn;
}

static void test_self(void **state)
{
	struct ustack_syms *u = syms_new();
	struct ustack_frame f;
	char exe[PATH_MAX];

	(void)state;
	self_exe(exe, sizeof(exe));
	resolve_ok(u, getpid(), (uintptr_t)ustack_test_target + 5, &f);
	expect_frame(&f, "ustack_test_target", 5, exe);
	assert_string_equal(f.object, exe);
	resolve_ok(u, getpid(), (uintptr_t)ustack_test_target, &f);
	expect_frame(&f, "ustack_test_target", 0, exe);
	ustack_syms__free(u);
}

/* "FILE:LINE" addr2line gives for vaddr of exe, FILE's base name ("" without binutils). */
static void addr2line(const char *exe, unsigned long long vaddr, char *out, size_t size)
{
	char cmd[PATH_MAX + 64], *nl;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "addr2line -e '%s' %llx 2>/dev/null", exe, vaddr);
	out[0] = '\0';
	p = popen(cmd, "r");
	if (!p)
		return;
	if (!fgets(out, size, p))
		out[0] = '\0';
	pclose(p);
	nl = strpbrk(out, " \n");
	if (nl)
		*nl = '\0';
	nl = strrchr(out, '/');
	if (nl)
		memmove(out, nl + 1, strlen(nl + 1) + 1);
}

/* f's "FILE:LINE", FILE's base name. */
static void frame_line(const struct ustack_frame *f, char *out, size_t size)
{
	const char *base = f->file ? strrchr(f->file, '/') : NULL;

	snprintf(out, size, "%s:%d", base ? base + 1 : f->file ? f->file : "", f->line);
}

/*
 * Source lines, wanted: this binary's own (built with -g) as addr2line
 * has them, at an address and, for a return address, at the byte before.
 */
static void test_lines(void **state)
{
	uintptr_t addr = (uintptr_t)ustack_test_target + 5;
	struct ustack_syms *u = syms_new();
	char exe[PATH_MAX], want[PATH_MAX + 32], got[PATH_MAX + 32];
	struct ustack_frame f;
	struct strbuf sb;
	Dl_info dl;
	int ret;

	(void)state;
	self_exe(exe, sizeof(exe));
	assert_true(dladdr((void *)ustack_test_target, &dl));
	addr2line(exe, addr - (uintptr_t)dl.dli_fbase, want, sizeof(want));
	if (!strchr(want, ':') || strstr(want, "?"))
		skip();
	resolve_ok(u, getpid(), addr, &f);
	assert_null(f.file); /* not wanted */
	ustack_syms__want_lines(u, true);
	resolve_ok(u, getpid(), addr, &f);
	assert_non_null(f.file);
	frame_line(&f, got, sizeof(got));
	assert_string_equal(got, want);
	sb_init(&sb);
	ustack_frame_format(&f, false, &sb);
	snprintf(want, sizeof(want), "ustack_test_target+0x5 at test_ustack.c:%d", f.line);
	assert_string_equal(sb_str(&sb), want);
	sb_free(&sb);
	/* a return address: the call's line, the byte before */
	ret = ustack_syms__resolve_frame(u, getpid(), addr + 1, true, &f);
	assert_int_equal(ret, 0);
	frame_line(&f, got, sizeof(got));
	addr2line(exe, addr - (uintptr_t)dl.dli_fbase, want, sizeof(want));
	assert_string_equal(got, want);
	ustack_syms__free(u);
}

/* malloc, or an alias the loader finds at its address (never a local name). */
static void test_libc(void **state)
{
	uintptr_t fn = libc_sym("malloc");
	struct ustack_syms *u = syms_new();
	struct ustack_frame f;
	void *h = libc_handle();

	(void)state;
	resolve_ok(u, getpid(), fn, &f);
	if (!f.func || (strcmp(f.func, "malloc") && (uintptr_t)dlsym(h, f.func) != fn))
		fail_msg("malloc's address is %s", f.func ? f.func : "NULL");
	assert_int_equal(f.off, 0);
	assert_non_null(f.object);
	assert_true(ends_with(f.object, "libc.so.6"));
	resolve_ok(u, getpid(), fn + 1, &f);
	assert_non_null(f.func);
	assert_int_equal(f.off, 1);
	dlclose(h);
	ustack_syms__free(u);
}

/*
 * Anonymous memory, readable or executable (JIT code), named or not
 * ("[anon:jit]", where the kernel has CONFIG_ANON_VMA_NAME): no function,
 * no object.
 */
static void test_anon(void **state)
{
	static const int prots[] = { PROT_READ | PROT_WRITE, PROT_READ | PROT_EXEC };
	struct ustack_syms *u = syms_new();
	struct ustack_frame f;
	size_t i;

	(void)state;
	for (i = 0; i < 2 * ARRAY_SIZE(prots); i++) {
		char *p = mmap(NULL, 4096, prots[i % 2], MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		/* W^X policies may refuse anonymous code. */
		if (p == MAP_FAILED)
			continue;
		if (i >= 2 && prctl(PR_SET_VMA, PR_SET_VMA_ANON_NAME, p, 4096, "jit")) {
			munmap(p, 4096);
			continue;
		}
		resolve_ok(u, getpid(), (uintptr_t)p + 16, &f);
		if (f.func || f.object)
			fail_msg("anonymous memory (%zu) is %s in %s", i, f.func ? f.func : "NULL",
				 f.object ? f.object : "NULL");
		munmap(p, 4096);
	}
	ustack_syms__free(u);
}

/* The range of a mapping named name in /proc/self/maps (read here, not through usym). */
static bool self_mapping(const char *name, uintptr_t *start, uintptr_t *end)
{
	char line[PATH_MAX + 128];
	FILE *f = fopen("/proc/self/maps", "r");
	bool found = false;

	assert_non_null(f);
	while (!found && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		found = ends_with(line, name) &&
			sscanf(line, "%lx-%lx", (unsigned long *)start, (unsigned long *)end) == 2;
	}
	fclose(f);
	return found;
}

/* The vdso is named, and its functions read from the process's memory. */
static void test_vdso(void **state)
{
	uintptr_t base = getauxval(AT_SYSINFO_EHDR), start, end, a;
	struct ustack_syms *u;
	struct ustack_frame f;
	const char *timefn = NULL;

	(void)state;
	if (!base || !self_mapping("[vdso]", &start, &end))
		skip();
	u = syms_new();
	resolve_ok(u, getpid(), base, &f);
	assert_non_null(f.object);
	assert_string_equal(f.object, "[vdso]");
	for (a = start; a < end && !timefn; a += 4) {
		resolve_ok(u, getpid(), a, &f);
		if (f.func && strstr(f.func, "time"))
			timefn = f.func;
	}
	if (!timefn)
		fail_msg("no function of the vdso (%#lx-%#lx) has 'time' in its name",
			 (unsigned long)start, (unsigned long)end);
	ustack_syms__free(u);
}

/* A temporary folder, and the libraries built in it. */
struct tmp {
	char dir[64];
};

static void tmp_new(struct tmp *t)
{
	tmpdir_make(t->dir, sizeof(t->dir), "ustack");
}

static void tmp_free(struct tmp *t)
{
	tmpdir_remove(t->dir);
}

/* lib_src built into t's folder as name, with cc flags; skips the test without a compiler. */
static void build_lib(const struct tmp *t, const char *name, const char *flags, char *path,
		      size_t size)
{
	char src[128];

	snprintf(src, sizeof(src), "%s/lib.c", t->dir);
	sym_file_write(src, lib_src);
	snprintf(path, size, "%s/%s", t->dir, name);
	if (run_quiet("cc -shared -fPIC -Wl,--build-id %s -o '%s' '%s'", flags, path, src))
		skip();
}

static void *lib_open(const char *path)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);

	if (!h)
		fail_msg("dlopen %s: %s", path, dlerror());
	return h;
}

static uintptr_t lib_sym(void *h, const char *name)
{
	void *fn = dlsym(h, name);

	assert_non_null(fn);
	return (uintptr_t)fn;
}

/* A library deleted since it was mapped: read through /proc/PID/map_files (root only). */
static void test_deleted(void **state)
{
	struct ustack_syms *u;
	struct ustack_frame f;
	char path[PATH_MAX];
	struct tmp t;
	uintptr_t fn;
	void *h;

	(void)state;
	if (geteuid())
		skip();
	tmp_new(&t);
	build_lib(&t, "libustack_del.so", "", path, sizeof(path));
	h = lib_open(path);
	fn = lib_sym(h, "ustack_lib_func");
	assert_int_equal(unlink(path), 0);
	u = syms_new();
	resolve_ok(u, getpid(), fn + 3, &f);
	expect_frame(&f, "ustack_lib_func", 3, "/libustack_del.so (deleted)");
	ustack_syms__free(u);
	dlclose(h);
	tmp_free(&t);
}

/*
 * A library loaded after the maps were read is found at once; addresses
 * no mapping holds then re-read them at most once a second.
 */
static void test_reread(void **state)
{
	struct ustack_syms *u = syms_new();
	unsigned long reads;
	struct ustack_frame f;
	char path[PATH_MAX];
	long long t0, ms;
	struct tmp t;
	uintptr_t fn;
	void *h;
	int i;

	(void)state;
	tmp_new(&t);
	resolve_ok(u, getpid(), (uintptr_t)ustack_test_target, &f);
	assert_int_equal(ustack_syms__maps_reads(u), 1);
	build_lib(&t, "libustack_late.so", "", path, sizeof(path));
	h = lib_open(path);
	fn = lib_sym(h, "ustack_lib_func");
	resolve_ok(u, getpid(), fn, &f);
	expect_frame(&f, "ustack_lib_func", 0, "/libustack_late.so");
	assert_int_equal(ustack_syms__maps_reads(u), 2);

	reads = ustack_syms__maps_reads(u);
	t0 = clock_ns(CLOCK_MONOTONIC);
	for (i = 0; i < 1000; i++) {
		resolve_ok(u, getpid(), 0x10, &f);
		assert_null(f.object);
	}
	ms = (clock_ns(CLOCK_MONOTONIC) - t0) / 1000000;
	if (ustack_syms__maps_reads(u) - reads > 2)
		fail_msg("1000 misses in %lld ms read the maps %lu times", ms,
			 ustack_syms__maps_reads(u) - reads);
	/* The cache still answers. */
	resolve_ok(u, getpid(), fn + 1, &f);
	expect_frame(&f, "ustack_lib_func", 1, "/libustack_late.so");
	ustack_syms__free(u);
	dlclose(h);
	tmp_free(&t);
}

/*
 * A child that sleeps: it maps what this process maps. It dies with this
 * process, or in a minute, should a failed test not kill it.
 */
static pid_t sleeper(void)
{
	pid_t child = fork();

	assert_true(child >= 0);
	if (!child) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		alarm(60);
		pause();
		_exit(0);
	}
	return child;
}

/* libc, mapped by this process and by a child, is read once; so is this binary. */
static void test_shared_object(void **state)
{
	uintptr_t fn = libc_sym("malloc");
	struct ustack_syms *u = syms_new();
	struct ustack_frame f, g;
	pid_t child;

	(void)state;
	child = sleeper();
	resolve_ok(u, getpid(), fn, &f);
	assert_non_null(f.func);
	assert_int_equal(ustack_syms__objects_read(u), 1);
	resolve_ok(u, child, fn, &g);
	assert_ptr_equal(g.func, f.func);
	assert_ptr_equal(g.object, f.object);
	assert_int_equal(ustack_syms__objects_read(u), 1);
	resolve_ok(u, child, (uintptr_t)ustack_test_target, &f);
	resolve_ok(u, getpid(), (uintptr_t)ustack_test_target, &g);
	assert_string_equal(g.func, "ustack_test_target");
	assert_ptr_equal(g.func, f.func);
	assert_int_equal(ustack_syms__objects_read(u), 2);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	ustack_syms__free(u);
}

/*
 * A library without a build-id, mapped by this process and a child: read
 * once, known by its file (device, inode, size, mtime).
 */
static void test_file_key(void **state)
{
	struct ustack_syms *u;
	struct ustack_frame f;
	char path[PATH_MAX];
	struct tmp t;
	uintptr_t fn;
	pid_t child;
	void *h;

	(void)state;
	tmp_new(&t);
	build_lib(&t, "libustack_noid.so", "-Wl,--build-id=none", path, sizeof(path));
	h = lib_open(path);
	fn = lib_sym(h, "ustack_lib_func");
	child = sleeper();
	u = syms_new();
	resolve_ok(u, getpid(), fn + 1, &f);
	expect_frame(&f, "ustack_lib_func", 1, "/libustack_noid.so");
	resolve_ok(u, child, fn + 2, &f);
	expect_frame(&f, "ustack_lib_func", 2, "/libustack_noid.so");
	assert_int_equal(ustack_syms__objects_read(u), 1);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	ustack_syms__free(u);
	dlclose(h);
	tmp_free(&t);
}

/* Two copies of one library (two files, one build-id) are read once. */
static void test_build_id_key(void **state)
{
	char path[PATH_MAX], copy[PATH_MAX];
	struct ustack_syms *u;
	struct ustack_frame f;
	uintptr_t a, b;
	struct tmp t;
	void *ha, *hb;

	(void)state;
	tmp_new(&t);
	build_lib(&t, "libustack_a.so", "", path, sizeof(path));
	snprintf(copy, sizeof(copy), "%s/libustack_b.so", t.dir);
	assert_int_equal(run_quiet("cp '%s' '%s'", path, copy), 0);
	ha = lib_open(path);
	hb = lib_open(copy);
	a = lib_sym(ha, "ustack_lib_func");
	b = lib_sym(hb, "ustack_lib_func");
	assert_true(a != b);
	u = syms_new();
	resolve_ok(u, getpid(), a, &f);
	expect_frame(&f, "ustack_lib_func", 0, "/libustack_a.so");
	resolve_ok(u, getpid(), b, &f);
	expect_frame(&f, "ustack_lib_func", 0, "/libustack_b.so");
	assert_int_equal(ustack_syms__objects_read(u), 1);
	ustack_syms__free(u);
	dlclose(hb);
	dlclose(ha);
	tmp_free(&t);
}

static void expect_gone(struct ustack_syms *u, int pid)
{
	struct ustack_frame f;

	assert_int_equal(ustack_syms__resolve(u, pid, 0x401000, &f), -ESRCH);
	assert_int_equal(f.addr, 0x401000);
	assert_null(f.func);
	assert_null(f.object);
}

static void test_gone(void **state)
{
	struct ustack_syms *u = syms_new();
	pid_t child;

	(void)state;
	child = fork();
	assert_true(child >= 0);
	if (!child)
		_exit(0);
	assert_int_equal(waitpid(child, NULL, 0), child);
	expect_gone(u, child);
	expect_gone(u, child);
	expect_gone(u, 0x7fffffff);
	expect_gone(u, 0);
	ustack_syms__free(u);
}

/*
 * A process that exits once its maps were read: an object none of its
 * frames needed yet is read from the path its maps named, the same file
 * (its device and inode) as this process sees it.
 */
static void test_exited_objects(void **state)
{
	uintptr_t fn = libc_sym("malloc");
	struct ustack_syms *u = syms_new();
	struct ustack_frame f;
	int go[2];
	pid_t child;

	(void)state;
	assert_int_equal(pipe(go), 0);
	child = fork();
	assert_true(child >= 0);
	if (!child) {
		char c;

		close(go[1]);
		_exit(read(go[0], &c, 1) < 0);
	}
	close(go[0]);
	resolve_ok(u, child, (uintptr_t)ustack_test_target, &f);
	assert_string_equal(f.func, "ustack_test_target");
	close(go[1]);
	assert_int_equal(waitpid(child, NULL, 0), child);
	resolve_ok(u, child, fn, &f);
	assert_non_null(f.func);
	assert_int_equal(f.off, 0);
	assert_true(ends_with(f.object, "libc.so.6"));
	assert_int_equal(ustack_syms__maps_reads(u), 1);
	assert_int_equal(ustack_syms__objects_read(u), 2);
	ustack_syms__free(u);
}

/* This process's executable mapping holding addr, as its maps line has it. */
static void self_exec_map(uintptr_t addr, struct usym_map *m, char *line, size_t size)
{
	FILE *f = fopen("/proc/self/maps", "r");
	bool found = false;

	assert_non_null(f);
	while (!found && usym_read_line(f, line, size))
		found = usym_maps_parse(line, m) && m->exec && m->start <= addr && addr < m->end;
	fclose(f);
	assert_true(found);
}

static pid_t reaped_child(void)
{
	pid_t child = fork();

	assert_true(child >= 0);
	if (!child)
		_exit(0);
	assert_int_equal(waitpid(child, NULL, 0), child);
	return child;
}

/*
 * A gone process learns mappings from its events: its frames are named
 * from them; a later event's mapping overlapping a known one is not taken,
 * and one before all the others is.
 */
static void test_learn(void **state)
{
	uintptr_t fn = (uintptr_t)ustack_test_target;
	struct ustack_syms *u = syms_new();
	struct usym_map m[2];
	struct ustack_frame f;
	char line[2][PATH_MAX + 128];
	pid_t gone = reaped_child();

	(void)state;
	self_exec_map(fn, &m[0], line[0], sizeof(line[0]));
	assert_false(ustack_syms__knows(u, gone, fn));
	ustack_syms__learn(u, getpid(), &m[0], 1); /* a live one reads its own */
	assert_int_equal(ustack_syms__maps_reads(u), 1);
	ustack_syms__learn(u, gone, &m[0], 1);
	assert_true(ustack_syms__knows(u, gone, fn));
	resolve_ok(u, gone, fn, &f);
	assert_string_equal(f.func, "ustack_test_target");

	/* [0x1000, start + 1) overlaps the known one and ends in it: dropped */
	m[1] = m[0];
	m[1].start = 0x1000;
	m[1].end = m[0].start + 1;
	m[1].pgoff = 0;
	ustack_syms__learn(u, gone, &m[1], 1);
	assert_false(ustack_syms__knows(u, gone, 0x1000));
	m[1].end = 0x2000;
	ustack_syms__learn(u, gone, &m[1], 1);
	assert_true(ustack_syms__knows(u, gone, 0x1000));
	resolve_ok(u, gone, fn, &f);
	assert_string_equal(f.func, "ustack_test_target");
	ustack_syms__free(u);
}

/* Forgotten maps are read again. */
static void test_forget(void **state)
{
	struct ustack_syms *u = syms_new();
	struct ustack_frame f;

	(void)state;
	resolve_ok(u, getpid(), (uintptr_t)ustack_test_target, &f);
	resolve_ok(u, getpid(), (uintptr_t)ustack_test_target + 1, &f);
	assert_int_equal(ustack_syms__maps_reads(u), 1);
	ustack_syms__forget(u, getpid());
	ustack_syms__forget(u, 0x7fffffff);
	resolve_ok(u, getpid(), (uintptr_t)ustack_test_target + 2, &f);
	assert_string_equal(f.func, "ustack_test_target");
	assert_int_equal(ustack_syms__maps_reads(u), 2);
	/* Its objects stayed. */
	assert_int_equal(ustack_syms__objects_read(u), 1);
	ustack_syms__free(u);
}

/* Past its bounds the cache evicts the least recently used; frames' strings stay. */
static void test_evict(void **state)
{
	struct ustack_syms *u = ustack_syms__new_bounded(2, 1);
	uintptr_t fn = libc_sym("malloc");
	struct ustack_frame first, f;
	unsigned long reads;

	(void)state;
	assert_non_null(u);
	resolve_ok(u, getpid(), (uintptr_t)ustack_test_target + 1, &first);
	resolve_ok(u, getpid(), fn, &f);
	assert_int_equal(ustack_syms__objects_read(u), 2);
	resolve_ok(u, getpid(), (uintptr_t)ustack_test_target + 1, &f);
	assert_int_equal(ustack_syms__objects_read(u), 3);
	/* Read under ASan: the first frame's names were not freed with its object. */
	assert_string_equal(first.func, "ustack_test_target");
	assert_ptr_equal(first.func, f.func);
	assert_ptr_equal(first.object, f.object);

	reads = ustack_syms__maps_reads(u);
	expect_gone(u, 0x7ffffff0);
	expect_gone(u, 0x7ffffff1);
	resolve_ok(u, getpid(), (uintptr_t)ustack_test_target, &f);
	assert_string_equal(f.func, "ustack_test_target");
	/* Two gone processes pushed this one out: its maps are read again. */
	assert_int_equal(ustack_syms__maps_reads(u), reads + 3);
	ustack_syms__free(u);
}

/* The runtime address of a function of this process's libc at st_value, from its load bias. */
struct libc_info {
	uintptr_t bias;
	char build_id[2 * 64 + 1];
};

static int libc_info_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	struct libc_info *li = data;
	int i;

	(void)size;
	if (!info->dlpi_name || !ends_with(info->dlpi_name, "/libc.so.6"))
		return 0;
	li->bias = info->dlpi_addr;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr);
		const char *end = p + ph->p_memsz;

		while (ph->p_type == PT_NOTE && p + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
			const unsigned char *desc =
				(const unsigned char *)(p + sizeof(*nh) +
							((nh->n_namesz + 3) & ~3U));
			unsigned int j;

			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_descsz <= 64) {
				for (j = 0; j < nh->n_descsz; j++)
					sprintf(li->build_id + 2 * j, "%02x", desc[j]);
				return 1;
			}
			p = (const char *)desc + ((nh->n_descsz + 3) & ~3U);
		}
	}
	return 1;
}

/* st_value of a local function of a debug file, by nm; 0 when nm or the name is missing. */
static unsigned long nm_local(const char *file, const char *name)
{
	char cmd[PATH_MAX + 64], line[512], type, sym[256];
	unsigned long addr, found = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm --defined-only '%s' 2>/dev/null", file);
	p = popen(cmd, "r");
	if (!p)
		return 0;
	while (fgets(line, sizeof(line), p)) {
		if (sscanf(line, "%lx %c %255s", &addr, &type, sym) == 3 && type == 't' &&
		    !strcmp(sym, name))
			found = addr;
	}
	pclose(p);
	return found;
}

/*
 * Debian's libc is stripped: with libc6-dbg, a local function (no alias,
 * not in .dynsym) is named through /usr/lib/debug/.build-id.
 */
static void test_debug_build_id(void **state)
{
	struct libc_info li = { 0 };
	struct ustack_syms *u;
	struct ustack_frame f;
	char debug[PATH_MAX];
	unsigned long value;

	(void)state;
	dl_iterate_phdr(libc_info_cb, &li);
	if (!li.build_id[0])
		skip();
	snprintf(debug, sizeof(debug), "/usr/lib/debug/.build-id/%.2s/%s.debug", li.build_id,
		 li.build_id + 2);
	value = access(debug, R_OK) ? 0 : nm_local(debug, "_int_malloc");
	if (!value)
		skip();
	u = syms_new();
	resolve_ok(u, getpid(), li.bias + value + 4, &f);
	expect_frame(&f, "_int_malloc", 4, "libc.so.6");
	ustack_syms__free(u);
}

/*
 * A stripped library whose debug file is in <dir>/.debug, by its
 * .gnu_debuglink; a debug file of another build there is not taken.
 */
static void test_debuglink(void **state)
{
	char path[PATH_MAX], other[PATH_MAX];
	struct ustack_syms *u;
	struct ustack_frame f;
	uintptr_t hidden;
	struct tmp t;
	void *h;

	(void)state;
	if (run_quiet("objcopy --version") || run_quiet("strip --version"))
		skip();
	tmp_new(&t);
	build_lib(&t, "libustack_dbg.so", "-g", path, sizeof(path));
	build_lib(&t, "libustack_other.so", "-g -Dhidden_func=other_func -DHIDDEN_ADD=2", other,
		  sizeof(other));
	assert_int_equal(
		run_quiet("cd %s && mkdir .debug && "
			  "objcopy --only-keep-debug libustack_dbg.so .debug/libustack_dbg.debug && "
			  "objcopy --only-keep-debug libustack_other.so other.debug && "
			  "strip --strip-all libustack_dbg.so && "
			  "objcopy --add-gnu-debuglink=.debug/libustack_dbg.debug libustack_dbg.so",
			  t.dir),
		0);
	h = lib_open(path);
	hidden = ((uintptr_t(*)(void))lib_sym(h, "ustack_lib_hidden"))();
	u = syms_new();
	resolve_ok(u, getpid(), hidden + 2, &f);
	expect_frame(&f, "hidden_func", 2, "/libustack_dbg.so");
	ustack_syms__free(u);

	/* The same name, another build-id: its other_func is not this library's. */
	assert_int_equal(run_quiet("cd %s && mv other.debug .debug/libustack_dbg.debug", t.dir), 0);
	u = syms_new();
	resolve_ok(u, getpid(), hidden + 2, &f);
	if (f.func && (!strcmp(f.func, "other_func") || !strcmp(f.func, "hidden_func")))
		fail_msg("a debug file of another build named %s", f.func);
	ustack_syms__free(u);
	dlclose(h);
	tmp_free(&t);
}

/* Unknown addresses, even a stream of them, print nothing, not even debug lines. */
static void test_quiet(void **state)
{
	struct ustack_syms *u = syms_new();
	struct stderr_capture cap;
	struct ustack_frame f;
	char text[1024];
	int i;

	(void)state;
	util_set_debug(true);
	stderr_capture_begin(&cap);
	for (i = 0; i < 100; i++) {
		ustack_syms__resolve(u, getpid(), 0x10 + i, &f);
		ustack_syms__resolve(u, 0x7fffffff, 0x10 + i, &f);
	}
	stderr_capture_end(&cap, text, sizeof(text));
	util_set_debug(false);
	assert_string_equal(text, "");
	ustack_syms__free(u);
}

static void expect_format(const struct ustack_frame *f, bool with_object, const char *want)
{
	struct strbuf sb;

	sb_init(&sb);
	sb_printf(&sb, "x;");
	ustack_frame_format(f, with_object, &sb);
	assert_string_equal(sb_str(&sb) + 2, want);
	assert_memory_equal(sb_str(&sb), "x;", 2);
	sb_free(&sb);
}

static void test_format(void **state)
{
	const char *libc = "/usr/lib/x86_64-linux-gnu/libc.so.6";
	struct ustack_frame known = { 0x7f1234567890, "malloc", 0x1a, libc, NULL, 0 };
	struct ustack_frame at = { 0x7f1234567890, "malloc", 0, libc, NULL, 0 };
	struct ustack_frame unknown = { 0x7f1234567890, NULL, 0, libc, NULL, 0 };
	struct ustack_frame nomap = { 0x7f1234567890, NULL, 0, NULL, NULL, 0 };
	struct ustack_frame nasty = { 1, "a\033[31m\n", 0, "/tmp/\001x", "/s/x\033.c", 7 };
	struct ustack_frame lined = {
		1, "malloc", 0x1a, libc, "/build/glibc/malloc/malloc.c", 3287
	};

	(void)state;
	expect_format(&known, true, "malloc+0x1a (/usr/lib/x86_64-linux-gnu/libc.so.6)");
	expect_format(&known, false, "malloc+0x1a");
	expect_format(&at, true, "malloc (/usr/lib/x86_64-linux-gnu/libc.so.6)");
	expect_format(&at, false, "malloc");
	expect_format(&unknown, true,
		      "[unknown] 0x7f1234567890 (/usr/lib/x86_64-linux-gnu/libc.so.6)");
	expect_format(&unknown, false,
		      "[unknown] 0x7f1234567890 (/usr/lib/x86_64-linux-gnu/libc.so.6)");
	expect_format(&nomap, true, "[unknown] 0x7f1234567890");
	expect_format(&nomap, false, "[unknown] 0x7f1234567890");
	expect_format(&nasty, true, "a?[31m? (/tmp/?x) at x?.c:7");
	expect_format(&lined, true,
		      "malloc+0x1a (/usr/lib/x86_64-linux-gnu/libc.so.6) at malloc.c:3287");
	expect_format(&lined, false, "malloc+0x1a at malloc.c:3287");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_self),	  cmocka_unit_test(test_lines),
		cmocka_unit_test(test_libc),	  cmocka_unit_test(test_anon),
		cmocka_unit_test(test_vdso),	  cmocka_unit_test(test_deleted),
		cmocka_unit_test(test_reread),	  cmocka_unit_test(test_shared_object),
		cmocka_unit_test(test_file_key),  cmocka_unit_test(test_build_id_key),
		cmocka_unit_test(test_gone),	  cmocka_unit_test(test_exited_objects),
		cmocka_unit_test(test_learn),	  cmocka_unit_test(test_forget),
		cmocka_unit_test(test_evict),	  cmocka_unit_test(test_debug_build_id),
		cmocka_unit_test(test_debuglink), cmocka_unit_test(test_quiet),
		cmocka_unit_test(test_format),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
