// SPDX-License-Identifier: GPL-2.0
/* lib/kfeat: kernel features read from BTF fixtures shaped like 5.10's and 6.1's. */
#include "testutil.h"
#include "lib/kfeat.h"

/* The UAPI enums, struct bpf_tramp_link and bpf_mem_alloc, as a kernel of `level` has them. */
enum level { K510, K515, K517, K519, K61 };

static struct btf *kernel_btf(enum level lv)
{
	struct btf *btf = btf__new_empty();
	int u64 = btf__add_int(btf, "long long unsigned int", 8, 0);

	assert_true(btf__add_enum(btf, "bpf_map_type", 4) > 0);
	assert_int_equal(btf__add_enum_value(btf, "BPF_MAP_TYPE_RINGBUF", 27), 0);
	if (lv >= K515)
		assert_int_equal(btf__add_enum_value(btf, "BPF_MAP_TYPE_TASK_STORAGE", 29), 0);
	assert_true(btf__add_enum(btf, "bpf_func_id", 4) > 0);
	assert_int_equal(btf__add_enum_value(btf, "BPF_FUNC_ringbuf_output", 130), 0);
	if (lv >= K515) {
		assert_int_equal(btf__add_enum_value(btf, "BPF_FUNC_get_attach_cookie", 174), 0);
		assert_int_equal(btf__add_enum_value(btf, "BPF_FUNC_task_pt_regs", 175), 0);
	}
	if (lv >= K517) {
		assert_int_equal(btf__add_enum_value(btf, "BPF_FUNC_loop", 181), 0);
		assert_int_equal(btf__add_enum_value(btf, "BPF_FUNC_get_func_arg", 183), 0);
	}
	assert_true(btf__add_struct(btf, "bpf_tramp_link", 16) > 0);
	assert_int_equal(btf__add_field(btf, "link", u64, 0, 0), 0);
	if (lv >= K519)
		assert_int_equal(btf__add_field(btf, "cookie", u64, 64, 0), 0);
	if (lv >= K61) {
		assert_true(btf__add_struct(btf, "bpf_mem_alloc", 16) > 0);
		assert_int_equal(btf__add_field(btf, "cache", u64, 64, 0), 0);
	}
	return btf;
}

static void test_levels(void **state)
{
	static const kfeat_set want[] = {
		[K510] = 0,
		[K515] = 1U << KFEAT_TASK_STORAGE | 1U << KFEAT_KPROBE_COOKIE |
			 1U << KFEAT_TASK_PT_REGS,
		[K517] = KFEAT_ALL & ~(1U << KFEAT_FENTRY_COOKIE | 1U << KFEAT_MEM_ALLOC |
				       1U << KFEAT_UPROBE_MULTI),
		[K519] = KFEAT_ALL & ~(1U << KFEAT_MEM_ALLOC | 1U << KFEAT_UPROBE_MULTI),
		[K61] = KFEAT_ALL & ~(1U << KFEAT_UPROBE_MULTI),
	};
	int lv;

	(void)state;
	for (lv = K510; lv <= K61; lv++) {
		struct btf *btf = kernel_btf(lv);

		assert_int_equal(kfeat_probe(btf), want[lv]);
		btf__free(btf);
	}
}

/* A value of the same name in another enum is not the feature. */
static void test_other_enum(void **state)
{
	struct btf *btf = btf__new_empty();

	(void)state;
	assert_true(btf__add_enum(btf, "bpf_prog_type", 4) > 0);
	assert_int_equal(btf__add_enum_value(btf, "BPF_FUNC_loop", 181), 0);
	assert_false(kfeat_has(kfeat_probe(btf), KFEAT_LOOP));
	btf__free(btf);
}

/* No BTF proves nothing: the oldest programs are chosen. */
static void test_no_btf(void **state)
{
	(void)state;
	assert_int_equal(kfeat_probe(NULL), 0);
}

static void test_names(void **state)
{
	int f;

	(void)state;
	for (f = 0; f < KFEAT_NR; f++) {
		assert_true(!strncmp(kfeat_since(f), "5.", 2) || !strncmp(kfeat_since(f), "6.", 2));
		assert_true(strlen(kfeat_name(f)) > 0);
		assert_true(strlen(kfeat_fallback(f)) > 10);
	}
	assert_string_equal(kfeat_name(KFEAT_NR), "?");
}

static void test_struct_member(void **state)
{
	struct btf *btf = kernel_btf(K519);

	(void)state;
	assert_true(btf_struct_has_member(btf, "bpf_tramp_link", "cookie"));
	assert_false(btf_struct_has_member(btf, "bpf_tramp_link", "missing"));
	assert_false(btf_struct_has_member(btf, "no_such_struct", "cookie"));
	btf__free(btf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_levels),	      cmocka_unit_test(test_other_enum),
		cmocka_unit_test(test_no_btf),	      cmocka_unit_test(test_names),
		cmocka_unit_test(test_struct_member),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
