// SPDX-License-Identifier: GPL-2.0
/*
 * ksyms.c: kallsyms, available_filter_functions and the kprobe blacklist,
 * read from fixture files through ksyms__load_from().
 */
#include <errno.h>
#include <sys/stat.h>

#include "testutil.h"
#include "lib/ksyms.h"
#include "lib/symcache.h"

/* Text symbols out of address order, a data symbol, a module, no final newline. */
static const char kallsyms[] = "ffffffff81000000 T _stext\n"
			       "ffffffff81001000 t do_one\n"
			       "ffffffff81002000 T do_two\n"
			       "ffffffff81003000 W weak_fn\n"
			       "ffffffff81004000 d some_data\n"
			       "ffffffff81005000 t cloned.isra.0\n"
			       "ffffffff81005800 t cloned.isra.0.cold\n"
			       "ffffffff81006000 t twice.constprop.0\n"
			       "ffffffff81007000 t twice.isra.1\n"
			       "ffffffff81000800 t out_of_order\n"
			       "ffffffffc0001000 t mod_fn\t[mymod]\n"
			       "garbage\n"
			       "ffffffff81009000 T last_fn";

/* do_one twice (two static functions), a module's, one kallsyms lacks. */
static const char filter_funcs[] = "do_one\n"
				   "do_two\n"
				   "weak_fn\n"
				   "cloned.isra.0\n"
				   "do_one\n"
				   "mod_fn [mymod]\n"
				   "ghost_fn\n";

static const char blacklist[] = "0xffffffff81002000-0xffffffff81002100\tdo_two\n"
				"0xffffffff81003000-0xffffffff81003100\tweak_fn\n";

struct ctx {
	struct sym_files f;
};

static void write_file(const char *path, const char *text, size_t len)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

static int setup(void **state)
{
	struct ctx *c = calloc(1, sizeof(*c));

	if (!c)
		return -1;
	if (sym_files_write(&c->f, kallsyms, filter_funcs, blacklist)) {
		free(c);
		return -1;
	}
	*state = c;
	return 0;
}

static int teardown(void **state)
{
	struct ctx *c = *state;

	sym_files_remove(&c->f);
	free(c);
	return 0;
}

static struct ksyms *load_all(const struct ctx *c)
{
	struct ksyms *ks = ksyms__load_from(c->f.kallsyms, c->f.filter, c->f.blacklist);

	assert_non_null(ks);
	return ks;
}

/* names[0..n) as one string, "a b c"; frees names. */
static void expect_names(const char **names, int n, const char *want)
{
	char got[256] = "";
	int i;

	assert_true(n >= 0);
	for (i = 0; i < n; i++) {
		if (i)
			strcat(got, " ");
		assert_true(strlen(got) + strlen(names[i]) < sizeof(got));
		strcat(got, names[i]);
	}
	free(names);
	assert_string_equal(got, want);
}

/* ksyms__match(glob) as one string, "a b c", sorted. */
static void expect_match(struct ksyms *ks, const char *glob, const char *want)
{
	const char **names;
	int n = ksyms__match(ks, glob, &names);

	expect_names(names, n, want);
}

/* ksyms__match_untraceable(glob), likewise. */
static void expect_untraceable(struct ksyms *ks, const char *glob, const char *want)
{
	const char **names;

	expect_names(names, ksyms__match_untraceable(ks, glob, &names), want);
}

static void expect_addr(struct ksyms *ks, uint64_t addr, const char *name, uint64_t start)
{
	uint64_t got = 0;
	const char *s = ksyms__addr_name(ks, addr, &got);

	if (!name) {
		assert_null(s);
		return;
	}
	assert_non_null(s);
	assert_string_equal(s, name);
	assert_int_equal(got, start);
}

static void test_addr_name(void **state)
{
	struct ksyms *ks = load_all(*state);

	expect_addr(ks, 0xffffffff81001010, "do_one", 0xffffffff81001000);
	expect_addr(ks, 0xffffffff81001000, "do_one", 0xffffffff81001000);
	/* sorted although kallsyms listed it late */
	expect_addr(ks, 0xffffffff81000900, "out_of_order", 0xffffffff81000800);
	expect_addr(ks, 0xffffffff810007ff, "_stext", 0xffffffff81000000);
	/* data symbols are not functions: the text before them covers it */
	expect_addr(ks, 0xffffffff81004010, "weak_fn", 0xffffffff81003000);
	expect_addr(ks, 0xffffffffc0001004, "mod_fn", 0xffffffffc0001000);
	expect_addr(ks, 0xffffffff81009abc, "last_fn", 0xffffffff81009000);
	expect_addr(ks, 0xffffffff80ffffff, NULL, 0);
	expect_addr(ks, 0, NULL, 0);
	assert_string_equal(ksyms__addr_name(ks, 0xffffffff81002001, NULL), "do_two");
	ksyms__free(ks);
}

/* Stack frames name their module: "mod_fn+0x4 [mymod]". */
static void test_addr_module(void **state)
{
	struct ksyms *ks = load_all(*state);
	const char *mod = "unset";

	assert_string_equal(ksyms__addr_sym(ks, 0xffffffffc0001004, NULL, &mod), "mod_fn");
	assert_non_null(mod);
	assert_string_equal(mod, "mymod");
	assert_string_equal(ksyms__addr_sym(ks, 0xffffffff81001010, NULL, &mod), "do_one");
	assert_null(mod);
	ksyms__free(ks);
}

static void join_frame(void *ctx, const char *frame, int i)
{
	char *out = ctx;

	if (i)
		strcat(out, " ");
	strcat(out, frame);
}

static void expect_frames(struct ksyms *ks, const uint64_t *ips, int n, const char *want)
{
	char got[256] = "";

	ksyms__stack_frames(ks, ips, n, "do_one", 8, join_frame, got);
	assert_string_equal(got, want);
}

/*
 * A stack taken at fentry of do_one: the BPF program and its trampoline
 * (loaded past every symbol kallsyms had), then on 6.x do_one itself, on
 * 7.x straight its caller do_two. Either way it reads from do_one out.
 */
static void test_restore_func(void **state)
{
	struct ksyms *ks = load_all(*state);
	uint64_t v6[5] = { 0xffffffffc4000010, 0xffffffffc4001020, 0xffffffff81001005,
			   0xffffffff81002010 };
	uint64_t v7[4] = { 0xffffffffc4000010, 0xffffffffc4001020, 0xffffffff81002010 };
	struct strbuf sb;
	int n;

	n = ksyms__restore_func(ks, v6, 4, "do_one");
	assert_int_equal(n, 4);
	expect_frames(ks, v6, n, "do_one+0x5 do_two+0x10");
	n = ksyms__restore_func(ks, v7, 3, "do_one");
	assert_int_equal(n, 4);
	expect_frames(ks, v7, n, "do_one+0x0 do_two+0x10");
	/* no symbol a megabyte past a module's last names JIT code */
	sb_init(&sb);
	ksyms__frame(ks, 0xffffffffc4000010, &sb);
	assert_string_equal(sb_str(&sb), "0xffffffffc4000010");
	sb_reset(&sb);
	ksyms__frame(ks, 0xffffffffc0001004, &sb);
	assert_string_equal(sb_str(&sb), "mod_fn+0x4 [mymod]");
	sb_free(&sb);
	ksyms__free(ks);
}

static void test_has_func(void **state)
{
	struct ksyms *ks = load_all(*state);

	assert_true(ksyms__has_func(ks, "do_one"));
	assert_true(ksyms__has_func(ks, "weak_fn"));
	assert_true(ksyms__has_func(ks, "mod_fn"));
	assert_true(ksyms__has_func(ks, "last_fn"));
	assert_false(ksyms__has_func(ks, "some_data"));
	assert_false(ksyms__has_func(ks, "ghost_fn"));
	assert_false(ksyms__has_func(ks, "garbage"));
	assert_false(ksyms__has_func(ks, "do_"));
	ksyms__free(ks);
}

static void test_untraceable(void **state)
{
	struct ksyms *ks = load_all(*state);

	assert_null(ksyms__untraceable_reason(ks, "do_one"));
	assert_null(ksyms__untraceable_reason(ks, "mod_fn"));
	assert_string_equal(ksyms__untraceable_reason(ks, "nosuch"),
			    "it has no symbol in /proc/kallsyms (inlined or optimised away)");
	assert_string_equal(ksyms__untraceable_reason(ks, "do_two"),
			    "it is on the kprobe blacklist");
	assert_string_equal(ksyms__untraceable_reason(ks, "_stext"),
			    "it is not in available_filter_functions (notrace or not traceable)");
	ksyms__free(ks);
}

/* A file that cannot be read is not held against a function. */
static void test_untraceable_unreadable(void **state)
{
	struct ctx *c = *state;
	struct ksyms *ks;

	ks = ksyms__load_from(c->f.kallsyms, NULL, c->f.blacklist);
	assert_null(ksyms__untraceable_reason(ks, "_stext"));
	assert_non_null(ksyms__untraceable_reason(ks, "nosuch"));
	ksyms__free(ks);

	ks = ksyms__load_from("/nonexistent/kallsyms", c->f.filter, "/nonexistent/blacklist");
	assert_null(ksyms__untraceable_reason(ks, "do_two"));
	assert_null(ksyms__untraceable_reason(ks, "ghost_fn"));
	assert_string_equal(ksyms__untraceable_reason(ks, "nosuch"),
			    "it is not in available_filter_functions (notrace or not traceable)");
	assert_false(ksyms__has_func(ks, "do_one"));
	assert_null(ksyms__addr_name(ks, 0xffffffff81001010, NULL));
	ksyms__free(ks);

	ks = ksyms__load_from(NULL, NULL, NULL);
	assert_null(ksyms__untraceable_reason(ks, "anything"));
	ksyms__free(ks);
}

static void test_match(void **state)
{
	struct ksyms *ks = load_all(*state);

	/* from available_filter_functions, once each, minus the blacklist */
	expect_match(ks, "do_*", "do_one");
	expect_match(ks, "*", "cloned.isra.0 do_one ghost_fn mod_fn");
	expect_match(ks, "?od_f?", "mod_fn");
	expect_match(ks, "[cg]*", "cloned.isra.0 ghost_fn");
	expect_match(ks, "nomatch*", "");
	expect_match(ks, "do_one", "do_one");
	ksyms__free(ks);
}

/* Without available_filter_functions, kallsyms' text symbols serve. */
static void test_match_kallsyms(void **state)
{
	struct ctx *c = *state;
	struct ksyms *ks = ksyms__load_from(c->f.kallsyms, "/nonexistent/filter", c->f.blacklist);

	assert_non_null(ks);
	expect_match(ks, "do_*", "do_one");
	expect_match(ks, "*_fn", "last_fn mod_fn");
	expect_match(ks, "some_*", "");
	ksyms__free(ks);
}

/*
 * What a glob matches that ftrace cannot trace: text symbols not in
 * available_filter_functions, or blacklisted; clones and data never.
 */
static void test_match_untraceable(void **state)
{
	struct ctx *c = *state;
	struct ksyms *ks = load_all(c);

	expect_untraceable(ks, "do_*", "do_two");
	expect_untraceable(ks, "*_fn", "last_fn weak_fn");
	expect_untraceable(ks, "some_*", "");
	expect_untraceable(ks, "twice*", "");
	ksyms__free(ks);
	/* without the ftrace list, ksyms__match offered every text symbol */
	ks = ksyms__load_from(c->f.kallsyms, "/nonexistent/filter", c->f.blacklist);
	assert_non_null(ks);
	expect_untraceable(ks, "*_fn", "");
	ksyms__free(ks);
}

static void test_clone_of(void **state)
{
	struct ksyms *ks = load_all(*state);

	assert_string_equal(ksyms__clone_of(ks, "cloned"), "cloned.isra.0");
	/* two clones: which one was meant is not ours to guess */
	assert_null(ksyms__clone_of(ks, "twice"));
	assert_null(ksyms__clone_of(ks, "do_one"));
	assert_null(ksyms__clone_of(ks, "do"));
	assert_null(ksyms__clone_of(ks, "clone"));
	ksyms__free(ks);
}

/*
 * kallsyms is read only when a question needs it: ftrace answers the
 * rest. The file is written after the load here, so only a late read
 * can see it.
 */
static void test_kallsyms_lazy(void **state)
{
	struct ctx *c = *state;
	char path[128];
	struct ksyms *ks;

	snprintf(path, sizeof(path), "%s/late-kallsyms", c->f.dir);
	unlink(path);
	ks = ksyms__load_from(path, c->f.filter, c->f.blacklist);
	assert_non_null(ks);
	expect_match(ks, "do_*", "do_one");
	assert_null(ksyms__untraceable_reason(ks, "do_one"));
	write_file(path, kallsyms, strlen(kallsyms));
	assert_true(ksyms__has_func(ks, "_stext"));
	ksyms__free(ks);
	unlink(path);

	/* and read at load when there is no available_filter_functions */
	write_file(path, kallsyms, strlen(kallsyms));
	ks = ksyms__load_from(path, NULL, NULL);
	unlink(path);
	assert_true(ksyms__has_func(ks, "_stext"));
	ksyms__free(ks);
}

/*
 * A line longer than ksyms' read buffer (256 KiB) is skipped whole: its
 * tail past the buffer, which reads like a symbol here, is no symbol.
 */
static void test_long_lines(void **state)
{
	static const char head[] = "ffffffff81000000 X ", tail[] = "ffffffff81000100 t split";
	struct ctx *c = *state;
	static char text[(256 << 10) + 4096];
	size_t chunk = 256 << 10, n;
	char path[128];
	struct ksyms *ks;

	n = sprintf(text, "ffffffff81000000 T first\n%s", head);
	memset(text + n, 'x', chunk - strlen(head));
	n += chunk - strlen(head);
	n += sprintf(text + n, "%s\nffffffff81001000 t ", tail);
	/* a name of 2000 characters fits the buffer but not a name */
	memset(text + n, 'y', 2000);
	n += 2000;
	n += sprintf(text + n, "\nffffffff81002000 t after\n");
	snprintf(path, sizeof(path), "%s/long", c->f.dir);
	write_file(path, text, n);
	ks = ksyms__load_from(path, NULL, NULL);
	unlink(path);
	assert_true(ksyms__has_func(ks, "first"));
	assert_true(ksyms__has_func(ks, "after"));
	assert_false(ksyms__has_func(ks, "split"));
	expect_match(ks, "*", "after first");
	expect_addr(ks, 0xffffffff81001500, "first", 0xffffffff81000000);
	ksyms__free(ks);
}

/*
 * ksnoop probe's table is the same reader keeping every symbol: data with
 * its type, modules, kallsyms' order fixed, lines that are no symbol out.
 */
static void test_every_symbol(void **state)
{
	struct ctx *c = *state;
	struct ksyms *ks = ksyms__load_all(c->f.kallsyms);
	uint64_t addr = 0, start = 0, size = 0;
	const char *mod = NULL;

	assert_non_null(ks);
	assert_false(ksyms__restricted(ks));
	assert_int_equal(ksyms__count_text(ks, "do_one", NULL, &addr), 1);
	assert_int_equal(addr, 0xffffffff81001000);
	assert_int_equal(ksyms__count_text(ks, "some_data", NULL, NULL), 0);
	assert_int_equal(ksyms__addr_of(ks, "some_data", &addr), 0);
	assert_int_equal(addr, 0xffffffff81004000);
	assert_int_equal(ksyms__count_text(ks, "mod_fn", "mymod", NULL), 1);
	assert_int_equal(ksyms__count_text(ks, "mod_fn", "other", NULL), 0);
	assert_int_equal(ksyms__addr_of(ks, "garbage", &addr), -ENOENT);
	/* a data address names the data, and is no probe point */
	assert_string_equal(ksyms__find(ks, 0xffffffff81004010, &start, &size, &mod), "some_data");
	assert_int_equal(start, 0xffffffff81004000);
	assert_int_equal(size, 0x1000);
	assert_null(mod);
	assert_null(ksyms__find_text(ks, 0xffffffff81004010, &start));
	assert_string_equal(ksyms__find_text(ks, 0xffffffff81000810, &start), "out_of_order");
	assert_string_equal(ksyms__find(ks, 0xffffffffc0001004, &start, &size, &mod), "mod_fn");
	assert_string_equal(mod, "mymod");
	ksyms__free(ks);

	errno = 0;
	assert_null(ksyms__load_all("/nonexistent/kallsyms"));
	assert_int_equal(errno, ENOENT);
}

/* kptr_restrict: every address reads 0, so none can be named. */
static void test_every_symbol_restricted(void **state)
{
	static const char zeros[] = "0000000000000000 T _stext\n"
				    "0000000000000000 t do_one\n"
				    "0000000000000000 D jiffies\n";
	struct ctx *c = *state;
	uint64_t start, size, addr = 1;
	char path[128];
	struct ksyms *ks;

	snprintf(path, sizeof(path), "%s/zeros", c->f.dir);
	write_file(path, zeros, strlen(zeros));
	ks = ksyms__load_all(path);
	unlink(path);
	assert_non_null(ks);
	assert_true(ksyms__restricted(ks));
	assert_int_equal(ksyms__count_text(ks, "do_one", NULL, &addr), 1);
	assert_int_equal(addr, 0);
	assert_null(ksyms__find(ks, 0xffffffff81000000, &start, &size, NULL));
	/* the trace side's lookups (stack frames, function pointers) too */
	assert_null(ksyms__addr_name(ks, 0xffffffff81000000, &start));
	ksyms__free(ks);
}

/* A cache in the fixture's directory, for one boot with no modules. */
static struct symcache_cfg cache_in(const struct ctx *c, char *run, char *boot, char *mods)
{
	sprintf(run, "%s/run", c->f.dir);
	sprintf(boot, "%s/boot_id", c->f.dir);
	sprintf(mods, "%s/modules", c->f.dir);
	write_file(boot, "0b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0\n", 37);
	write_file(mods, "", 0);
	return (struct symcache_cfg){ .dir = run, .boot_id = boot, .modules = mods };
}

static void expect_lists(struct ksyms *ks, bool from_fixture)
{
	assert_non_null(ks);
	if (from_fixture) {
		assert_null(ksyms__untraceable_reason(ks, "do_one"));
		assert_string_equal(ksyms__untraceable_reason(ks, "do_two"),
				    "it is on the kprobe blacklist");
		expect_match(ks, "*", "cloned.isra.0 do_one ghost_fn mod_fn");
	} else {
		assert_string_equal(
			ksyms__untraceable_reason(ks, "do_one"),
			"it is not in available_filter_functions (notrace or not traceable)");
	}
	ksyms__free(ks);
}

static void clean_run(const char *run)
{
	char cmd[160];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", run);
	assert_int_equal(system(cmd), 0);
}

/*
 * The second load reads the lists' index, not the files (emptied in
 * between); an index that does not hold together is not used.
 */
static void test_lists_index(void **state)
{
	const struct ctx *c = *state;
	char run[96], boot[96], mods[96], idx[160], copy[160];
	struct symcache_cfg cache = cache_in(c, run, boot, mods);
	struct stat st;
	FILE *f;

	expect_lists(ksyms__load_cached(&cache, c->f.kallsyms, c->f.filter, c->f.blacklist), true);
	sprintf(idx, "%s/symcache-lists-index", run);
	assert_int_equal(stat(idx, &st), 0);
	write_file(c->f.filter, "weak_fn\n", 8);
	write_file(c->f.blacklist, "", 0);
	sprintf(copy, "%s/symcache-available_filter_functions", run);
	assert_int_equal(unlink(copy), 0);
	expect_lists(ksyms__load_cached(&cache, c->f.kallsyms, c->f.filter, c->f.blacklist), true);

	/* A slot past the string table, in the index's last bytes. */
	f = fopen(idx, "r+");
	assert_non_null(f);
	assert_int_equal(fseek(f, -4, SEEK_END), 0);
	assert_int_equal(fwrite("\xff\xff\xff\x7f", 1, 4, f), 4);
	assert_int_equal(fclose(f), 0);
	sprintf(copy, "%s/symcache-kprobes_blacklist", run);
	unlink(copy);
	expect_lists(ksyms__load_cached(&cache, c->f.kallsyms, c->f.filter, c->f.blacklist), false);

	/* Cut short: the same. */
	assert_int_equal(truncate(idx, st.st_size / 2), 0);
	expect_lists(ksyms__load_cached(&cache, c->f.kallsyms, c->f.filter, c->f.blacklist), false);
	clean_run(run);
	unlink(boot);
	unlink(mods);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_addr_name),
		cmocka_unit_test(test_addr_module),
		cmocka_unit_test(test_restore_func),
		cmocka_unit_test(test_has_func),
		cmocka_unit_test(test_untraceable),
		cmocka_unit_test(test_untraceable_unreadable),
		cmocka_unit_test(test_match),
		cmocka_unit_test(test_match_kallsyms),
		cmocka_unit_test(test_match_untraceable),
		cmocka_unit_test(test_clone_of),
		cmocka_unit_test(test_kallsyms_lazy),
		cmocka_unit_test(test_long_lines),
		cmocka_unit_test(test_every_symbol),
		cmocka_unit_test(test_every_symbol_restricted),
		cmocka_unit_test(test_lists_index),
	};

	return cmocka_run_group_tests_name("ksyms", tests, setup, teardown);
}
