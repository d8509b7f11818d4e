// SPDX-License-Identifier: GPL-2.0
/*
 * Drives src/lib/ringbuf.c against a real BPF ring buffer: socket-filter
 * programs written as raw instructions reserve, stamp and submit records
 * of a fixed size, bpf_prog_test_run_opts() runs them as often as asked,
 * and the reader, with a window far smaller than the ring, must deliver
 * every record across many wraps. The event loop of lib/ring.c stops on
 * the same ring in its promised order. Prints TAP lines.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <linux/bpf.h>

#include "lib/outfile.h"
#include "lib/ring.h"
#include "lib/ringbuf.h"
#include "lib/util.h"

#define RING (64u * 1024u)
#define WINDOW (8u * 1024u)
#define REC_HDR 8u

static int failures;

static void report(bool pass, const char *name, const char *why)
{
	printf("%s - ringbuf: %s\n", pass ? "ok" : "not ok", name);
	if (!pass) {
		printf("#   %s\n", why);
		failures++;
	}
}

#define INSN(c, d, s, o, i) \
	((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), .off = (o), .imm = (i) })
#define LD_MAP(d, fd) \
	INSN(BPF_LD | BPF_DW | BPF_IMM, d, BPF_PSEUDO_MAP_FD, 0, fd), INSN(0, 0, 0, 0, 0)
#define CALL(f) INSN(BPF_JMP | BPF_CALL, 0, 0, 0, f)

/* Reserve size bytes, write {ktime, size}, submit; count a failed reserve. */
static int load_producer(int ring_fd, int drops_fd, int size)
{
	struct bpf_insn prog[] = {
		LD_MAP(BPF_REG_1, ring_fd),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_2, 0, 0, size),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_3, 0, 0, 0),
		CALL(BPF_FUNC_ringbuf_reserve),
		INSN(BPF_JMP | BPF_JEQ | BPF_K, BPF_REG_0, 0, 9, 0),
		INSN(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_6, BPF_REG_0, 0, 0),
		CALL(BPF_FUNC_ktime_get_ns),
		INSN(BPF_STX | BPF_MEM | BPF_DW, BPF_REG_6, BPF_REG_0, 0, 0),
		INSN(BPF_ST | BPF_MEM | BPF_DW, BPF_REG_6, 0, 8, size),
		INSN(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_1, BPF_REG_6, 0, 0),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_2, 0, 0, 0),
		CALL(BPF_FUNC_ringbuf_submit),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0),
		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
		/* the reserve failed: drops[0]++ */
		INSN(BPF_ST | BPF_MEM | BPF_W, BPF_REG_10, 0, -4, 0),
		INSN(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_2, BPF_REG_10, 0, 0),
		INSN(BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_2, 0, 0, -4),
		LD_MAP(BPF_REG_1, drops_fd),
		CALL(BPF_FUNC_map_lookup_elem),
		INSN(BPF_JMP | BPF_JEQ | BPF_K, BPF_REG_0, 0, 2, 0),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_1, 0, 0, 1),
		INSN(BPF_STX | BPF_ATOMIC | BPF_DW, BPF_REG_0, BPF_REG_1, 0, BPF_ADD),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0),
		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
	};
	static char log[65536];
	LIBBPF_OPTS(bpf_prog_load_opts, o, .log_buf = log, .log_size = sizeof(log), .log_level = 1);
	int fd = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, "rb_producer", "GPL", prog,
			       sizeof(prog) / sizeof(prog[0]), &o);

	if (fd < 0)
		fprintf(stderr, "loading the producer: %s\n%s\n", strerror(errno), log);
	return fd;
}

static int run(int prog_fd, unsigned int times)
{
	char pkt[64] = { 0 };
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = pkt, .data_size_in = sizeof(pkt),
		    .repeat = times);

	return bpf_prog_test_run_opts(prog_fd, &o) ? -errno : 0;
}

struct seen {
	unsigned long long records, last_ns, bad_size, bad_order, stop_after;
	bool slow; /* so that the ring fills */
	size_t max_mapped;
	struct rb_reader *r;
};

static int on_record(void *ctx, void *data, size_t size)
{
	struct seen *s = ctx;
	unsigned long long ns, want;

	memcpy(&ns, data, sizeof(ns));
	memcpy(&want, (char *)data + 8, sizeof(want));
	if (want != size)
		s->bad_size++;
	if (ns < s->last_ns)
		s->bad_order++;
	s->last_ns = ns;
	s->records++;
	if (s->r && rb_reader__mapped(s->r) > s->max_mapped)
		s->max_mapped = rb_reader__mapped(s->r);
	if (s->slow && s->records % 500 == 0)
		usleep(1000);
	if (s->stop_after && s->records % s->stop_after == 0)
		return -EINTR;
	return 0;
}

static unsigned long long read_drops(int drops_fd)
{
	unsigned long long v = 0;
	__u32 key = 0;

	bpf_map_lookup_elem(drops_fd, &key, &v);
	return v;
}

struct producer {
	int prog_fd;
	unsigned int times;
	volatile bool done;
};

static void *produce(void *arg)
{
	struct producer *p = arg;

	run(p->prog_fd, p->times);
	p->done = true;
	return NULL;
}

static void check_rounds(int ring_fd, const int *progs, const int *sizes, int n)
{
	struct seen s = { 0 };
	unsigned long long want = 0, rounds = 0;
	char why[200];
	int i, round, k, got;

	s.r = rb_reader__new_window(ring_fd, on_record, &s, WINDOW);
	if (!s.r) {
		report(false, "a reader opens", strerror(errno));
		return;
	}
	report(rb_reader__mapped(s.r) == WINDOW, "the window starts at its size",
	       "mapped another size");
	for (round = 0; round < 40; round++) {
		for (i = 0; i < n; i++) {
			/* At most half the ring per batch: none is dropped. */
			k = RING / 2 / (sizes[i] + REC_HDR);
			if (run(progs[i], k)) {
				report(false, "the producer runs", strerror(errno));
				goto out;
			}
			want += k;
			got = rb_reader__consume(s.r);
			if (got != k) {
				snprintf(why, sizeof(why), "round %d size %d: %d of %d", round,
					 sizes[i], got, k);
				report(false, "every record of a batch is read", why);
				goto out;
			}
			rounds++;
		}
	}
	snprintf(why, sizeof(why), "%llu of %llu records, %llu sizes wrong, %llu out of order",
		 s.records, want, s.bad_size, s.bad_order);
	report(s.records == want && !s.bad_size && !s.bad_order,
	       "batches of 16..20000-byte records, many wraps, all read in order", why);
	report(rb_reader__pending(s.r) == 0, "nothing is left pending", "bytes left");
	snprintf(why, sizeof(why), "widest window %zu", s.max_mapped);
	report(s.max_mapped >= 20000 + REC_HDR && s.max_mapped < RING,
	       "a record longer than the window widens it", why);
out:
	rb_reader__free(s.r);
}

static void check_stop(int ring_fd, int prog)
{
	struct seen s = { .stop_after = 5 };
	char why[200];
	int got;

	s.r = rb_reader__new_window(ring_fd, on_record, &s, WINDOW);
	if (!s.r || run(prog, 12)) {
		report(false, "a stopping callback", strerror(errno));
		rb_reader__free(s.r);
		return;
	}
	got = rb_reader__consume(s.r);
	snprintf(why, sizeof(why), "returned %d after %llu records", got, s.records);
	report(got == -EINTR && s.records == 5, "a negative callback stops the read", why);
	rb_reader__consume(s.r);
	s.stop_after = 0;
	got = rb_reader__consume(s.r);
	snprintf(why, sizeof(why), "returned %d, %llu records in all, %llu out of order", got,
		 s.records, s.bad_order);
	report(got == 2 && s.records == 12 && !s.bad_order,
	       "the next read goes on after the stopped record", why);
	rb_reader__free(s.r);
}

static void check_concurrent(int ring_fd, int drops_fd, int prog)
{
	struct producer p = { .prog_fd = prog, .times = 200000 };
	struct seen s = { .slow = true };
	unsigned long long drops0 = read_drops(drops_fd), drops;
	pthread_t t;
	char why[200];
	int err = 0;

	s.r = rb_reader__new_window(ring_fd, on_record, &s, WINDOW);
	if (!s.r || pthread_create(&t, NULL, produce, &p)) {
		report(false, "a concurrent producer", strerror(errno));
		rb_reader__free(s.r);
		return;
	}
	while (!p.done && err >= 0)
		err = rb_reader__poll(s.r, 10);
	pthread_join(t, NULL);
	if (err >= 0)
		err = rb_reader__consume(s.r);
	drops = read_drops(drops_fd) - drops0;
	snprintf(why, sizeof(why), "%llu read + %llu dropped of %u, %llu wrong, last error %d",
		 s.records, drops, p.times, s.bad_size + s.bad_order, err);
	report(err >= 0 && s.records + drops == p.times && s.records > 0 && drops > 0 &&
		       !s.bad_size && !s.bad_order,
	       "read while written and full: every record read or counted as dropped", why);
	rb_reader__free(s.r);
}

/* ring_loop__finish's order, as lib/ring.c promises it. */
struct order {
	int prog, drops_fd;
	int step, detached_at, drops_read_at;
	unsigned long long before_detach, after_detach;
};

static int order_record(void *ctx, const void *data, size_t size)
{
	struct order *o = ctx;

	(void)data;
	(void)size;
	if (o->detached_at)
		o->after_detach++;
	else
		o->before_detach++;
	return 0;
}

static int order_drops(void *ctx, __u64 *drops)
{
	struct order *o = ctx;

	o->drops_read_at = ++o->step;
	drops[0] = read_drops(o->drops_fd);
	return 0;
}

/* Records still in flight while the probes go are the drain's too. */
static void order_detach(void *ctx)
{
	struct order *o = ctx;

	o->detached_at = ++o->step;
	run(o->prog, 5);
}

static const char *const order_names[] = { "ring buffer full" };

static void check_loop_order(int ring_fd, int drops_fd, int prog, int stops)
{
	struct order o = { .prog = prog, .drops_fd = drops_fd };
	struct ring_source src = {
		.map_fd = ring_fd,
		.handle = order_record,
		.read_drops = order_drops,
		.drop_names = order_names,
		.nr_drop_reasons = 1,
		.ring_full = 0,
		.detach = order_detach,
		.ctx = &o,
	};
	struct ring_loop *rl = ring_loop__new(&src);
	char why[200];
	bool pass;

	if (!rl || run(prog, 10)) {
		report(false, "the event loop's stop order", strerror(errno));
		ring_loop__free(rl);
		return;
	}
	/* stopped before the loop ran: the 10 records wait in the ring */
	stop_signal = SIGINT;
	stop_count = stops;
	pass = !ring_loop__run(rl) && !ring_loop__finish(rl);
	snprintf(why, sizeof(why),
		 "detach at step %d, final drops read at %d, %llu records before "
		 "detach, %llu after, %llu delivered",
		 o.detached_at, o.drops_read_at, o.before_detach, o.after_detach,
		 (unsigned long long)ring_loop__delivered(rl));
	if (stops == 1)
		report(pass && o.detached_at == 1 && o.drops_read_at == 2 && !o.before_detach &&
			       o.after_detach == 15 && ring_loop__delivered(rl) == 15,
		       "a stop detaches, then delivers all 15 records, then reads the drops", why);
	else
		report(pass && o.detached_at == 1 && o.drops_read_at == 2 && !o.before_detach &&
			       !o.after_detach,
		       "a second stop detaches and skips the ring's 15 records", why);
	stop_signal = 0;
	stop_count = 0;
	ring_loop__free(rl);
}

/* Every other record refused by the handler, as output's validation refuses one. */
static int malformed_record(void *ctx, const void *data, size_t size)
{
	unsigned long long *n = ctx;

	(void)data;
	(void)size;
	return (*n)++ % 2 ? RING_MALFORMED : 0;
}

static int no_drops(void *ctx, __u64 *drops)
{
	(void)ctx;
	drops[0] = 0;
	return 0;
}

static void no_detach(void *ctx)
{
	(void)ctx;
}

/* The loop's last words on stderr, read from a file it was pointed at. */
static void check_malformed(int ring_fd, int prog)
{
	unsigned long long n = 0;
	struct ring_source src = {
		.map_fd = ring_fd,
		.handle = malformed_record,
		.read_drops = no_drops,
		.drop_names = order_names,
		.nr_drop_reasons = 1,
		.ring_full = 0,
		.detach = no_detach,
		.ctx = &n,
	};
	struct ring_loop *rl = ring_loop__new(&src);
	char err[512] = "", why[600];
	FILE *tmp = tmpfile();
	int saved = dup(STDERR_FILENO);
	size_t len = 0;

	if (!rl || !tmp || saved < 0 || run(prog, 10)) {
		report(false, "malformed records are counted as lost", strerror(errno));
		goto out;
	}
	fflush(stderr);
	dup2(fileno(tmp), STDERR_FILENO);
	stop_signal = SIGINT;
	stop_count = 1;
	ring_loop__run(rl);
	ring_loop__finish(rl);
	stop_signal = 0;
	stop_count = 0;
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	rewind(tmp);
	len = fread(err, 1, sizeof(err) - 1, tmp);
	err[len] = 0;
	snprintf(why, sizeof(why), "stderr: %s", err);
	report(strstr(err, "lost 5 events (5 malformed)") && ring_loop__delivered(rl) == 5,
	       "malformed records are counted as lost, on stderr", why);
out:
	if (saved >= 0)
		close(saved);
	if (tmp)
		fclose(tmp);
	ring_loop__free(rl);
}

/* trace -o FILE: each record printed to the file, as trace's events are. */
struct to_file {
	FILE *f;
	unsigned long long records;
};

static int file_record(void *ctx, const void *data, size_t size)
{
	static char line[1000];
	struct to_file *t = ctx;

	(void)data;
	(void)size;
	memset(line, 'e', sizeof(line) - 1);
	fputs(line, t->f);
	t->records++;
	return 0;
}

/* Were the stop never to come from the file, it comes from here. */
static void *stop_later(void *arg)
{
	(void)arg;
	sleep(3);
	stop_signal = SIGINT;
	return NULL;
}

/*
 * path is on a full (64 KiB) tmpfs: the loop stops at the first failed
 * flush of the file, with one line naming it, and closing says no more.
 */
static void check_full_file(int ring_fd, int prog, const char *path)
{
	struct to_file t = { 0 };
	struct ring_source src = {
		.map_fd = ring_fd,
		.handle = file_record,
		.read_drops = no_drops,
		.drop_names = order_names,
		.nr_drop_reasons = 1,
		.ring_full = -1,
		.detach = no_detach,
		.ctx = &t,
		.out_path = path,
	};
	char err[512] = "", why[700];
	long long start, ms;
	int saved, fd, run_err, close_err;
	struct ring_loop *rl;
	pthread_t stopper;
	ssize_t n;

	t.f = src.out = outfile_fopen("output file", path);
	rl = t.f ? ring_loop__new(&src) : NULL;
	if (!rl || run(prog, 200)) {
		report(false, "trace -o on a full disk: one error and a stop", strerror(errno));
		return;
	}
	setvbuf(t.f, NULL, _IOFBF, 1 << 16);
	fflush(stderr);
	fd = open("/tmp", O_TMPFILE | O_RDWR, 0600);
	saved = dup(STDERR_FILENO);
	dup2(fd, STDERR_FILENO);
	pthread_create(&stopper, NULL, stop_later, NULL);
	start = clock_ns(CLOCK_MONOTONIC);
	run_err = ring_loop__run(rl);
	ms = (clock_ns(CLOCK_MONOTONIC) - start) / 1000000;
	close_err = close_output(t.f, path);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	n = pread(fd, err, sizeof(err) - 1, 0);
	err[n > 0 ? n : 0] = '\0';
	close(fd);
	pthread_join(stopper, NULL);
	stop_signal = 0;
	ring_loop__free(rl);
	snprintf(why, sizeof(why), "run %d, close %d, %lld ms, %llu records, stderr: %s", run_err,
		 close_err, ms, t.records, err);
	report(run_err == -ENOSPC && close_err == -ENOSPC && ms < 2000 &&
		       !strcmp(strchr(err, '\n') ?: "", "\n") &&
		       !strncmp(err, "Error: writing '", 16) &&
		       strstr(err, "': No space left on device\n"),
	       "trace -o on a full disk: one error naming the file, and the loop stops", why);
}

/* trace | head: each record printed to stdout, whose reader is gone. */
static int stdout_record(void *ctx, const void *data, size_t size)
{
	(void)data;
	(void)size;
	printf("     21386407926    1      180 ip_send_skb(net=0xffffffff838b6540)\n");
	(*(unsigned long long *)ctx)++;
	return 0;
}

/*
 * The loop ends at the first flush that meets the closed pipe, says
 * nothing, and neither does the check of stdout at exit (ksnoop_main's).
 */
static void check_reader_gone(int ring_fd, int prog)
{
	unsigned long long records = 0;
	struct ring_source src = {
		.map_fd = ring_fd,
		.handle = stdout_record,
		.read_drops = no_drops,
		.drop_names = order_names,
		.nr_drop_reasons = 1,
		.ring_full = -1,
		.detach = no_detach,
		.ctx = &records,
	};
	int out = dup(STDOUT_FILENO), saved_err = dup(STDERR_FILENO), fds[2], fd, run_err, fin;
	struct ring_loop *rl = ring_loop__new(&src);
	char err[512] = "", why[700];
	pthread_t stopper;
	long long start, ms;
	ssize_t n;

	if (!rl || run(prog, 50) || pipe(fds)) {
		report(false, "trace | head: a quiet end", strerror(errno));
		ring_loop__free(rl);
		return;
	}
	fflush(stdout);
	fflush(stderr);
	close(fds[0]);
	dup2(fds[1], STDOUT_FILENO);
	close(fds[1]);
	fd = open("/tmp", O_TMPFILE | O_RDWR, 0600);
	dup2(fd, STDERR_FILENO);
	signal(SIGPIPE, SIG_IGN);
	pthread_create(&stopper, NULL, stop_later, NULL);
	start = clock_ns(CLOCK_MONOTONIC);
	run_err = ring_loop__run(rl);
	ms = (clock_ns(CLOCK_MONOTONIC) - start) / 1000000;
	fin = finish_stdout();
	fflush(stderr);
	dup2(saved_err, STDERR_FILENO);
	dup2(out, STDOUT_FILENO);
	close(saved_err);
	close(out);
	clearerr(stdout);
	n = pread(fd, err, sizeof(err) - 1, 0);
	err[n > 0 ? n : 0] = '\0';
	close(fd);
	pthread_join(stopper, NULL);
	stop_signal = 0;
	ring_loop__free(rl);
	snprintf(why, sizeof(why), "run %d, at exit %d, %lld ms, %llu records, stderr: %s", run_err,
		 fin, ms, records, err);
	report(!run_err && fin == 1 && ms < 2000 && !err[0],
	       "trace | head: the loop ends at the closed pipe, and nothing is said, not at exit either",
	       why);
}

static void check_not_a_ring(int drops_fd)
{
	struct seen s = { 0 };
	struct rb_reader *r = rb_reader__new(drops_fd, on_record, &s);

	report(!r && errno == EINVAL, "an array map is refused with EINVAL", strerror(errno));
	rb_reader__free(r);
}

int main(int argc, char **argv)
{
	/* Lengths that are not multiples of 8 leave padding to step over. */
	static const int sizes[] = { 24, 1001, 4003, 20000, 16 };
	int progs[5], ring_fd, drops_fd, i;

	ring_fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "rb_test", 0, 0, RING, NULL);
	drops_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "rb_drops", 4, 8, 1, NULL);
	if (ring_fd < 0 || drops_fd < 0) {
		report(false, "maps are created", strerror(errno));
		return 1;
	}
	for (i = 0; i < 5; i++) {
		progs[i] = load_producer(ring_fd, drops_fd, sizes[i]);
		if (progs[i] < 0) {
			report(false, "producers load", strerror(errno));
			return 1;
		}
	}
	check_rounds(ring_fd, progs, sizes, 4);
	check_stop(ring_fd, progs[0]);
	check_concurrent(ring_fd, drops_fd, progs[4]);
	check_loop_order(ring_fd, drops_fd, progs[0], 1);
	check_loop_order(ring_fd, drops_fd, progs[0], 2);
	check_malformed(ring_fd, progs[0]);
	check_not_a_ring(drops_fd);
	if (argc > 1)
		check_full_file(ring_fd, progs[0], argv[1]);
	/* last: stdout's end is for good */
	check_reader_gone(ring_fd, progs[0]);
	return failures ? 1 : 0;
}
