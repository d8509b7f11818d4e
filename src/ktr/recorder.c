// SPDX-License-Identifier: GPL-2.0
/*
 * The ktrace recorder daemon (see ktr_recorder.h). It is started by a
 * double fork so that it is nobody's child, reports readiness through a
 * pipe, and from then on talks to later ktrace invocations only through
 * its state file and its BPF target map.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "ktr/file.h"
#include "ktr/recorder.h"
#include "ktr/state.h"
#include "ktr/systab.h"
#include "ktr/writer.h"
#include "ktrace.skel.h"
#include "lib/ringbuf.h"
#include "lib/util.h"

#define RINGBUF_BYTES (16u << 20)
#define WAKEUP_BYTES (256u << 10)
#define OUTBUF_BYTES (1u << 20)
#define POLL_MS 20
#define PRUNE_EVERY 50 /* polls between checks for vanished processes */

struct recorder {
	const struct ktr_recorder_opts *o;
	struct ktrace_bpf *skel;
	struct rb_reader *rb;
	int targets_fd;
	struct ktr_writer w;
	char *out;
	size_t out_len;
	long long boot_to_real_ns; /* CLOCK_REALTIME - CLOCK_BOOTTIME */
	unsigned int abandoned;	   /* processes still traced when it stopped */
};

/* Write the buffered records; what a failed write loses is counted. */
static void flush_out(struct recorder *r)
{
	bool failed = r->w.error;

	ktr_writer_write(&r->w, r->out, r->out_len);
	if (!failed && r->w.error)
		p_err("writing '%s': %s; records are being dropped", r->o->trfile,
		      strerror(r->w.error));
	r->out_len = 0;
	r->boot_to_real_ns = clock_ns(CLOCK_REALTIME) - clock_ns(CLOCK_BOOTTIME);
}

static void append_record(struct recorder *r, const struct ktr_hdr *h, const void *payload)
{
	size_t need = sizeof(*h) + h->len;

	if (r->out_len + need > OUTBUF_BYTES)
		flush_out(r);
	memcpy(r->out + r->out_len, h, sizeof(*h));
	memcpy(r->out + r->out_len + sizeof(*h), payload, h->len);
	r->out_len += need;
}

static int on_event(void *ctx, void *data, size_t size)
{
	struct recorder *r = ctx;
	struct ktr_hdr h;

	if (size < sizeof(h))
		return 0;
	memcpy(&h, data, sizeof(h));
	if (h.len > size - sizeof(h))
		return 0;
	h.ts_ns += r->boot_to_real_ns;
	append_record(r, &h, (const char *)data + sizeof(h));
	return 0;
}

/* Records lost in BPF (per-CPU) but not yet marked by a KTR_DROP there. */
static void bpf_drops(struct recorder *r, unsigned long long *pending, unsigned long long *total)
{
	int ncpu = libbpf_num_possible_cpus(), i;
	struct {
		__u64 pending, total;
	} * ds;
	__u32 zero = 0;

	*pending = *total = 0;
	if (ncpu <= 0)
		return;
	ds = calloc(ncpu, sizeof(*ds));
	if (!ds)
		return;
	if (!bpf_map_lookup_elem(bpf_map__fd(r->skel->maps.drops), &zero, ds)) {
		for (i = 0; i < ncpu; i++) {
			*pending += ds[i].pending;
			*total += ds[i].total;
		}
	}
	free(ds);
}

/* The last word in the file: losses no later record could mark. */
static unsigned long long final_drops(struct recorder *r)
{
	unsigned long long pending, total;

	bpf_drops(r, &pending, &total);
	if (pending || r->w.unmarked)
		ktr_writer_mark(&r->w, pending);
	return total + r->w.lost;
}

static int fill_sysinfo(struct recorder *r)
{
	int fd = bpf_map__fd(r->skel->maps.sysinfo);
	struct ktr_sysinfo si;
	__u32 nr;

	for (nr = 0; nr < KTR_MAX_SYSCALLS; nr++) {
		ktr_sysinfo_for(nr, &si);
		if (bpf_map_update_elem(fd, &nr, &si, BPF_ANY))
			return -errno;
	}
	return 0;
}

/* Load only the programs the trace points need (verifying is slow). */
static void select_programs(struct ktrace_bpf *skel, unsigned int facs)
{
	bool io = facs & (KTRFAC_NAMEI | KTRFAC_GENIO);

	bpf_program__set_autoload(skel->progs.ktr_sys_exit, !io);
	bpf_program__set_autoload(skel->progs.ktr_sys_exit_io, io);
	bpf_program__set_autoload(skel->progs.ktr_exec,
				  facs & (KTRFAC_NAMEI | KTRFAC_EXECARGS | KTRFAC_EXECENV));
	bpf_program__set_autoload(skel->progs.ktr_signal_deliver, facs & KTRFAC_PSIG);
}

/* Before 5.11: an LRU hash of thread ids stands in (see ktrace.bpf.c). */
static int no_task_storage(struct ktrace_bpf *skel)
{
	if (libbpf_probe_bpf_map_type(BPF_MAP_TYPE_TASK_STORAGE, NULL) == 1)
		return 0;
	p_dbg("recorder: no task storage; threads announced through an LRU hash");
	skel->rodata->task_storage = false;
	return bpf_map__set_type(skel->maps.announced, BPF_MAP_TYPE_LRU_HASH) ?:
	       bpf_map__set_map_flags(skel->maps.announced, 0) ?:
	       bpf_map__set_max_entries(skel->maps.announced, KTR_MAX_THREADS);
}

static int load_bpf(struct recorder *r)
{
	int err;

	p_dbg("recorder: loading BPF");
	r->skel = ktrace_bpf__open();
	if (!r->skel) {
		p_err("cannot open the ktrace BPF object: %s", strerror(errno));
		return -errno;
	}
	select_programs(r->skel, r->o->facs);
	bpf_map__set_max_entries(r->skel->maps.events, RINGBUF_BYTES);
	r->skel->rodata->wakeup_bytes = WAKEUP_BYTES;
	err = no_task_storage(r->skel);
	if (!err)
		err = ktrace_bpf__load(r->skel);
	if (err) {
		p_err("cannot load the ktrace BPF programs: %s (needs root, BTF and tp_btf; run with -d for libbpf's reasons)",
		      strerror(-err));
		return err;
	}
	p_dbg("recorder: loaded");
	err = fill_sysinfo(r);
	if (!err)
		err = ktrace_bpf__attach(r->skel);
	p_dbg("recorder: attached");
	if (err) {
		p_err("cannot attach the ktrace tracepoints: %s", strerror(-err));
		return err;
	}
	r->targets_fd = bpf_map__fd(r->skel->maps.targets);
	r->rb = rb_reader__new(bpf_map__fd(r->skel->maps.events), on_event, r);
	if (!r->rb) {
		p_err("cannot set up the ring buffer: %s", strerror(errno));
		return -errno;
	}
	return 0;
}

static int add_initial_targets(struct recorder *r)
{
	size_t i;

	for (i = 0; i < r->o->nr_targets; i++) {
		if (bpf_map_update_elem(r->targets_fd, &r->o->targets[i].pid, &r->o->targets[i].t,
					BPF_ANY)) {
			p_err("cannot trace pid %u: %s", r->o->targets[i].pid, strerror(errno));
			return -errno;
		}
	}
	return 0;
}

/* A process whose exit the tracepoint missed (it exited while being added). */
static void prune_vanished(struct recorder *r)
{
	__u32 key, next, *prev = NULL;

	while (!bpf_map_get_next_key(r->targets_fd, prev, &next)) {
		key = next;
		if (kill(key, 0) && errno == ESRCH)
			bpf_map_delete_elem(r->targets_fd, &key);
		prev = &key;
	}
}

static bool no_targets(struct recorder *r)
{
	__u32 key;

	return bpf_map_get_next_key(r->targets_fd, NULL, &key) != 0;
}

static unsigned int count_targets(struct recorder *r)
{
	__u32 key, *prev = NULL;
	unsigned int n = 0;

	while (!bpf_map_get_next_key(r->targets_fd, prev, &key)) {
		n++;
		prev = &key;
	}
	return n;
}

static int map_id_of(int fd, unsigned int *id)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -errno;
	*id = info.id;
	return 0;
}

static void record_loop(struct recorder *r)
{
	unsigned long ticks = 0;
	int err;

	while (!stop_signal) {
		/* Records below WAKEUP_BYTES wake nobody: the poll reads them anyway. */
		err = rb_reader__poll(r->rb, POLL_MS);
		if (err == -EINTR)
			err = rb_reader__consume(r->rb);
		if (err < 0 && err != -EINTR) {
			p_err("ring buffer: %s", strerror(-err));
			break;
		}
		flush_out(r);
		if (++ticks % PRUNE_EVERY == 0)
			prune_vanished(r);
		if (no_targets(r))
			break;
	}
	/* Stopped early: whoever waits for those processes must know. */
	if (stop_signal)
		r->abandoned = count_targets(r);
	rb_reader__consume(r->rb);
	flush_out(r);
}

/* Keep only what the recorder needs: no pipe of the caller stays open. */
static void close_other_fds(const int *keep, int nkeep)
{
	int fds[256], n = 0, fd, i;
	struct dirent *de;
	DIR *d = opendir("/proc/self/fd");
	long long v;

	if (!d)
		return;
	while ((de = readdir(d)) && n < (int)ARRAY_SIZE(fds)) {
		if (parse_long(de->d_name, 3, 1 << 20, &v) || v == dirfd(d))
			continue;
		fds[n++] = v;
	}
	closedir(d);
	for (i = 0; i < n; i++) {
		fd = fds[i];
		for (int k = 0; k < nkeep; k++)
			if (keep[k] == fd)
				fd = -1;
		if (fd >= 0)
			close(fd);
	}
}

static void detach_stdio(bool keep_stderr)
{
	int fd = open("/dev/null", O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return;
	dup2(fd, STDIN_FILENO);
	dup2(fd, STDOUT_FILENO);
	if (!keep_stderr)
		dup2(fd, STDERR_FILENO);
	close(fd);
}

static int write_state(const struct recorder *r, unsigned int map_id, unsigned long long dropped,
		       bool exited)
{
	struct ktr_state st = { .pid = getpid(),
				.map_id = map_id,
				.dropped = dropped,
				.exited = exited,
				.facs = r->o->facs,
				.signal = stop_signal,
				.abandoned = r->abandoned,
				.unmarked = r->w.unmarked,
				.write_error = r->w.error };

	snprintf(st.trfile, sizeof(st.trfile), "%s", r->o->trfile);
	return ktr_state_write(r->o->state_fd, &st);
}

static int untrace_self(const char *path, const struct ktr_state *st, void *ctx)
{
	pid_t self = *(pid_t *)ctx;

	(void)path;
	ktr_targets_remove(st->map_id, &self, 1);
	return 0;
}

/* The daemon: returns its exit status. */
static int recorder_main(const struct ktr_recorder_opts *o, int ready_fd)
{
	struct recorder r = { .o = o };
	unsigned int map_id = 0;
	unsigned long long dropped;
	int err;

	r.out = malloc(OUTBUF_BYTES);
	r.boot_to_real_ns = clock_ns(CLOCK_REALTIME) - clock_ns(CLOCK_BOOTTIME);
	err = r.out ? ktr_writer_init(&r.w, o->trace_fd) : -ENOMEM;
	if (err)
		p_err("cannot set up writing '%s': %s", o->trfile, strerror(-err));
	else
		err = load_bpf(&r);
	if (!err)
		err = add_initial_targets(&r);
	if (!err)
		err = map_id_of(r.targets_fd, &map_id);
	if (!err)
		err = write_state(&r, map_id, 0, false);
	if (err)
		goto out;
	if (write(ready_fd, &map_id, sizeof(map_id)) != sizeof(map_id))
		goto out;
	close(ready_fd);
	ready_fd = -1;
	/* -d keeps stderr for the recorder's and libbpf's messages */
	detach_stdio(util_debug());
	record_loop(&r);
	dropped = final_drops(&r);
	write_state(&r, map_id, dropped, true);
	/* Gone before the lock drops: a waiter never sees a stale file. */
	unlink(o->state_path);
out:
	if (ready_fd >= 0)
		close(ready_fd);
	rb_reader__free(r.rb);
	ktrace_bpf__destroy(r.skel);
	free(r.out);
	return err ? 1 : 0;
}

static void daemonize_and_run(const struct ktr_recorder_opts *o, int ready_fd)
{
	int keep[3] = { o->trace_fd, o->state_fd, ready_fd };

	setsid();
	if (fork() != 0)
		_exit(0); /* the middle process: the recorder is reparented */
	/*
	 * Started from a process traced with -i, the recorder inherited that
	 * tracing: recording its own writes would feed on itself.
	 */
	ktr_state_for_each(untrace_self, &(pid_t){ getpid() });
	if (chdir("/"))
		_exit(1);
	close_other_fds(keep, ARRAY_SIZE(keep));
	setup_stop_signals();
	_exit(recorder_main(o, ready_fd));
}

int ktr_recorder_start(const struct ktr_recorder_opts *o, pid_t *pid, unsigned int *map_id)
{
	struct ktr_state st;
	int pipefd[2], status;
	pid_t mid;
	ssize_t n;

	if (pipe2(pipefd, O_CLOEXEC))
		return -errno;
	fflush(NULL);
	mid = fork();
	if (mid < 0) {
		close(pipefd[0]);
		close(pipefd[1]);
		return -errno;
	}
	if (mid == 0) {
		close(pipefd[0]);
		daemonize_and_run(o, pipefd[1]);
	}
	close(pipefd[1]);
	waitpid(mid, &status, 0);
	do {
		n = read(pipefd[0], map_id, sizeof(*map_id));
	} while (n < 0 && errno == EINTR);
	close(pipefd[0]);
	if (n != sizeof(*map_id))
		return -ECHILD; /* it printed why */
	if (ktr_state_read(o->state_fd, &st))
		return -EIO;
	*pid = st.pid;
	return 0;
}

int ktr_targets_update(unsigned int map_id, const struct ktr_initial_target *t, size_t n)
{
	int fd = bpf_map_get_fd_by_id(map_id), err = 0;
	size_t i;

	if (fd < 0)
		return -errno;
	for (i = 0; i < n && !err; i++) {
		if (bpf_map_update_elem(fd, &t[i].pid, &t[i].t, BPF_ANY))
			err = -errno;
	}
	close(fd);
	return err;
}

int ktr_targets_remove(unsigned int map_id, const pid_t *pids, size_t n)
{
	int fd = bpf_map_get_fd_by_id(map_id);
	size_t i;
	__u32 key;

	if (fd < 0)
		return -errno;
	for (i = 0; i < n; i++) {
		key = pids[i];
		bpf_map_delete_elem(fd, &key);
	}
	close(fd);
	return 0;
}

int ktr_targets_any(unsigned int map_id)
{
	int fd = bpf_map_get_fd_by_id(map_id), ret;
	__u32 key;

	if (fd < 0)
		return -errno;
	ret = bpf_map_get_next_key(fd, NULL, &key) ? 0 : 1;
	close(fd);
	return ret;
}
