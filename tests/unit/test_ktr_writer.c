// SPDX-License-Identifier: GPL-2.0
/*
 * The recorder's trace file writes when the file cannot grow: whole
 * records or none, and DROP records that count what was lost. RLIMIT_FSIZE
 * (in a child, so nothing else of the test is limited) cuts the writes
 * short as a full disk does.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_kdump_common.h"
#include "ktr/trfile.h"
#include "ktr/writer.h"

#define REC_PAYLOAD 84 /* a 100-byte record */
#define REC_SIZE (sizeof(struct ktr_hdr) + REC_PAYLOAD)
#define HDR_SIZE TEST_PREFIX /* the file header and the test thread's THREAD record */
#define DROP_SIZE (sizeof(struct ktr_hdr) + sizeof(struct ktr_drop))

/* n NAMI records of REC_SIZE bytes. */
static void make_recs(struct strbuf *sb, int n)
{
	char path[REC_PAYLOAD];
	int i;

	sb_init(sb);
	memset(path, 'p', sizeof(path));
	for (i = 0; i < n; i++)
		test_rec(sb, KTR_NAMEI, path, sizeof(path));
}

/* A trace file of its header and one THREAD record, open O_APPEND as ktrace leaves it. */
static int new_trace(char *path)
{
	struct strbuf sb;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	test_trace_init(&sb);
	assert_int_equal(write(fd, sb.buf, sb.len), HDR_SIZE);
	sb_free(&sb);
	assert_int_equal(fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_APPEND), 0);
	return fd;
}

struct decoded {
	int nami, drops;
	unsigned long long dropped; /* the DROP records' counts */
	int last_type;
};

/* The file must decode to its end. */
static struct decoded decode(const char *path)
{
	struct decoded d = { 0 };
	const struct ktr_rec *h;
	struct ktr_reader *r;
	const void *p;
	int fd = open(path, O_RDONLY), ret;

	assert_true(fd >= 0);
	r = ktr_reader__new_fd(fd, path, false);
	assert_non_null(r);
	assert_int_equal(ktr_reader__open(r), 0);
	while ((ret = ktr_reader__next(r, &h, &p)) > 0) {
		d.last_type = h->type;
		if (h->type == KTR_NAMEI)
			d.nami++;
		if (h->type == KTR_DROP) {
			d.drops++;
			d.dropped += ((const struct ktr_drop *)p)->count;
		}
	}
	if (ret)
		fail_msg("%s", ktr_reader__error(r));
	ktr_reader__free(r);
	close(fd);
	return d;
}

static long long file_size(const char *path)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	return st.st_size;
}

typedef void (*writer_steps)(struct ktr_writer *w, int fd);

/* Run steps in a child whose files cannot grow past limit; its writer. */
static struct ktr_writer run_limited(writer_steps steps, int fd, long long limit)
{
	struct ktr_writer w;
	int pfd[2], status;
	pid_t pid;

	assert_int_equal(pipe(pfd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct rlimit rl;

		getrlimit(RLIMIT_FSIZE, &rl);
		rl.rlim_cur = limit;
		signal(SIGXFSZ, SIG_IGN); /* EFBIG instead */
		if (setrlimit(RLIMIT_FSIZE, &rl) || ktr_writer_init(&w, fd))
			_exit(1);
		steps(&w, fd);
		_exit(write(pfd[1], &w, sizeof(w)) == sizeof(w) ? 0 : 1);
	}
	close(pfd[1]);
	assert_int_equal(read(pfd[0], &w, sizeof(w)), sizeof(w));
	close(pfd[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	return w;
}

static void write_recs(struct ktr_writer *w, int n)
{
	struct strbuf sb;

	make_recs(&sb, n);
	ktr_writer_write(w, sb.buf, sb.len);
	sb_free(&sb);
}

static void write_ten_two_mark_five(struct ktr_writer *w, int fd)
{
	(void)fd;
	write_recs(w, 10);
	write_recs(w, 2);
	ktr_writer_mark(w, 5);
}

/*
 * A write cut at 340 bytes: 3 records stay, a DROP over the 4th counts 7,
 * and the 16 bytes left hold no second DROP.
 */
static void test_short_write_ends_in_drop(void **state)
{
	char path[] = "/tmp/ktr-writer.XXXXXX";
	int fd = new_trace(path);
	struct ktr_writer w = run_limited(write_ten_two_mark_five, fd, HDR_SIZE + 340);
	struct decoded d = decode(path);

	(void)state;
	assert_int_equal(w.error, EFBIG);
	assert_int_equal(w.lost, 7 + 2);
	assert_int_equal(w.unmarked, 0);
	assert_int_equal(file_size(path), HDR_SIZE + 3 * REC_SIZE + DROP_SIZE);
	assert_int_equal(d.nami, 3);
	/* the later losses (2 records, 5 from BPF) went into the same DROP */
	assert_int_equal(d.drops, 1);
	assert_int_equal(d.dropped, 7 + 2 + 5);
	assert_int_equal(d.last_type, KTR_DROP);
	close(fd);
	unlink(path);
}

static void write_ten_then_room(struct ktr_writer *w, int fd)
{
	struct rlimit rl;

	(void)fd;
	write_recs(w, 10);
	/* the file may grow again */
	getrlimit(RLIMIT_FSIZE, &rl);
	rl.rlim_cur = rl.rlim_max;
	setrlimit(RLIMIT_FSIZE, &rl);
	write_recs(w, 1);
}

/* No room even for a DROP: cut back to the header, marked once it fits. */
static void test_no_room_marks_later(void **state)
{
	char path[] = "/tmp/ktr-writer.XXXXXX";
	int fd = new_trace(path);
	struct ktr_writer w = run_limited(write_ten_then_room, fd, HDR_SIZE + 30);
	struct decoded d = decode(path);

	(void)state;
	assert_int_equal(w.error, EFBIG);
	assert_int_equal(w.lost, 10);
	assert_int_equal(w.unmarked, 0);
	assert_int_equal(file_size(path), HDR_SIZE + DROP_SIZE + REC_SIZE);
	assert_int_equal(d.drops, 1);
	assert_int_equal(d.dropped, 10);
	assert_int_equal(d.nami, 1);
	close(fd);
	unlink(path);
}

static void write_ten(struct ktr_writer *w, int fd)
{
	(void)fd;
	write_recs(w, 10);
}

/* Never full: every record, after the header, even with O_APPEND set. */
static void test_plain_writes(void **state)
{
	char path[] = "/tmp/ktr-writer.XXXXXX";
	int fd = new_trace(path);
	struct ktr_writer w = run_limited(write_ten, fd, RLIM_INFINITY);
	struct decoded d = decode(path);

	(void)state;
	assert_int_equal(w.error, 0);
	assert_int_equal(w.lost, 0);
	assert_int_equal(d.nami, 10);
	assert_int_equal(d.drops, 0);
	assert_int_equal(file_size(path), HDR_SIZE + 10 * REC_SIZE);
	close(fd);
	unlink(path);
}

static void test_fs_types(void **state)
{
	const char *name;

	(void)state;
	assert_true(ktr_fs_stores_files(0xEF53, &name));
	assert_string_equal(name, "ext4");
	assert_true(ktr_fs_stores_files(0x01021994, &name));
	assert_string_equal(name, "tmpfs");
	/* f_type is signed: a magic with the top bit set may come negative */
	assert_true(ktr_fs_stores_files((int)0xFF534D42, &name));
	assert_string_equal(name, "cifs");
	assert_false(ktr_fs_stores_files(0x9fa0, &name));
	assert_string_equal(name, "proc");
	assert_false(ktr_fs_stores_files(0x74726163, &name));
	assert_string_equal(name, "tracefs");
	assert_false(ktr_fs_stores_files(0x12345678, &name));
	assert_null(name);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_short_write_ends_in_drop),
		cmocka_unit_test(test_no_room_marks_later),
		cmocka_unit_test(test_plain_writes),
		cmocka_unit_test(test_fs_types),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
