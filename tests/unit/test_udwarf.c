// SPDX-License-Identifier: GPL-2.0
/*
 * udwarf.c: user functions' prototypes from DWARF, on a library built here
 * with cc -g (parameters of scalar, string, size_t, struct pointer,
 * variadic, static and typedef'd kinds; a struct with a nested struct,
 * arrays, bitfields, an enum, an anonymous union, a float and a pointer to
 * itself), the same built without -g, through a .gnu_debuglink debug file,
 * damaged, past the bounds, and libc's debug file when libc6-dbg is in.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>

#include "testutil.h"
#include "lib/udwarf.h"
#include "lib/usym.h"

static const char lib_src[] =
	"#include <stdarg.h>\n"
	"#include <stddef.h>\n"
	"enum ud_color { UD_RED, UD_GREEN = 5, UD_BLUE = -1 };\n"
	"typedef unsigned long ud_handle_t;\n"
	"typedef long ud_small_t;\n"
	"struct ud_inner { short s; char tag[6]; };\n"
	"typedef struct ud_list ud_list_t;\n"
	"struct ud_list { ud_list_t *next; int v; };\n"
	"struct ud_node {\n"
	"	int id;\n"
	"	struct ud_inner in;\n"
	"	char name[16];\n"
	"	unsigned int flags : 3, mode : 5;\n"
	"	enum ud_color color;\n"
	"	struct ud_node *next;\n"
	"	const char *label;\n"
	"	int grid[2][3];\n"
	"	union { int u; long l; };\n"
	"	double ratio;\n"
	"	void (*cb)(int);\n"
	"};\n"
	"struct ud_big { long a, b, c; };\n"
	"int ud_int(int a, int b) { return a + b; }\n"
	"char *ud_str(char *s, size_t len) { return s + len; }\n"
	"long ud_node(struct ud_node *n, const struct ud_node *other)\n"
	"{ return n->id + other->id + n->flags; }\n"
	"int ud_list(ud_list_t *l) { return l->next->v; }\n"
	"int ud_var(const char *fmt, ...)\n"
	"{ va_list ap; int n; va_start(ap, fmt); n = va_arg(ap, int); va_end(ap); return n + *fmt; }\n"
	"__attribute__((noinline)) static int ud_static(int x) { return x * 3; }\n"
	"int (*ud_static_ptr(void))(int) { return ud_static; }\n"
	"ud_handle_t ud_handle(ud_small_t n) { return n; }\n"
	"double ud_double(double x) { return x * 2; }\n"
	"struct ud_big ud_big(int a) { struct ud_big b = { a, a, a }; return b; }\n";

/* The libraries built once for every test; dir[0] is '\0' without a compiler. */
static struct {
	char dir[64];
	char lib[PATH_MAX];	/* -g */
	char nodebug[PATH_MAX]; /* without -g */
	char linked[PATH_MAX];	/* stripped, its DWARF in .debug/ by .gnu_debuglink */
} t;

/* The "kernel's" BTF the prototypes are split on, and the types it has. */
struct base {
	struct btf *btf;
	int int_t, char_t, ulong_t, size_t_t, small_t;
};

static int group_setup(void **state)
{
	char src[PATH_MAX];

	(void)state;
	tmpdir_make(t.dir, sizeof(t.dir), "udwarf");
	snprintf(src, sizeof(src), "%s/lib.c", t.dir);
	sym_file_write(src, lib_src);
	snprintf(t.lib, sizeof(t.lib), "%s/libud.so", t.dir);
	snprintf(t.nodebug, sizeof(t.nodebug), "%s/libud-nodebug.so", t.dir);
	snprintf(t.linked, sizeof(t.linked), "%s/libud-linked.so", t.dir);
	if (run_quiet("cc -g -O1 -shared -fPIC -Wl,--build-id -o '%s' '%s'", t.lib, src) ||
	    run_quiet("cc -O1 -shared -fPIC -Wl,--build-id -o '%s' '%s'", t.nodebug, src)) {
		tmpdir_remove(t.dir);
		t.dir[0] = '\0';
		return 0;
	}
	/* objcopy may be missing: then only the debug link test skips */
	run_quiet("cd '%s' && mkdir .debug && cp libud.so libud-linked.so && "
		  "objcopy --only-keep-debug libud-linked.so .debug/libud-linked.debug && "
		  "strip --strip-debug libud-linked.so && "
		  "objcopy --add-gnu-debuglink=.debug/libud-linked.debug libud-linked.so",
		  t.dir);
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	if (t.dir[0])
		tmpdir_remove(t.dir);
	return 0;
}

static void need_lib(void)
{
	if (!t.dir[0])
		skip();
}

static void base_new(struct base *b)
{
	b->btf = btf__new_empty();
	assert_non_null(b->btf);
	b->int_t = btf__add_int(b->btf, "int", 4, BTF_INT_SIGNED);
	b->char_t = btf__add_int(b->btf, "char", 1, BTF_INT_SIGNED | BTF_INT_CHAR);
	b->ulong_t = btf__add_int(b->btf, "long unsigned int", 8, 0);
	b->size_t_t = btf__add_typedef(b->btf, "size_t", b->ulong_t);
	/* the library's ud_small_t is a long: this one is not it */
	b->small_t = btf__add_typedef(b->btf, "ud_small_t", b->char_t);
	assert_true(b->small_t > 0);
}

/* udwarf_add_proto for the function name of path, stderr into err: its result. */
static int add(struct btf *btf, const char *path, const char *name, __u32 *proto, char *err,
	       size_t size)
{
	struct stderr_capture cap;
	struct usym us;
	int rc;

	assert_int_equal(usym_find(path, name, &us, 1), 1);
	stderr_capture_begin(&cap);
	rc = udwarf_add_proto(btf, path, us.addr, name, proto);
	stderr_capture_end(&cap, err, size);
	return rc;
}

/* The prototype of name, which must be made without a word, as a BTF function. */
static __u32 add_ok(struct btf *btf, const char *path, const char *name)
{
	char err[512];
	__u32 proto = 0;
	int rc = add(btf, path, name, &proto, err, sizeof(err));

	if (rc)
		fail_msg("%s: %d, stderr '%s'", name, rc, err);
	assert_string_equal(err, "");
	rc = btf__add_func(btf, name, BTF_FUNC_GLOBAL, proto);
	assert_true(rc > 0);
	return rc;
}

static void expect_decl(const struct btf *btf, __u32 func, const char *want)
{
	struct strbuf sb;

	sb_init(&sb);
	assert_int_equal(kbtf_format_proto(btf, func, NULL, &sb), 0);
	assert_string_equal(sb_str(&sb), want);
	sb_free(&sb);
}

static const struct btf_param *param(const struct btf *btf, __u32 func, int i, int *nr)
{
	const struct btf_type *fn = btf__type_by_id(btf, func);
	const struct btf_type *proto = btf__type_by_id(btf, fn->type);

	*nr = btf_vlen(proto);
	assert_true(i < *nr);
	return btf_params(proto) + i;
}

/* Type id, which must be of kind (its id into out, unless NULL). */
static const struct btf_type *type_of(const struct btf *btf, __u32 id, int kind, __u32 *out)
{
	const struct btf_type *ty = btf__type_by_id(btf, id);

	assert_non_null(ty);
	if (btf_kind(ty) != kind)
		fail_msg("type %u is of kind %u, want %d", id, btf_kind(ty), kind);
	if (out)
		*out = id;
	return ty;
}

static const struct btf_member *member(const struct btf *btf, const struct btf_type *st,
				       const char *name, __u32 bit_off, __u32 bit_size)
{
	const struct btf_member *m = btf_members(st);
	int i;

	for (i = 0; i < btf_vlen(st); i++, m++) {
		if (strcmp(btf__name_by_offset(btf, m->name_off), name))
			continue;
		assert_int_equal(btf_member_bit_offset(st, i), bit_off);
		assert_int_equal(btf_member_bitfield_size(st, i), bit_size);
		return m;
	}
	fail_msg("no member '%s'", name);
	return NULL;
}

static void test_scalars(void **state)
{
	const struct btf_param *p;
	struct base b;
	struct btf *btf;
	__u32 fn, id;
	int nr;

	(void)state;
	need_lib();
	base_new(&b);
	btf = btf__new_empty_split(b.btf);
	fn = add_ok(btf, t.lib, "ud_int");
	expect_decl(btf, fn, "int ud_int(int a, int b)");
	p = param(btf, fn, 1, &nr);
	assert_int_equal(nr, 2);
	/* the kernel's int, not one of ours */
	assert_int_equal(p->type, b.int_t);

	/* a string, and size_t: the kernel's, of the same size */
	fn = add_ok(btf, t.lib, "ud_str");
	expect_decl(btf, fn, "char *ud_str(char *s, size_t len)");
	assert_int_equal(param(btf, fn, 1, &nr)->type, b.size_t_t);
	type_of(btf, param(btf, fn, 0, &nr)->type, BTF_KIND_PTR, NULL);

	/* typedefs keep their names; the kernel's of another size is not taken */
	fn = add_ok(btf, t.lib, "ud_handle");
	expect_decl(btf, fn, "ud_handle_t ud_handle(ud_small_t n)");
	id = param(btf, fn, 0, &nr)->type;
	assert_int_not_equal(id, b.small_t);
	assert_int_equal(btf__resolve_size(btf, id), 8);

	/* variadic: "...", a nameless parameter of type void */
	fn = add_ok(btf, t.lib, "ud_var");
	expect_decl(btf, fn, "int ud_var(const char *fmt, ...)");
	p = param(btf, fn, 1, &nr);
	assert_int_equal(nr, 2);
	assert_int_equal(p->type, 0);
	assert_int_equal(p->name_off, 0);

	/* a static function, by its address */
	fn = add_ok(btf, t.lib, "ud_static");
	expect_decl(btf, fn, "int ud_static(int x)");
	btf__free(btf);
	btf__free(b.btf);
	udwarf_forget();
}

static void test_struct(void **state)
{
	const struct btf_type *st, *ty;
	const struct btf_member *m;
	__u32 fn, node, id;
	const struct btf_enum *e;
	struct base b;
	struct btf *btf;
	int nr;

	(void)state;
	need_lib();
	base_new(&b);
	btf = btf__new_empty_split(b.btf);
	fn = add_ok(btf, t.lib, "ud_node");
	expect_decl(btf, fn, "long int ud_node(struct ud_node *n, const struct ud_node *other)");
	ty = type_of(btf, param(btf, fn, 0, &nr)->type, BTF_KIND_PTR, NULL);
	st = type_of(btf, ty->type, BTF_KIND_STRUCT, &node);
	assert_string_equal(btf__name_by_offset(btf, st->name_off), "ud_node");
	assert_int_equal(st->size, 104);
	assert_int_equal(btf_vlen(st), 12);

	member(btf, st, "id", 0, 0);
	m = member(btf, st, "in", 32, 0);
	ty = type_of(btf, m->type, BTF_KIND_STRUCT, NULL);
	assert_int_equal(ty->size, 8);
	member(btf, ty, "tag", 16, 0);
	m = member(btf, st, "name", 96, 0);
	ty = type_of(btf, m->type, BTF_KIND_ARRAY, NULL);
	assert_int_equal(btf_array(ty)->nelems, 16);
	assert_int_equal(btf_array(ty)->type, b.char_t);
	member(btf, st, "flags", 224, 3);
	member(btf, st, "mode", 227, 5);

	m = member(btf, st, "color", 256, 0);
	ty = type_of(btf, m->type, BTF_KIND_ENUM, NULL);
	assert_string_equal(btf__name_by_offset(btf, ty->name_off), "ud_color");
	assert_int_equal(btf_vlen(ty), 3);
	e = btf_enum(ty);
	assert_string_equal(btf__name_by_offset(btf, e[1].name_off), "UD_GREEN");
	assert_int_equal(e[1].val, 5);
	assert_int_equal(e[2].val, -1);

	/* a pointer to itself */
	m = member(btf, st, "next", 320, 0);
	ty = type_of(btf, m->type, BTF_KIND_PTR, NULL);
	assert_int_equal(ty->type, node);
	m = member(btf, st, "label", 384, 0);
	ty = type_of(btf, m->type, BTF_KIND_PTR, NULL);
	ty = type_of(btf, ty->type, BTF_KIND_CONST, NULL);
	assert_int_equal(ty->type, b.char_t);

	/* int grid[2][3]: 2 arrays of 3 */
	m = member(btf, st, "grid", 448, 0);
	ty = type_of(btf, m->type, BTF_KIND_ARRAY, NULL);
	assert_int_equal(btf_array(ty)->nelems, 2);
	ty = type_of(btf, btf_array(ty)->type, BTF_KIND_ARRAY, NULL);
	assert_int_equal(btf_array(ty)->nelems, 3);
	assert_int_equal(btf_array(ty)->type, b.int_t);

	m = member(btf, st, "", 640, 0);
	ty = type_of(btf, m->type, BTF_KIND_UNION, NULL);
	assert_int_equal(btf_vlen(ty), 2);
	m = member(btf, st, "ratio", 704, 0);
	ty = type_of(btf, m->type, BTF_KIND_FLOAT, NULL);
	assert_int_equal(ty->size, 8);
	/* a function pointer: a pointer to its prototype, which output names it by */
	m = member(btf, st, "cb", 768, 0);
	ty = type_of(btf, m->type, BTF_KIND_PTR, NULL);
	ty = type_of(btf, ty->type, BTF_KIND_FUNC_PROTO, NULL);
	assert_int_equal(ty->type, 0); /* void (*cb)(int) */
	assert_int_equal(btf_vlen(ty), 1);
	assert_int_equal(btf_params(ty)[0].type, b.int_t);

	/* the second parameter's struct is the first's: converted once */
	ty = type_of(btf, param(btf, fn, 1, &nr)->type, BTF_KIND_PTR, NULL);
	ty = type_of(btf, ty->type, BTF_KIND_CONST, NULL);
	assert_int_equal(ty->type, node);

	/* a typedef of a struct that holds a pointer to that typedef */
	fn = add_ok(btf, t.lib, "ud_list");
	ty = type_of(btf, param(btf, fn, 0, &nr)->type, BTF_KIND_PTR, NULL);
	ty = type_of(btf, ty->type, BTF_KIND_TYPEDEF, &id);
	assert_string_equal(btf__name_by_offset(btf, ty->name_off), "ud_list_t");
	st = type_of(btf, ty->type, BTF_KIND_STRUCT, &id);
	m = member(btf, st, "next", 0, 0);
	ty = type_of(btf, m->type, BTF_KIND_PTR, NULL);
	ty = type_of(btf, ty->type, BTF_KIND_TYPEDEF, NULL);
	assert_string_equal(btf__name_by_offset(btf, ty->name_off), "ud_list_t");
	assert_int_equal(ty->type, id);
	btf__free(btf);
	btf__free(b.btf);
	udwarf_forget();
}

/* -ENOENT, and not a word: the caller falls back on arg0.. */
static void expect_enoent(const char *path, const char *name, unsigned long long off)
{
	struct stderr_capture cap;
	char err[512];
	struct base b;
	struct btf *btf;
	struct usym us;
	__u32 proto = 0;
	int rc;

	base_new(&b);
	btf = btf__new_empty_split(b.btf);
	assert_int_equal(usym_find(path, name, &us, 1), 1);
	stderr_capture_begin(&cap);
	rc = udwarf_add_proto(btf, path, us.addr + off, name, &proto);
	stderr_capture_end(&cap, err, sizeof(err));
	if (rc != -ENOENT)
		fail_msg("%s+%llu in %s: %d, want -ENOENT", name, off, path, rc);
	assert_string_equal(err, "");
	/* nothing added */
	assert_int_equal(btf__type_cnt(btf), btf__type_cnt(b.btf));
	btf__free(btf);
	btf__free(b.btf);
	udwarf_forget();
}

static void test_none(void **state)
{
	(void)state;
	need_lib();
	/* no function starts there */
	expect_enoent(t.lib, "ud_int", 1);
	/* no DWARF at all */
	expect_enoent(t.nodebug, "ud_int", 0);
	/* values outside integer registers: a double, a struct returned by value */
	expect_enoent(t.lib, "ud_double", 0);
	expect_enoent(t.lib, "ud_big", 0);
}

static void test_debuglink(void **state)
{
	struct base b;
	struct btf *btf;
	char dbg[PATH_MAX];

	(void)state;
	need_lib();
	snprintf(dbg, sizeof(dbg), "%s/.debug/libud-linked.debug", t.dir);
	if (access(dbg, R_OK))
		skip();
	base_new(&b);
	btf = btf__new_empty_split(b.btf);
	expect_decl(btf, add_ok(btf, t.linked, "ud_str"), "char *ud_str(char *s, size_t len)");
	btf__free(btf);
	btf__free(b.btf);
	udwarf_forget();

	/* a debug file of another build (-O2's) there is not taken */
	assert_int_equal(
		run_quiet("cd '%s' && cc -g -O2 -shared -fPIC -Wl,--build-id -o other.so lib.c && "
			  "objcopy --only-keep-debug other.so '%s'",
			  t.dir, dbg),
		0);
	expect_enoent(t.linked, "ud_str", 0);
}

/* The file offset and size of path's section name, by libelf. */
static bool section_of(const char *path, const char *name, GElf_Shdr *out, size_t *shdr_off)
{
	int fd = open(path, O_RDONLY);
	Elf_Scn *scn = NULL;
	bool found = false;
	GElf_Ehdr eh;
	size_t strndx;
	Elf *elf;

	assert_true(fd >= 0);
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	assert_non_null(elf);
	assert_int_equal(elf_getshdrstrndx(elf, &strndx), 0);
	assert_non_null(gelf_getehdr(elf, &eh));
	while (!found && (scn = elf_nextscn(elf, scn))) {
		assert_non_null(gelf_getshdr(scn, out));
		found = !strcmp(elf_strptr(elf, strndx, out->sh_name), name);
		*shdr_off = eh.e_shoff + elf_ndxscn(scn) * eh.e_shentsize;
	}
	elf_end(elf);
	close(fd);
	return found;
}

/* A fresh copy of the library, to damage. */
static void damaged_copy(const char *copy)
{
	assert_int_equal(run_quiet("cp '%s' '%s'", t.lib, copy), 0);
}

static void patch(const char *path, size_t off, const void *buf, size_t len)
{
	int fd = open(path, O_WRONLY);

	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, buf, len, off), (ssize_t)len);
	close(fd);
}

/*
 * The prototype of ud_node from a damaged copy: an error said in one
 * line, or (must_fail false: damage libdw may not see) a prototype or
 * none; never a crash.
 */
static int add_damaged(const char *path, bool must_fail)
{
	struct stderr_capture cap;
	char err[1024];
	struct base b;
	struct btf *btf;
	struct usym us;
	__u32 proto;
	int rc;

	base_new(&b);
	btf = btf__new_empty_split(b.btf);
	/* the intact library's address: the damaged one's symbols may be gone */
	assert_int_equal(usym_find(t.lib, "ud_node", &us, 1), 1);
	stderr_capture_begin(&cap);
	rc = udwarf_add_proto(btf, path, us.addr, "t:ud_node", &proto);
	stderr_capture_end(&cap, err, sizeof(err));
	udwarf_forget();
	if (rc == -EBADMSG || (must_fail && rc != -ENOENT))
		expect_one_error_line(err, "damaged");
	if (must_fail && (rc == 0 || rc == -ENOENT))
		fail_msg("damaged DWARF gave %d, stderr '%s'", rc, err);
	assert_true(rc == 0 || rc == -ENOENT || rc == -EBADMSG);
	btf__free(btf);
	btf__free(b.btf);
	return rc;
}

static void test_damaged(void **state)
{
	char copy[PATH_MAX];
	unsigned char junk[4096];
	unsigned int seed = 1;
	size_t shdr_off, i, round;
	GElf_Shdr sh;

	(void)state;
	need_lib();
	snprintf(copy, sizeof(copy), "%s/damaged.so", t.dir);
	damaged_copy(copy);
	assert_true(section_of(copy, ".debug_info", &sh, &shdr_off));

	/* .debug_info cut to a quarter: its CUs run past its end */
	sh.sh_size /= 4;
	patch(copy, shdr_off + offsetof(Elf64_Shdr, sh_size), &sh.sh_size, sizeof(sh.sh_size));
	add_damaged(copy, true);

	/* random bytes over all of it */
	damaged_copy(copy);
	assert_true(section_of(copy, ".debug_info", &sh, &shdr_off));
	for (i = 0; i < sizeof(junk); i++)
		junk[i] = rand_r(&seed);
	for (i = 0; i < sh.sh_size; i += sizeof(junk))
		patch(copy, sh.sh_offset + i, junk, min(sizeof(junk), sh.sh_size - i));
	add_damaged(copy, true);

	/* a file cut in the middle of its DWARF */
	damaged_copy(copy);
	assert_int_equal(truncate(copy, sh.sh_offset + sh.sh_size / 2), 0);
	add_damaged(copy, true);

	/* a few bytes changed here and there, in DIEs and abbreviations: whatever libdw makes of them */
	for (round = 0; round < 60; round++) {
		const char *sec = round % 3 ? ".debug_info" : ".debug_abbrev";

		damaged_copy(copy);
		assert_true(section_of(copy, sec, &sh, &shdr_off));
		for (i = 0; i < 1 + round % 8; i++) {
			unsigned char byte = rand_r(&seed);

			patch(copy, sh.sh_offset + rand_r(&seed) % sh.sh_size, &byte, 1);
		}
		add_damaged(copy, false);
	}
	unlink(copy);
}

/* Generated source: n structs, each reached through a pointer of the one before. */
static void bounds_lib(const char *path, const char *so)
{
	FILE *f = fopen(path, "w");
	int i;

	assert_non_null(f);
	/* a chain deeper than UDWARF_MAX_DEPTH */
	for (i = 0; i < 40; i++)
		fprintf(f, "struct c%d { int v; struct c%d *next; };\n", i, i + 1);
	fprintf(f, "struct c40 { int v; };\n");
	fprintf(f, "int deep(struct c0 *p) { return p->v; }\n");
	/* more types than UDWARF_MAX_TYPES: 1000 members, 3 structs and 3 pointers each */
	for (i = 0; i < 1000; i++)
		fprintf(f,
			"struct u%d { int v; }; struct t%d { int v; struct u%d *u; };\n"
			"struct s%d { int v; struct t%d *t; };\n",
			i, i, i, i, i);
	fprintf(f, "struct wide {\n");
	for (i = 0; i < 1000; i++)
		fprintf(f, "	struct s%d *m%d;\n", i, i);
	fprintf(f, "};\nint wide(struct wide *w, int x) { return w->m999->v + x; }\n");
	fclose(f);
	if (run_quiet("cc -g -O1 -shared -fPIC -o '%s' '%s'", so, path))
		skip();
}

static void test_bounds(void **state)
{
	const struct btf_type *ty;
	char src[PATH_MAX], so[PATH_MAX];
	struct base b;
	struct btf *btf;
	int nr, depth;
	__u32 fn, id;

	(void)state;
	need_lib();
	snprintf(src, sizeof(src), "%s/bounds.c", t.dir);
	snprintf(so, sizeof(so), "%s/libbounds.so", t.dir);
	bounds_lib(src, so);
	base_new(&b);

	/* the chain: structs down to the bound, then a pointer to void */
	btf = btf__new_empty_split(b.btf);
	fn = add_ok(btf, so, "deep");
	id = param(btf, fn, 0, &nr)->type;
	for (depth = 0; id; depth++) {
		ty = type_of(btf, id, BTF_KIND_PTR, NULL);
		if (!ty->type)
			break;
		ty = type_of(btf, ty->type, BTF_KIND_STRUCT, NULL);
		id = btf_members(ty)[1].type;
	}
	assert_true(depth >= UDWARF_MAX_DEPTH / 2 - 1 && depth < 40);
	btf__free(btf);

	/* the wide struct: at most UDWARF_MAX_TYPES types (and the prototype), all parameters */
	btf = btf__new_empty_split(b.btf);
	fn = add_ok(btf, so, "wide");
	expect_decl(btf, fn, "int wide(struct wide *w, int x)");
	assert_true(btf__type_cnt(btf) - btf__type_cnt(b.btf) <= UDWARF_MAX_TYPES + 8);
	ty = type_of(btf, param(btf, fn, 0, &nr)->type, BTF_KIND_PTR, NULL);
	ty = type_of(btf, ty->type, BTF_KIND_STRUCT, NULL);
	assert_int_equal(btf_vlen(ty), 1000);
	/* past the bound, the last member's pointer points at void */
	ty = type_of(btf, btf_members(ty)[999].type, BTF_KIND_PTR, NULL);
	assert_int_equal(ty->type, 0);
	btf__free(btf);
	btf__free(b.btf);
	udwarf_forget();
}

/* libc's path and its debug file's, by build-id; false without libc6-dbg. */
static bool libc_debug(char *libc, size_t size)
{
	unsigned char id[USYM_BUILD_ID_MAX];
	struct usym_elf ef;
	char dbg[PATH_MAX];
	size_t n, i;
	int len;

	assert_int_equal(usym_resolve("c", 0, libc, size), 0);
	assert_int_equal(usym_elf_open(&ef, libc, p_err), 0);
	n = usym_elf_build_id(&ef, id, sizeof(id));
	usym_elf_close(&ef);
	if (!n)
		return false;
	len = snprintf(dbg, sizeof(dbg), "/usr/lib/debug/.build-id/%02x/", id[0]);
	for (i = 1; i < n; i++)
		len += snprintf(dbg + len, sizeof(dbg) - len, "%02x", id[i]);
	snprintf(dbg + len, sizeof(dbg) - len, ".debug");
	return !access(dbg, R_OK);
}

/* With libc6-dbg: malloc is glibc's __libc_malloc (size_t bytes), getaddrinfo's name a string. */
static void test_libc(void **state)
{
	const struct btf_param *p;
	const struct btf_type *ty;
	char libc[PATH_MAX];
	struct base b;
	struct btf *btf;
	__u32 fn;
	int nr;

	(void)state;
	if (!libc_debug(libc, sizeof(libc)))
		skip();
	base_new(&b);
	btf = btf__new_empty_split(b.btf);
	fn = add_ok(btf, libc, "malloc");
	p = param(btf, fn, 0, &nr);
	assert_int_equal(nr, 1);
	assert_string_equal(btf__name_by_offset(btf, p->name_off), "bytes");
	ty = btf__type_by_id(btf, btf_skip_mods(btf, p->type));
	assert_true(btf_is_int(ty) && ty->size == 8 && !(btf_int_encoding(ty) & BTF_INT_SIGNED));
	type_of(btf, btf__type_by_id(btf, btf__type_by_id(btf, fn)->type)->type, BTF_KIND_PTR,
		NULL);

	fn = add_ok(btf, libc, "getaddrinfo");
	p = param(btf, fn, 0, &nr);
	assert_int_equal(nr, 4);
	assert_string_equal(btf__name_by_offset(btf, p->name_off), "name");
	ty = type_of(btf, p->type, BTF_KIND_PTR, NULL);
	ty = type_of(btf, ty->type, BTF_KIND_CONST, NULL);
	assert_int_equal(ty->type, b.char_t);
	/* struct addrinfo *, with its members */
	ty = type_of(btf, param(btf, fn, 2, &nr)->type, BTF_KIND_PTR, NULL);
	ty = btf__type_by_id(btf, btf_skip_mods(btf, ty->type));
	assert_true(btf_is_struct(ty));
	member(btf, ty, "ai_family", 32, 0);
	btf__free(btf);
	btf__free(b.btf);
	udwarf_forget();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scalars), cmocka_unit_test(test_struct),
		cmocka_unit_test(test_none),	cmocka_unit_test(test_debuglink),
		cmocka_unit_test(test_damaged), cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_libc),
	};

	return cmocka_run_group_tests_name("udwarf", tests, group_setup, group_teardown);
}
