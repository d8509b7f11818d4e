// SPDX-License-Identifier: GPL-2.0
/* Trace file format: encode, decode, and every way a file can be bad. */
#include "test_kdump_common.h"

static struct ktr_syscall sample_call(void)
{
	struct ktr_syscall c = { .code = 257,
				 .nargs = KTR_SYSCALL_ARGS,
				 .args = { 0xffffff9c, 0x7ffd5c2e3a10, 0x80000 } };
	return c;
}

/* Read an image to its end: 0 ok, -1 error (message in *err). */
static int read_all(const struct strbuf *sb, int *nrec, char *err, size_t errlen)
{
	struct ktr_reader *r = ktr_reader__new_mem(sb->buf, sb->len, "t.ktr");
	const struct ktr_rec *h;
	const void *p;
	int ret;

	assert_non_null(r);
	*nrec = 0;
	ret = ktr_reader__open(r);
	if (!ret) {
		while ((ret = ktr_reader__next(r, &h, &p)) > 0)
			(*nrec)++;
	}
	snprintf(err, errlen, "%s", ktr_reader__error(r));
	ktr_reader__free(r);
	return ret;
}

static void test_header_roundtrip(void **state)
{
	struct ktr_file_header h;

	(void)state;
	ktr_file_header_init(&h, 62);
	assert_null(ktr_file_header_check(&h));
	assert_int_equal(h.hdr_len, sizeof(h));
	assert_int_equal(h.version, 2);
	assert_int_equal(h.rec_hdr_len, sizeof(struct ktr_hdr));
	assert_null(ktr_file_header_check_append(&h));
	/* kdump reads version 1 files; ktrace appends only to its own. */
	h.version = KTR_VERSION_V1;
	h.rec_hdr_len = sizeof(struct ktr_rec);
	assert_null(ktr_file_header_check(&h));
	assert_string_equal(
		ktr_file_header_check_append(&h),
		"an older trace file version (ktrace writes version 2: use a new file)");
	assert_memory_equal(h.magic, KTR_MAGIC, KTR_MAGIC_LEN);
}

static void test_header_rejects(void **state)
{
	struct ktr_file_header h;

	(void)state;
	ktr_file_header_init(&h, 62);
	h.magic[0] = 'X';
	assert_string_equal(ktr_file_header_check(&h), "not a ksnoop trace file (bad magic)");
	ktr_file_header_init(&h, 62);
	h.version = 3;
	assert_string_equal(ktr_file_header_check(&h), "unsupported trace file version");
	ktr_file_header_init(&h, 62);
	h.byte_order = 0x04030201;
	assert_string_equal(ktr_file_header_check(&h), "trace file of the other byte order");
	ktr_file_header_init(&h, 62);
	h.hdr_len = 3;
	assert_string_equal(ktr_file_header_check(&h), "bad file header length");
	ktr_file_header_init(&h, 62);
	h.rec_hdr_len = sizeof(struct ktr_rec); /* version 1's, in a version 2 file */
	assert_string_equal(ktr_file_header_check(&h), "unsupported record header length");
}

static void test_records_roundtrip_v1(void **state)
{
	struct ktr_syscall c = sample_call();
	struct ktr_sysret ret = { .code = 257, .retval = 3 };
	struct {
		struct ktr_genio g;
		char data[6];
	} gio = { { .fd = 3, .rw = KTR_READ, .code = 0, .count = 6 }, "guest\n" };
	struct ktr_reader *r;
	const struct ktr_rec *h;
	const void *p;
	struct strbuf sb;

	(void)state;
	test_trace_init_v1(&sb);
	test_rec_v1(&sb, KTR_SYSCALL, &c, sizeof(c));
	test_rec_v1(&sb, KTR_NAMEI, "/etc/hostname", 13);
	test_rec_v1(&sb, KTR_SYSRET, &ret, sizeof(ret));
	test_rec_v1(&sb, KTR_GENIO, &gio, sizeof(gio.g) + 6); /* no tail padding */
	r = ktr_reader__new_mem(sb.buf, sb.len, "t.ktr");
	assert_int_equal(ktr_reader__open(r), 0);
	assert_int_equal(ktr_reader__next(r, &h, &p), 1);
	assert_string_equal(ktr_reader__error(r), "");
	assert_int_equal(h->type, KTR_SYSCALL);
	assert_int_equal(h->pid, 42);
	assert_int_equal(h->tid, 43);
	assert_memory_equal(p, &c, sizeof(c));
	assert_int_equal(ktr_reader__next(r, &h, &p), 1);
	assert_int_equal(h->type, KTR_NAMEI);
	assert_int_equal(h->len, 13);
	assert_memory_equal(p, "/etc/hostname", 13);
	assert_int_equal(ktr_reader__next(r, &h, &p), 1);
	assert_int_equal(((const struct ktr_sysret *)p)->retval, 3);
	assert_int_equal(ktr_reader__next(r, &h, &p), 1);
	assert_int_equal(h->len, sizeof(gio.g) + 6);
	assert_memory_equal((const char *)p + sizeof(struct ktr_genio), "guest\n", 6);
	assert_int_equal(ktr_reader__next(r, &h, &p), 0);
	assert_int_equal(ktr_reader__offset(r), sb.len);
	ktr_reader__free(r);
	sb_free(&sb);
}

static void test_truncated_file_header(void **state)
{
	struct strbuf sb;
	char err[256];
	int n;

	(void)state;
	test_trace_init(&sb);
	sb.len = 10;
	assert_int_equal(read_all(&sb, &n, err, sizeof(err)), -1);
	assert_string_equal(err, "t.ktr: truncated record at byte offset 0: the file header "
				 "needs 24 bytes, the file ends after 10");
	sb_free(&sb);
}

static void test_truncated_record_header_v1(void **state)
{
	struct ktr_syscall c = sample_call();
	struct strbuf sb;
	char err[256];
	int n;

	(void)state;
	test_trace_init_v1(&sb);
	test_rec_v1(&sb, KTR_SYSCALL, &c, sizeof(c));
	test_rec_v1(&sb, KTR_SYSCALL, &c, sizeof(c));
	sb.len -= sizeof(c) + 20; /* 20 bytes of the second header remain */
	assert_int_equal(read_all(&sb, &n, err, sizeof(err)), -1);
	assert_int_equal(n, 1);
	assert_string_equal(err, "t.ktr: truncated record at byte offset 120: record header "
				 "needs 40 bytes, the file ends after 20");
	sb_free(&sb);
}

static void test_truncated_payload_v1(void **state)
{
	struct ktr_syscall c = sample_call();
	struct strbuf sb;
	char err[256];
	int n;

	(void)state;
	test_trace_init_v1(&sb);
	test_rec_v1(&sb, KTR_SYSCALL, &c, sizeof(c));
	sb.len -= 46;
	assert_int_equal(read_all(&sb, &n, err, sizeof(err)), -1);
	assert_string_equal(err, "t.ktr: truncated record at byte offset 24: record payload "
				 "needs 56 bytes, the file ends after 10");
	sb_free(&sb);
}

/* Overwrite the len field of the record at offset off. */
static void poke_len(struct strbuf *sb, size_t off, uint32_t len)
{
	memcpy(sb->buf + off + offsetof(struct ktr_rec, len), &len, sizeof(len));
}

static void test_huge_length_v1(void **state)
{
	struct ktr_syscall c = sample_call();
	struct strbuf sb;
	char err[256];
	int n;

	(void)state;
	test_trace_init_v1(&sb);
	test_rec_v1(&sb, KTR_SYSCALL, &c, sizeof(c));
	poke_len(&sb, 24, 0xffffffff);
	assert_int_equal(read_all(&sb, &n, err, sizeof(err)), -1);
	assert_string_equal(err, "t.ktr: bad record at byte offset 24: record longer than any "
				 "record type");
	sb_free(&sb);
}

static void test_unknown_type_v1(void **state)
{
	struct ktr_syscall c = sample_call();
	struct strbuf sb;
	char err[256];
	int n;

	(void)state;
	test_trace_init_v1(&sb);
	test_rec_v1(&sb, KTR_SYSCALL, &c, sizeof(c));
	test_rec_v1(&sb, 77, "x", 1);
	assert_int_equal(read_all(&sb, &n, err, sizeof(err)), -1);
	assert_int_equal(n, 1);
	assert_string_equal(err, "t.ktr: bad record at byte offset 120: unknown record type");
	sb_free(&sb);
}

static void expect_bad_in(unsigned int version, unsigned int type, const void *payload, size_t len,
			  const char *why)
{
	struct ktr_rec h = { .type = type, .len = len };

	assert_string_equal(ktr_rec_check(&h, payload, version), why);
}

static void expect_bad(unsigned int type, const void *payload, size_t len, const char *why)
{
	expect_bad_in(KTR_VERSION, type, payload, len, why);
}

static void test_payload_checks(void **state)
{
	struct ktr_genio g = { .fd = 1, .rw = KTR_WRITE, .count = 2 };
	struct ktr_exec e = { .total = 1 };
	char big[KTR_PATH_MAX + 1] = { 0 };
	struct ktr_syscall c = sample_call();
	char buf[64] = { 0 };

	(void)state;
	expect_bad(KTR_SYSCALL, &c, sizeof(c) - 1, "CALL record of the wrong size");
	expect_bad(KTR_SYSCALL, &c, 7, "CALL record shorter than its fixed part");
	c.nargs = 3; /* version 2: 3 arguments are 32 bytes, version 1 has 6 always */
	assert_null(ktr_rec_check(&(struct ktr_rec){ .type = KTR_SYSCALL, .len = 32 }, &c, 2));
	expect_bad(KTR_SYSCALL, &c, sizeof(c), "CALL record of the wrong size");
	expect_bad_in(KTR_VERSION_V1, KTR_SYSCALL, &c, 32, "CALL record of the wrong size");
	c.nargs = 7;
	expect_bad(KTR_SYSCALL, &c, sizeof(c), "CALL record with too many arguments");
	expect_bad(KTR_THREAD, buf, 23, "THREAD record of the wrong size");
	expect_bad_in(KTR_VERSION_V1, KTR_THREAD, buf, 24, "THREAD record in a version 1 file");
	expect_bad(KTR_SYSRET, buf, 15, "RET record of the wrong size");
	expect_bad(KTR_NAMEI, big, sizeof(big), "NAMI record longer than a path");
	expect_bad(KTR_GENIO, &g, 3, "GIO record shorter than its fixed part");
	memcpy(buf, &g, sizeof(g));
	expect_bad(KTR_GENIO, buf, sizeof(g) + 3,
		   "GIO record with more data than bytes transferred");
	g.rw = 7;
	memcpy(buf, &g, sizeof(g));
	expect_bad(KTR_GENIO, buf, sizeof(g), "GIO record with a bad direction");
	memcpy(buf, &e, sizeof(e));
	expect_bad(KTR_EXECARGS, buf, sizeof(e) + 2,
		   "ARGS/ENV record with more data than its total");
	expect_bad(KTR_PSIG, buf, 47, "PSIG record of the wrong size");
	expect_bad(KTR_DROP, buf, 4, "DROP record of the wrong size");
	expect_bad(0, buf, 0, "unknown record type");
}

static void test_extra_header_bytes(void **state)
{
	struct ktr_file_header h;
	struct ktr_syscall c = sample_call();
	struct strbuf sb;
	char err[256], pad[8] = { 0 };
	int n;

	(void)state;
	/* A later minor version with 8 more header bytes still reads. */
	sb_init(&sb);
	ktr_file_header_init(&h, ktr_systab_machine);
	h.hdr_len += sizeof(pad);
	sb_write(&sb, &h, sizeof(h));
	sb_write(&sb, pad, sizeof(pad));
	ktr_encode_thread(&sb, TEST_TID, TEST_PID, "unit", TEST_TS);
	test_rec(&sb, KTR_SYSCALL, &c, sizeof(c));
	assert_int_equal(read_all(&sb, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 1);
	sb_free(&sb);
}

/* Version 2: the thread's pid and comm come from its THREAD record. */
static void test_v2_threads(void **state)
{
	struct ktr_syscall c = { .code = 0, .nargs = 3, .args = { 3, 0x1000, 1 } };
	struct ktr_sysret ret = { .code = 0, .retval = 1 };
	const struct ktr_syscall *got;
	struct ktr_reader *r;
	const struct ktr_rec *h;
	const void *p;
	struct strbuf sb;

	(void)state;
	test_trace_init(&sb);
	test_rec(&sb, KTR_SYSCALL, &c, KTR_SYSCALL_LEN(3));
	ktr_encode_thread(&sb, 50, 49, "worker", TEST_TS); /* a second thread */
	test_rec(&sb, KTR_SYSRET, &ret, sizeof(ret));
	ktr_encode_thread(&sb, TEST_TID, TEST_PID, "renamed-after-exec!", TEST_TS);
	test_rec(&sb, KTR_SYSRET, &ret, sizeof(ret));
	ktr_encode(&sb, KTR_SYSRET, 50, TEST_TS, &ret, sizeof(ret));
	assert_int_equal(sb.len, TEST_PREFIX + 16 + 32 + 40 + 32 + 40 + 32 + 32);

	r = ktr_reader__new_mem(sb.buf, sb.len, "t.ktr");
	assert_int_equal(ktr_reader__open(r), 0);
	assert_int_equal(ktr_reader__next(r, &h, &p), 1);
	assert_int_equal(h->type, KTR_SYSCALL);
	assert_int_equal(h->pid, TEST_PID);
	assert_int_equal(h->tid, TEST_TID);
	assert_string_equal(h->comm, "unit");
	/* Handed out with six slots; the three not recorded read as zero. */
	assert_int_equal(h->len, sizeof(struct ktr_syscall));
	got = p;
	assert_int_equal(got->nargs, 3);
	assert_int_equal(got->args[2], 1);
	assert_int_equal(got->args[3] | got->args[4] | got->args[5], 0);
	assert_int_equal(ktr_reader__next(r, &h, &p), 1);
	assert_string_equal(h->comm, "unit");
	assert_int_equal(ktr_reader__next(r, &h, &p), 1);
	/* A comm is 16 bytes, not NUL-terminated when it fills them. */
	assert_memory_equal(h->comm, "renamed-after-ex", KTR_COMM_LEN);
	assert_int_equal(ktr_reader__next(r, &h, &p), 1);
	assert_int_equal(h->pid, 49);
	assert_int_equal(h->tid, 50);
	assert_string_equal(h->comm, "worker");
	assert_int_equal(ktr_reader__next(r, &h, &p), 0);
	assert_int_equal(ktr_reader__offset(r), sb.len);
	ktr_reader__free(r);
	sb_free(&sb);
}

static void test_v2_unintroduced_thread(void **state)
{
	struct ktr_sysret ret = { .code = 0, .retval = 1 };
	struct ktr_drop drop = { .count = 5 };
	struct ktr_file_header fh;
	struct ktr_reader *r;
	const struct ktr_rec *h;
	const void *p;
	struct strbuf sb;
	char err[256];
	int n;

	(void)state;
	sb_init(&sb);
	ktr_file_header_init(&fh, ktr_systab_machine);
	sb_write(&sb, &fh, sizeof(fh));
	/* The recorder's own DROP records come without a THREAD record. */
	ktr_encode(&sb, KTR_DROP, 7, TEST_TS, &drop, sizeof(drop));
	ktr_encode(&sb, KTR_SYSRET, 8, TEST_TS, &ret, sizeof(ret));
	r = ktr_reader__new_mem(sb.buf, sb.len, "t.ktr");
	assert_int_equal(ktr_reader__open(r), 0);
	assert_int_equal(ktr_reader__next(r, &h, &p), 1);
	assert_int_equal(h->type, KTR_DROP);
	assert_int_equal(h->pid, 7);
	assert_string_equal(h->comm, "ktrace");
	ktr_reader__free(r);
	assert_int_equal(read_all(&sb, &n, err, sizeof(err)), -1);
	assert_int_equal(n, 1);
	assert_string_equal(err, "t.ktr: bad record at byte offset 48: record of a thread no "
				 "THREAD record introduced");
	sb_free(&sb);
}

static void test_v2_bad_records(void **state)
{
	struct ktr_syscall c = { .code = 0, .nargs = 4 };
	struct ktr_thread t = { .pid = 1 };
	struct strbuf sb;
	char err[256];
	int n;

	(void)state;
	test_trace_init(&sb);
	test_rec(&sb, KTR_SYSCALL, &c, KTR_SYSCALL_LEN(3)); /* nargs says 4 */
	assert_int_equal(read_all(&sb, &n, err, sizeof(err)), -1);
	assert_string_equal(err, "t.ktr: bad record at byte offset 64: CALL record of the wrong "
				 "size");
	sb_free(&sb);

	test_trace_init(&sb);
	ktr_encode(&sb, KTR_THREAD, 9, TEST_TS, &t, sizeof(t) - 1);
	assert_int_equal(read_all(&sb, &n, err, sizeof(err)), -1);
	assert_string_equal(err, "t.ktr: bad record at byte offset 64: THREAD record of the "
				 "wrong size");
	sb_free(&sb);

	test_trace_init(&sb);
	test_rec(&sb, KTR_SYSCALL, &c, KTR_SYSCALL_LEN(4));
	sb.len -= KTR_SYSCALL_LEN(4) + 10;
	assert_int_equal(read_all(&sb, &n, err, sizeof(err)), -1);
	assert_string_equal(err, "t.ktr: truncated record at byte offset 64: record header "
				 "needs 16 bytes, the file ends after 6");
	sb_free(&sb);
}

/* Many threads, each with its own process and name. */
static void test_v2_many_threads(void **state)
{
	struct ktr_sysret ret = { .code = 0, .retval = 1 };
	struct ktr_reader *r;
	const struct ktr_rec *h;
	const void *p;
	struct strbuf sb;
	char comm[16];
	unsigned int i;

	(void)state;
	test_trace_init(&sb);
	for (i = 1; i <= 5000; i++) {
		snprintf(comm, sizeof(comm), "t%u", i);
		ktr_encode_thread(&sb, i * 4096, i, comm, TEST_TS);
	}
	for (i = 1; i <= 5000; i++)
		ktr_encode(&sb, KTR_SYSRET, i * 4096, TEST_TS, &ret, sizeof(ret));
	r = ktr_reader__new_mem(sb.buf, sb.len, "t.ktr");
	assert_int_equal(ktr_reader__open(r), 0);
	for (i = 1; i <= 5000; i++) {
		snprintf(comm, sizeof(comm), "t%u", i);
		assert_int_equal(ktr_reader__next(r, &h, &p), 1);
		assert_int_equal(h->pid, i);
		assert_string_equal(h->comm, comm);
	}
	assert_int_equal(ktr_reader__next(r, &h, &p), 0);
	ktr_reader__free(r);
	sb_free(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_header_roundtrip),
		cmocka_unit_test(test_header_rejects),
		cmocka_unit_test(test_records_roundtrip_v1),
		cmocka_unit_test(test_truncated_file_header),
		cmocka_unit_test(test_truncated_record_header_v1),
		cmocka_unit_test(test_truncated_payload_v1),
		cmocka_unit_test(test_huge_length_v1),
		cmocka_unit_test(test_unknown_type_v1),
		cmocka_unit_test(test_payload_checks),
		cmocka_unit_test(test_extra_header_bytes),
		cmocka_unit_test(test_v2_threads),
		cmocka_unit_test(test_v2_unintroduced_thread),
		cmocka_unit_test(test_v2_bad_records),
		cmocka_unit_test(test_v2_many_threads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
