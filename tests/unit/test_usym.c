// SPDX-License-Identifier: GPL-2.0
/*
 * usym.c: targets resolved to ELF files (the system's libraries, a fake
 * tree with its own ld.so.cache, a process's maps) and function offsets,
 * each checked against what the dynamic loader did with the same file.
 * Damaged copies of this test's own binary must give errors, not crashes.
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <link.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "testutil.h"
#include "lib/usym.h"
#include "lib/util.h"

/* This machine's ELF types (ElfW in declarations confuses clang-format). */
typedef ElfW(Ehdr) Ehdr;
typedef ElfW(Phdr) Phdr;
typedef ElfW(Shdr) Shdr;

/* A function of this binary for usym_find to find: not static, not inlined. */
__attribute__((noinline)) int usym_test_target(int x)
{
	__asm__ volatile("" : "+r"(x));
	return x * 3 + 1;
}

/* Another name for it: one function, whichever name is asked for. */
extern int usym_test_alias(int x) __attribute__((alias("usym_test_target")));

/* What the dynamic loader says of one loaded object. */
struct loaded {
	char name[PATH_MAX];
	ElfW(Addr) bias; /* load address minus link-time address */
	const Phdr *phdr;
	int phnum;
};

struct find_obj {
	uintptr_t addr;
	struct loaded *out;
	bool found;
};

static int find_obj_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	struct find_obj *f = data;
	int i;

	(void)size;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const Phdr *ph = &info->dlpi_phdr[i];
		uintptr_t start = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && f->addr >= start && f->addr < start + ph->p_memsz) {
			snprintf(f->out->name, sizeof(f->out->name), "%s", info->dlpi_name);
			f->out->bias = info->dlpi_addr;
			f->out->phdr = info->dlpi_phdr;
			f->out->phnum = info->dlpi_phnum;
			f->found = true;
			return 1;
		}
	}
	return 0;
}

/* The loaded object holding addr. */
static void loaded_at(const void *addr, struct loaded *out)
{
	struct find_obj f = { .addr = (uintptr_t)addr, .out = out };

	dl_iterate_phdr(find_obj_cb, &f);
	assert_true(f.found);
}

/* The file offset of a code address, from the program headers the loader used. */
static unsigned long long loaded_offset(const struct loaded *l, const void *addr)
{
	ElfW(Addr) vaddr = (uintptr_t)addr - l->bias;
	int i;

	for (i = 0; i < l->phnum; i++) {
		const Phdr *ph = &l->phdr[i];

		if (ph->p_type == PT_LOAD && vaddr >= ph->p_vaddr &&
		    vaddr < ph->p_vaddr + ph->p_filesz)
			return ph->p_offset + (vaddr - ph->p_vaddr);
	}
	fail_msg("address %p is in no segment", addr);
	return 0;
}

static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return !stat(a, &sa) && !stat(b, &sb) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

static const char *base_of(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* The libc this test maps, from /proc/self/maps (not through usym). */
static void mapped_libc(char *path, size_t size)
{
	char line[PATH_MAX + 128];
	FILE *f = fopen("/proc/self/maps", "r");
	bool found = false;

	assert_non_null(f);
	while (!found && fgets(line, sizeof(line), f)) {
		char *file = strchr(line, '/');

		if (!file)
			continue;
		file[strcspn(file, "\n")] = '\0';
		if (!strncmp(base_of(file), "libc.so.", 8)) {
			snprintf(path, size, "%s", file);
			found = true;
		}
	}
	fclose(f);
	assert_true(found);
}

static void resolve_ok(const char *target, int pid, char *path, size_t size)
{
	int err = usym_resolve(target, pid, path, size);

	if (err)
		fail_msg("usym_resolve('%s', %d): %d", target, pid, err);
}

/* err, and one error line naming want. */
static void expect_err(int got, int err, const char *errtext, const char *want)
{
	if (got != err)
		fail_msg("got %d, want %d; stderr: %s", got, err, errtext);
	expect_one_error_line(errtext, want);
}

static int resolve_err(const char *target, int pid, size_t size, int err, const char *want)
{
	struct stderr_capture cap;
	char path[PATH_MAX], text[1024];
	int got;

	stderr_capture_begin(&cap);
	got = usym_resolve(target, pid, path, size);
	stderr_capture_end(&cap, text, sizeof(text));
	expect_err(got, err, text, want);
	return got;
}

static void test_resolve_names(void **state)
{
	static const char *const libc_names[] = { "libc", "libc.so", "libc.so.6" };
	char c[PATH_MAX], path[PATH_MAX];
	struct stat st;
	size_t i;

	(void)state;
	resolve_ok("c", 0, c, sizeof(c));
	assert_int_equal(stat(c, &st), 0);
	assert_int_equal(strncmp(base_of(c), "libc.so.", 8), 0);
	for (i = 0; i < ARRAY_SIZE(libc_names); i++) {
		resolve_ok(libc_names[i], 0, path, sizeof(path));
		assert_true(same_file(path, c));
	}
	resolve_ok("pthread", 0, path, sizeof(path));
	assert_int_equal(strncmp(base_of(path), "libpthread.so.", 14), 0);
	resolve_ok("m", 0, path, sizeof(path));
	assert_int_equal(strncmp(base_of(path), "libm.so.", 8), 0);
}

static void test_resolve_errors(void **state)
{
	(void)state;
	resolve_err("nosuchlib_xyz", 0, PATH_MAX, -ENOENT,
		    "no library 'nosuchlib_xyz' (libnosuchlib_xyz.so) in the linker cache");
	resolve_err("/etc/passwd", 0, PATH_MAX, -ENOEXEC, "/etc/passwd is not an ELF file");
	resolve_err("/tmp", 0, PATH_MAX, -ENOEXEC, "/tmp is a directory");
	resolve_err("/nonexistent/x", 0, PATH_MAX, -ENOENT, "/nonexistent/x: no such file");
	resolve_err("/etc/passwd/x", 0, PATH_MAX, -ENOENT, "/etc/passwd/x: no such file");
	resolve_err("c", 0x7fffffff, PATH_MAX, -ESRCH, "no process 2147483647");
	resolve_err("/proc/self/exe", 0, 8, -ENAMETOOLONG, "longer than 7 bytes");
	resolve_err("c", 0, 8, -ENAMETOOLONG, "library 'c' is ");
	resolve_err("", 0, PATH_MAX, -EINVAL, "empty target");
}

/* With a pid: the libc it maps, and itself by its file's name. */
static void test_resolve_pid(void **state)
{
	char want[PATH_MAX], path[PATH_MAX], exe[PATH_MAX];
	ssize_t n;

	(void)state;
	mapped_libc(want, sizeof(want));
	resolve_ok("c", getpid(), path, sizeof(path));
	assert_true(same_file(path, want));
	/* Our own root and mount namespace: no /proc/PID/root detour. */
	assert_int_equal(strncmp(path, "/proc/", 6) == 0, 0);
	resolve_ok("/proc/self/exe", getpid(), path, sizeof(path));
	assert_string_equal(path, "/proc/self/exe");

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	assert_true(n > 0);
	exe[n] = '\0';
	/* Not a library anywhere, but the process maps a file of that name. */
	resolve_ok(base_of(exe), getpid(), path, sizeof(path));
	assert_true(same_file(path, "/proc/self/exe"));
	resolve_err(base_of(exe), 0, PATH_MAX, -ENOENT, "in the linker cache");
}

/* This test's binary, read once: the ELF file the fake trees and damaged copies start from. */
static unsigned char *self_elf;
static size_t self_size;

static void read_self(void)
{
	struct stat st;
	int fd;

	if (self_elf)
		return;
	fd = open("/proc/self/exe", O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	self_size = st.st_size;
	self_elf = malloc(self_size);
	assert_non_null(self_elf);
	assert_int_equal(pread(fd, self_elf, self_size, 0), (ssize_t)self_size);
	close(fd);
}

static void write_bytes(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	assert_int_equal(close(fd), 0);
}

static void tree_file(const char *root, const char *rel, const void *data, size_t len)
{
	char path[PATH_MAX], dir[PATH_MAX];
	char *s;

	snprintf(path, sizeof(path), "%s%s", root, rel);
	snprintf(dir, sizeof(dir), "%s", path);
	for (s = strchr(dir + strlen(root) + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		assert_true(mkdir(dir, 0755) == 0 || errno == EEXIST);
		*s = '/';
	}
	write_bytes(path, data, len);
}

static void tree_elf(const char *root, const char *rel)
{
	read_self();
	tree_file(root, rel, self_elf, self_size);
}

static const char linker_script[] = "/* GNU ld script */\nINPUT(libfoo.so.1)\n";

/* glibc's ld.so.cache, the new format, written independently of usym.c. */
struct fake_lib {
	const char *key, *value;
};

#define FAKE_CACHE_MAX 4096

static void put32(unsigned char *p, uint32_t v)
{
	memcpy(p, &v, sizeof(v));
}

/* s at h + off (the cache starting at buf + at): the offset past it. */
static size_t put_str(unsigned char *h, size_t at, size_t off, const char *s)
{
	size_t len = strlen(s) + 1;

	assert_true(at + off + len <= FAKE_CACHE_MAX);
	memcpy(h + off, s, len);
	return off + len;
}

/* A cache of n libraries at buf + at (after an old table there may be); its length from buf. */
static size_t fake_cache(unsigned char *buf, size_t at, const struct fake_lib *libs, int n)
{
	unsigned char *h = buf + at;
	size_t strs = 48 + 24 * n, len = strs;
	int i;

	assert_true(at + strs <= FAKE_CACHE_MAX);
	memset(h, 0, strs);
	memcpy(h, "glibc-ld.so.cache1.1", 20);
	put32(h + 20, n);
	for (i = 0; i < n; i++) {
		unsigned char *e = h + 48 + 24 * i;

		put32(e, 0x0303); /* libc6, x86-64: usym checks the file instead */
		put32(e + 4, len);
		len = put_str(h, at, len, libs[i].key);
		put32(e + 8, len);
		len = put_str(h, at, len, libs[i].value);
	}
	put32(h + 24, len - strs);
	return at + len;
}

struct tree {
	char root[64];
};

static void tree_new(struct tree *t)
{
	tmpdir_make(t->root, sizeof(t->root), "usym");
}

static void tree_free(struct tree *t)
{
	tmpdir_remove(t->root);
}

static void expect_lib(const struct tree *t, const char *target, const char *rel)
{
	char path[PATH_MAX], want[PATH_MAX];
	int err = usym_resolve_lib(t->root, target, path, sizeof(path));

	snprintf(want, sizeof(want), "%s%s", t->root, rel);
	if (err || strcmp(path, want))
		fail_msg("'%s': %d '%s', want '%s'", target, err, err ? "" : path, want);
}

static void expect_no_lib(const struct tree *t, const char *target)
{
	char path[PATH_MAX];

	util_mute(true);
	assert_int_equal(usym_resolve_lib(t->root, target, path, sizeof(path)), -ENOENT);
	util_mute(false);
}

/* A tree without a cache: the folders, runtime names first, ELF files of this machine only. */
static void test_resolve_dirs(void **state)
{
	unsigned char other[64];
	struct tree t;

	(void)state;
	tree_new(&t);
	tree_elf(t.root, "/usr/lib/libfoo.so.1");
	tree_file(t.root, "/usr/lib/libfoo.so", linker_script, sizeof(linker_script) - 1);
	tree_file(t.root, "/lib/libscript.so", linker_script, sizeof(linker_script) - 1);
	tree_elf(t.root, "/lib/libver.so.1.1");
	tree_elf(t.root, "/lib/libver.so.3");
	tree_elf(t.root, "/lib/libver.so.2");
	tree_elf(t.root, "/usr/lib64/libdash-2.0.so");
	tree_elf(t.root, "/usr/lib64/libdevonly.so");
	tree_file(t.root, "/lib64/libtext.so.1", "hello", 5);
	tree_elf(t.root, "/usr/lib/libfirst.so.1");
	/* The development link is ELF too (a symlink, usually), in an earlier folder. */
	tree_elf(t.root, "/lib64/libdual.so");
	tree_elf(t.root, "/usr/lib/libdual.so.1");
	tree_elf(t.root, "/lib/libfirst.so.1");
	/* Another machine's library, and another class's. */
	read_self();
	memcpy(other, self_elf, sizeof(other));
	other[18] = other[18] == EM_AARCH64 ? EM_X86_64 : EM_AARCH64;
	tree_file(t.root, "/lib/libforeign.so.1", other, sizeof(other));
	memcpy(other, self_elf, sizeof(other));
	other[EI_CLASS] = other[EI_CLASS] == ELFCLASS64 ? ELFCLASS32 : ELFCLASS64;
	tree_file(t.root, "/lib/libclass.so.1", other, sizeof(other));

	expect_lib(&t, "foo", "/usr/lib/libfoo.so.1");
	expect_lib(&t, "libfoo", "/usr/lib/libfoo.so.1");
	expect_lib(&t, "libfoo.so", "/usr/lib/libfoo.so.1");
	expect_lib(&t, "libfoo.so.1", "/usr/lib/libfoo.so.1");
	expect_lib(&t, "ver", "/lib/libver.so.3");
	expect_lib(&t, "libver.so.1.1", "/lib/libver.so.1.1");
	expect_lib(&t, "dash", "/usr/lib64/libdash-2.0.so");
	expect_lib(&t, "devonly", "/usr/lib64/libdevonly.so");
	/* /usr/lib64 is searched before /lib, /lib before /usr/lib. */
	expect_lib(&t, "first", "/lib/libfirst.so.1");
	expect_lib(&t, "dual", "/usr/lib/libdual.so.1");
	expect_no_lib(&t, "script");
	expect_no_lib(&t, "text");
	expect_no_lib(&t, "foreign");
	expect_no_lib(&t, "class");
	expect_no_lib(&t, "fo");
	expect_no_lib(&t, "libfoo.so.2");
	tree_free(&t);
}

static const struct fake_lib cached[] = {
	{ "libgone.so.1", "/opt/gone/libgone.so.1" },	/* a file that is not there */
	{ "libfoo.so.1", "/opt/cached/libfoo.so.1" },	/* wins over /usr/lib's */
	{ "libtext.so.1", "/opt/cached/libtext.so.1" }, /* not ELF: the folders' */
	{ "libfoo.so", "/opt/cached/libfoo.so" },	/* rank 2, never taken */
	{ "libbar.so.2", "/opt/cached/libbar.so.2" },	/* only in the cache */
	{ "libgone.so.1", "relative/not/taken.so" },	/* not an absolute path */
};

static void cache_tree(struct tree *t)
{
	tree_new(t);
	tree_elf(t->root, "/usr/lib/libfoo.so.1");
	tree_elf(t->root, "/usr/lib/libgone.so.1");
	tree_elf(t->root, "/usr/lib/libtext.so.1");
	tree_elf(t->root, "/opt/cached/libfoo.so.1");
	tree_elf(t->root, "/opt/cached/libfoo.so");
	tree_elf(t->root, "/opt/cached/libbar.so.2");
	tree_file(t->root, "/opt/cached/libtext.so.1", "text", 4);
}

static void expect_cached(const struct tree *t)
{
	expect_lib(t, "foo", "/opt/cached/libfoo.so.1");
	expect_lib(t, "bar", "/opt/cached/libbar.so.2");
	expect_lib(t, "libbar.so.2", "/opt/cached/libbar.so.2");
	expect_lib(t, "gone", "/usr/lib/libgone.so.1");
	expect_lib(t, "text", "/usr/lib/libtext.so.1");
}

static void test_resolve_cache(void **state)
{
	unsigned char buf[FAKE_CACHE_MAX];
	struct tree t;
	size_t len;

	(void)state;
	cache_tree(&t);
	len = fake_cache(buf, 0, cached, ARRAY_SIZE(cached));
	tree_file(t.root, "/etc/ld.so.cache", buf, len);
	expect_cached(&t);

	/* glibc before 2.32: an old table first (one entry), the new one 8-aligned after it. */
	memset(buf, 0, 32);
	memcpy(buf, "ld.so-1.7.0", 11);
	put32(buf + 12, 1);
	len = fake_cache(buf, 32, cached, ARRAY_SIZE(cached));
	tree_file(t.root, "/etc/ld.so.cache", buf, len);
	expect_cached(&t);
	tree_free(&t);
}

/* Damaged caches: no crash, the folders still answer, the cache's own library is gone. */
static void test_resolve_cache_damaged(void **state)
{
	unsigned char buf[FAKE_CACHE_MAX], bad[FAKE_CACHE_MAX];
	char path[PATH_MAX];
	struct tree t;
	size_t len, cut;
	int err;

	(void)state;
	cache_tree(&t);
	len = fake_cache(buf, 0, cached, ARRAY_SIZE(cached));
	for (cut = 0; cut < len; cut++) {
		tree_file(t.root, "/etc/ld.so.cache", buf, cut);
		expect_lib(&t, "gone", "/usr/lib/libgone.so.1");
		util_mute(true);
		err = usym_resolve_lib(t.root, "bar", path, sizeof(path));
		util_mute(false);
		/* Cut in bar's path: nothing; in a later entry's strings: bar still found. */
		assert_true(err == 0 || err == -ENOENT);
	}
	/* More entries than the file holds. */
	memcpy(bad, buf, len);
	put32(bad + 20, 1000);
	tree_file(t.root, "/etc/ld.so.cache", bad, len);
	expect_no_lib(&t, "bar");
	expect_lib(&t, "foo", "/usr/lib/libfoo.so.1");
	put32(bad + 20, 0xffffffff);
	tree_file(t.root, "/etc/ld.so.cache", bad, len);
	expect_no_lib(&t, "bar");
	/* Strings past the end, and a last string without its NUL. */
	memcpy(bad, buf, len);
	put32(bad + 48 + 24 * 4 + 4, 0xfffffff0);
	put32(bad + 48 + 24 * 4 + 8, len);
	tree_file(t.root, "/etc/ld.so.cache", bad, len);
	expect_no_lib(&t, "bar");
	memcpy(bad, buf, len);
	memset(bad + len - 8, 'x', 8);
	tree_file(t.root, "/etc/ld.so.cache", bad, len);
	expect_lib(&t, "bar", "/opt/cached/libbar.so.2");
	/* An old table whose count puts the new one past the end. */
	memset(bad, 0, 32);
	memcpy(bad, "ld.so-1.7.0", 11);
	put32(bad + 12, 0xffffffff);
	tree_file(t.root, "/etc/ld.so.cache", bad, 64);
	expect_no_lib(&t, "bar");
	tree_free(&t);
}

static void libc_path(char *path, size_t size)
{
	resolve_ok("c", 0, path, size);
}

static int find(const char *path, const char *pattern, struct usym *out, int max)
{
	int n = usym_find(path, pattern, out, max);

	if (n < 0)
		fail_msg("usym_find(%s, '%s'): %d", path, pattern, n);
	return n;
}

static int find_err(const char *path, const char *pattern, int err, const char *want)
{
	struct stderr_capture cap;
	struct usym u[4];
	char text[1024];
	int got;

	stderr_capture_begin(&cap);
	got = usym_find(path, pattern, u, ARRAY_SIZE(u));
	stderr_capture_end(&cap, text, sizeof(text));
	expect_err(got, err, text, want);
	return got;
}

static unsigned long long file_size(const char *path)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	return st.st_size;
}

/* malloc in libc, at the offset of the code the loader mapped from it. */
static void test_find_malloc(void **state)
{
	char path[PATH_MAX];
	struct loaded l;
	struct usym u[4];
	Dl_info info;
	void *lib, *sym;
	int n;

	(void)state;
	libc_path(path, sizeof(path));
	n = find(path, "malloc", u, ARRAY_SIZE(u));
	assert_int_equal(n, 1);
	assert_string_equal(u[0].name, "malloc");
	assert_false(u[0].ifunc);
	assert_true(u[0].size > 0);
	assert_true(u[0].offset < file_size(path));

	/* libc's own malloc: RTLD_DEFAULT may find a sanitizer's. */
	lib = dlopen(path, RTLD_NOLOAD | RTLD_LAZY);
	assert_non_null(lib);
	sym = dlsym(lib, "malloc");
	assert_non_null(sym);
	assert_true(dladdr(sym, &info) != 0);
	assert_true(same_file(info.dli_fname, path));
	loaded_at(sym, &l);
	/* A shared library is linked at 0: its bias is where it starts. */
	assert_int_equal((uintptr_t)info.dli_fbase, l.bias);
	assert_int_equal(u[0].offset, loaded_offset(&l, sym));
	dlclose(lib);

	/* glibc's alias at the same offset is found under its own name. */
	util_mute(true);
	n = usym_find(path, "__libc_malloc", u, ARRAY_SIZE(u));
	util_mute(false);
	if (n != -ENOENT) {
		assert_int_equal(n, 1);
		assert_string_equal(u[0].name, "__libc_malloc");
		assert_int_equal(u[0].offset, loaded_offset(&l, sym));
	}
}

static void test_find_glob(void **state)
{
	unsigned long long malloc_off;
	char path[PATH_MAX];
	struct usym u[64], two[2];
	int i, n, m;

	(void)state;
	libc_path(path, sizeof(path));
	assert_int_equal(find(path, "malloc", u, 1), 1);
	malloc_off = u[0].offset;

	n = find(path, "mallo*", u, ARRAY_SIZE(u));
	assert_true(n >= 3 && n <= (int)ARRAY_SIZE(u));
	for (i = 0; i < n; i++) {
		assert_int_equal(strncmp(u[i].name, "mallo", 5), 0);
		if (i)
			assert_true(strcmp(u[i - 1].name, u[i].name) < 0);
	}
	assert_string_equal(u[0].name, "malloc");
	/* The count is all of them; out gets the first max. */
	m = find(path, "mallo*", two, ARRAY_SIZE(two));
	assert_int_equal(m, n);
	assert_string_equal(two[0].name, u[0].name);
	assert_string_equal(two[1].name, u[1].name);
	assert_int_equal(find(path, "mallo?", NULL, 0), 1);

	/* malloc and __libc_malloc match, at one offset: one function, named by the first. */
	n = find(path, "*malloc", u, ARRAY_SIZE(u));
	for (i = 0, m = 0; i < n; i++) {
		if (u[i].offset == malloc_off) {
			m++;
			assert_true(!strcmp(u[i].name, "malloc") ||
				    !strcmp(u[i].name, "__libc_malloc"));
		}
	}
	assert_int_equal(m, 1);
}

static void test_find_ifunc(void **state)
{
	char path[PATH_MAX];
	struct usym u[2];

	(void)state;
	libc_path(path, sizeof(path));
	assert_int_equal(find(path, "strlen", u, ARRAY_SIZE(u)), 1);
	assert_true(u[0].offset < file_size(path));
#if defined(__x86_64__) && defined(__GLIBC__)
	/* glibc picks strlen's SSE2, AVX2 or EVEX version at load time. */
	assert_true(u[0].ifunc);
#endif
	assert_int_equal(find(path, "free", u, ARRAY_SIZE(u)), 1);
	assert_false(u[0].ifunc);
}

static void test_find_missing(void **state)
{
	char path[PATH_MAX], want[PATH_MAX + 64];

	(void)state;
	libc_path(path, sizeof(path));
	snprintf(want, sizeof(want), "%s has no function 'no_such_function_xyz'", path);
	find_err(path, "no_such_function_xyz", -ENOENT, want);
	find_err(path, "mallocc", -ENOENT, "has no function 'mallocc'; did you mean 'malloc'?");
	find_err(path, "zzz_no_such_*", -ENOENT, "has no function matching 'zzz_no_such_*'");
	find_err(path, "", -EINVAL, "empty function name");
	find_err("/etc/passwd", "malloc", -ENOEXEC, "/etc/passwd is not an ELF file");
	find_err("/nonexistent/x", "malloc", -ENOENT, "/nonexistent/x: no such file");
}

/* A function of this PIE (or not) binary, at the offset its running code came from. */
static void test_find_self(void **state)
{
	struct loaded l;
	struct usym u[2];

	(void)state;
	assert_int_equal(find("/proc/self/exe", "usym_test_target", u, ARRAY_SIZE(u)), 1);
	assert_string_equal(u[0].name, "usym_test_target");
	assert_true(u[0].size > 0);
	loaded_at((void *)usym_test_target, &l);
	assert_int_equal(u[0].offset, loaded_offset(&l, (void *)usym_test_target));
	assert_int_equal(usym_test_target(1), 4);

	assert_int_equal(find("/proc/self/exe", "usym_test_alias", u, ARRAY_SIZE(u)), 1);
	assert_string_equal(u[0].name, "usym_test_alias");
	assert_int_equal(u[0].offset, loaded_offset(&l, (void *)usym_test_target));
	/* Both match: one function, under one of the two names. */
	assert_int_equal(find("/proc/self/exe", "usym_test_*", u, ARRAY_SIZE(u)), 1);
	assert_int_equal(u[0].offset, loaded_offset(&l, (void *)usym_test_target));
}

struct damaged {
	char path[64];
	unsigned char *buf;
};

static void damaged_new(struct damaged *d)
{
	int fd;

	read_self();
	strcpy(d->path, "/tmp/ksnoop-test-usym-elf.XXXXXX");
	fd = mkstemp(d->path);
	assert_true(fd >= 0);
	close(fd);
	d->buf = malloc(self_size);
	assert_non_null(d->buf);
}

static void damaged_free(struct damaged *d)
{
	unlink(d->path);
	free(d->buf);
}

/* usym_find on the first len bytes of d->buf: an error that says the file is bad. */
static void expect_bad(struct damaged *d, size_t len, const char *what)
{
	int n;

	write_bytes(d->path, d->buf, len);
	util_mute(true);
	n = usym_find(d->path, "usym_test_target", NULL, 0);
	util_mute(false);
	if (n != -EBADMSG && n != -ENOEXEC)
		fail_msg("%s (%zu bytes): %d, want -EBADMSG or -ENOEXEC", what, len, n);
}

static Shdr *shdr(struct damaged *d, int idx)
{
	Ehdr *eh = (Ehdr *)d->buf;

	return (Shdr *)(d->buf + eh->e_shoff + (size_t)idx * eh->e_shentsize);
}

/* The index of the first section of type in d->buf (a good copy). */
static int section_of(struct damaged *d, uint32_t type)
{
	Ehdr *eh = (Ehdr *)d->buf;
	int i;

	for (i = 1; i < eh->e_shnum; i++) {
		if (shdr(d, i)->sh_type == type)
			return i;
	}
	fail_msg("no section of type %u", type);
	return -1;
}

/*
 * Code a segment loads from elsewhere in the file than its address: here
 * 0x1000 bytes before. (The linker gives text equal offsets and addresses,
 * in this binary as in libc, where st_value alone would do.)
 */
static void test_find_translated(void **state)
{
	Ehdr *eh;
	Phdr *ph = NULL;
	struct damaged d;
	struct usym u[2];
	unsigned long long want;
	int i;

	(void)state;
	damaged_new(&d);
	memcpy(d.buf, self_elf, self_size);
	assert_int_equal(find("/proc/self/exe", "usym_test_target", u, 1), 1);
	want = u[0].offset - 0x1000;
	eh = (Ehdr *)d.buf;
	for (i = 0; i < eh->e_phnum && !ph; i++) {
		Phdr *p = (Phdr *)(d.buf + eh->e_phoff + (size_t)i * eh->e_phentsize);

		if (p->p_type == PT_LOAD && (p->p_flags & PF_X))
			ph = p;
	}
	assert_non_null(ph);
	assert_true(ph->p_offset >= 0x1000);
	ph->p_offset -= 0x1000;
	write_bytes(d.path, d.buf, self_size);
	assert_int_equal(find(d.path, "usym_test_target", u, 1), 1);
	assert_int_equal(u[0].offset, want);
	damaged_free(&d);
}

static void test_find_truncated(void **state)
{
	static const size_t cuts[] = { 0, 1, 4, 16, 19, 20, 63, 64, 100, 4096 };
	struct damaged d;
	size_t i;

	(void)state;
	damaged_new(&d);
	memcpy(d.buf, self_elf, self_size);
	/* The copy whole works. */
	write_bytes(d.path, d.buf, self_size);
	assert_int_equal(find(d.path, "usym_test_target", NULL, 0), 1);
	for (i = 0; i < ARRAY_SIZE(cuts); i++)
		expect_bad(&d, cuts[i], "cut short");
	for (i = 1; i < 64; i++)
		expect_bad(&d, self_size * i / 64, "cut short");
	expect_bad(&d, self_size - 1, "cut short");
	damaged_free(&d);
}

/* One field of the copy spoiled at a time: each must fail. */
static void test_find_garbage(void **state)
{
	Ehdr *eh;
	struct damaged d;
	int sym, str;

	(void)state;
	damaged_new(&d);
	eh = (Ehdr *)d.buf;
#define SPOIL(what, stmt)                           \
	do {                                        \
		memcpy(d.buf, self_elf, self_size); \
		stmt;                               \
		expect_bad(&d, self_size, what);    \
	} while (0)

	memcpy(d.buf, self_elf, self_size);
	sym = section_of(&d, SHT_SYMTAB);
	str = shdr(&d, sym)->sh_link;
	SPOIL("e_shoff past the end", eh->e_shoff = self_size + 4096);
	SPOIL("e_shoff at the end", eh->e_shoff = self_size);
	SPOIL("e_shnum too many", eh->e_shnum = 0xfff0);
	SPOIL("e_phoff past the end", eh->e_phoff = self_size + 8);
	SPOIL("e_phnum too many", eh->e_phnum = 0xfff0);
	SPOIL("sh_offset past the end", shdr(&d, sym)->sh_offset = self_size + 1);
	SPOIL("sh_offset near the end", shdr(&d, sym)->sh_offset = self_size - 8);
	SPOIL("sh_size past the end", shdr(&d, sym)->sh_size = self_size * 2);
	SPOIL("sh_size huge", shdr(&d, sym)->sh_size = ~(ElfW(Xword))0 - 16);
	SPOIL("sh_entsize wrong", shdr(&d, sym)->sh_entsize = 7);
	SPOIL("sh_link out of range", shdr(&d, sym)->sh_link = eh->e_shnum + 5);
	SPOIL("sh_link huge", shdr(&d, sym)->sh_link = 0xffffffff);
	SPOIL("sh_link none", shdr(&d, sym)->sh_link = 0);
	SPOIL("sh_link to itself", shdr(&d, sym)->sh_link = sym);
	SPOIL("strtab past the end", shdr(&d, str)->sh_offset = self_size + 100);
	SPOIL("strtab too long", shdr(&d, str)->sh_size = self_size);
	SPOIL("strtab empty", shdr(&d, str)->sh_size = 0);
	SPOIL("not ELF", d.buf[0] = 0);
	SPOIL("other class", d.buf[EI_CLASS] = ELFCLASSNONE);
	SPOIL("other machine",
	      eh->e_machine = eh->e_machine == EM_AARCH64 ? EM_X86_64 : EM_AARCH64);
	SPOIL("an object file", eh->e_type = ET_REL);
#undef SPOIL
	damaged_free(&d);
}

/* Random bytes in the headers and tables: anything but a crash (ASan watches the rest). */
static void test_find_fuzz(void **state)
{
	Ehdr *eh;
	struct damaged d;
	unsigned int seed = 37;
	size_t shdrs, i;
	int round, n;

	(void)state;
	damaged_new(&d);
	eh = (Ehdr *)self_elf;
	shdrs = eh->e_shoff;
	for (round = 0; round < 300; round++) {
		memcpy(d.buf, self_elf, self_size);
		for (i = 0; i < 8; i++) {
			size_t at = rand_r(&seed) % 3 == 0
					    ? (size_t)rand_r(&seed) % 64
					    : shdrs + rand_r(&seed) % (self_size - shdrs);

			d.buf[at] = rand_r(&seed);
		}
		write_bytes(d.path, d.buf, self_size);
		util_mute(true);
		n = usym_find(d.path, round % 2 ? "usym_test_*" : "usym_test_target", NULL, 0);
		util_mute(false);
		assert_true(n >= 0 || n == -EBADMSG || n == -ENOEXEC || n == -ENOENT ||
			    n == -ENODATA);
	}
	damaged_free(&d);
}

static bool have_objcopy(void)
{
	return system("command -v objcopy >/dev/null 2>&1") == 0;
}

/* objcopy ARGS src dst, quietly: its exit status. */
static int objcopy(const char *args, const char *src, const char *dst)
{
	char cmd[PATH_MAX * 2 + 128];

	snprintf(cmd, sizeof(cmd), "objcopy %s '%s' '%s' 2>/dev/null", args, src, dst);
	return system(cmd);
}

static void test_find_stripped(void **state)
{
	char path[PATH_MAX], copy[] = "/tmp/ksnoop-test-usym-strip.XXXXXX";
	struct usym u[2];
	int fd;

	(void)state;
	if (!have_objcopy())
		skip();
	fd = mkstemp(copy);
	assert_true(fd >= 0);
	close(fd);

	/* Neither table: stripped. */
	assert_int_equal(objcopy("--strip-all -R .dynsym", "/proc/self/exe", copy), 0);
	find_err(copy, "usym_test_target", -ENODATA, "is stripped: no symbol table");
	/* --strip-all keeps .dynsym, with the imports but not our function. */
	assert_int_equal(objcopy("--strip-all", "/proc/self/exe", copy), 0);
	find_err(copy, "usym_test_target", -ENOENT, "has no function 'usym_test_target'");
	/* A stripped library still has its exports. */
	libc_path(path, sizeof(path));
	assert_int_equal(objcopy("--strip-all", path, copy), 0);
	assert_int_equal(find(copy, "malloc", u, ARRAY_SIZE(u)), 1);
	unlink(copy);
}

static int teardown(void **state)
{
	(void)state;
	free(self_elf);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_resolve_names),  cmocka_unit_test(test_resolve_errors),
		cmocka_unit_test(test_resolve_pid),    cmocka_unit_test(test_resolve_dirs),
		cmocka_unit_test(test_resolve_cache),  cmocka_unit_test(test_resolve_cache_damaged),
		cmocka_unit_test(test_find_malloc),    cmocka_unit_test(test_find_glob),
		cmocka_unit_test(test_find_ifunc),     cmocka_unit_test(test_find_missing),
		cmocka_unit_test(test_find_self),      cmocka_unit_test(test_find_translated),
		cmocka_unit_test(test_find_truncated), cmocka_unit_test(test_find_garbage),
		cmocka_unit_test(test_find_fuzz),      cmocka_unit_test(test_find_stripped),
	};

	return cmocka_run_group_tests_name("usym", tests, NULL, teardown);
}
