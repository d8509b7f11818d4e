// SPDX-License-Identifier: GPL-2.0
/*
 * ktrace [-aCcdi] [-f trfile] [-g pgid] [-p pid] [-t trstr]
 * ktrace [-adi] [-f trfile] [-t trstr] command [args]
 *
 * Process tracing after OpenBSD's ktrace(1). The tracing itself lives in a
 * background recorder per trace file (ktr_recorder.c); this command starts
 * one, adds or removes processes through its target map, or stops it.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "env.h"
#include "ktr/print.h"
#include "ktr/file.h"
#include "ktr/proc.h"
#include "ktr/recorder.h"
#include "ktr/state.h"
#include "ktr/systab.h"
#include "ktr/trfile.h"
#include "lib/opts.h"
#include "lib/util.h"

#define KTRACE_USAGE                                                         \
	"usage: ktrace [-aCcdi] [-f trfile] [-g pgid] [-p pid] [-t trstr]\n" \
	"       ktrace [-adi] [-f trfile] [-t trstr] command [args]"
/* Error messages stay on one line. */
#define KTRACE_SYNOPSIS \
	"usage: ktrace [-aCcdi] [-f trfile] [-g pgid] [-p pid] [-t trstr] [command [args]]"
#define DEFAULT_TRFILE "ktrace.out"
#define MAX_PGIDS 16
#define STALL_TIMEOUT_MS 10000 /* a recorder whose file stops growing is stuck */
#define WAIT_STEP_MS 10

/* ktrace command: its exit status, as env(1) and timeout(1) have them. */
#define EXIT_KTRACE_FAILED 125
#define EXIT_CANNOT_EXEC 126
#define EXIT_NOT_FOUND 127
#define EXIT_SIGNALED 128 /* + the signal */

struct ktrace_args {
	bool append;	/* -a */
	bool clear_all; /* -C */
	bool clear;	/* -c */
	bool descend;	/* -d */
	bool inherit;	/* -i */
	const char *trfile;
	struct ktr_pidset pids; /* -p, as process ids */
	pid_t pgids[MAX_PGIDS]; /* -g */
	int nr_pgids;
	unsigned int facs; /* -t */
	char **cmd;	   /* command [args], NULL-terminated */
};

/* The trace file and its recorder's state, while ktrace works on them. */
struct trfile {
	int fd;
	int state_fd;
	bool locked; /* no recorder runs: ours to start */
	struct ktr_state st;
	char state_path[PATH_MAX];
	char abspath[PATH_MAX];
};

static int add_pid_arg(void *ctx, const char *arg)
{
	struct ktrace_args *a = ctx;
	pid_t pid, tgid;

	if (opts_pid(arg, "-p pid", &pid))
		return -EINVAL;
	if (ktr_proc_tgid(pid, &tgid)) {
		p_err("no such process: %d", pid);
		return -ESRCH;
	}
	return ktr_pidset_add(&a->pids, tgid);
}

static int add_pgid_arg(void *ctx, const char *arg)
{
	struct ktrace_args *a = ctx;
	pid_t pgid;

	if (opts_pid(arg, "-g pgid", &pgid))
		return -EINVAL;
	if (a->nr_pgids >= MAX_PGIDS) {
		p_err("at most %d -g options", MAX_PGIDS);
		return -E2BIG;
	}
	a->pgids[a->nr_pgids++] = pgid;
	return 0;
}

static int set_trstr(void *ctx, const char *arg)
{
	struct ktrace_args *a = ctx;
	char bad;

	if (ktr_parse_trstr(arg, &a->facs, &bad)) {
		p_err("unknown trace point '%c' in -t '%s': use c, i, n, s, x, X or +", bad, arg);
		return -EINVAL;
	}
	if (!a->facs) {
		p_err("-t '%s' selects no trace points", arg);
		return -EINVAL;
	}
	return 0;
}

static void ktrace_help(void *ctx)
{
	(void)ctx;
	printf("%s\n", KTRACE_USAGE);
}

static const struct opt ktrace_table[] = {
	OPT_FLAG(NULL, 'a', struct ktrace_args, append),
	OPT_FLAG(NULL, 'C', struct ktrace_args, clear_all),
	OPT_FLAG(NULL, 'c', struct ktrace_args, clear),
	OPT_FLAG(NULL, 'd', struct ktrace_args, descend),
	OPT_FLAG(NULL, 'i', struct ktrace_args, inherit),
	OPT_STRING(NULL, 'f', struct ktrace_args, trfile),
	OPT_CALL(NULL, 'g', true, add_pgid_arg),
	OPT_CALL(NULL, 'p', true, add_pid_arg),
	OPT_CALL(NULL, 't', true, set_trstr),
	{},
};

static const struct opts_spec ktrace_opts = {
	.opts = ktrace_table,
	.mode = OPTS_STOP,
	.synopsis = KTRACE_SYNOPSIS,
	.help = ktrace_help,
};

static int check_combination(const struct ktrace_args *a)
{
	bool procs = a->pids.n || a->nr_pgids;

	if (a->cmd && (procs || a->clear || a->clear_all)) {
		p_err("a command cannot be combined with -p, -g, -c or -C; %s", KTRACE_SYNOPSIS);
		return -EINVAL;
	}
	if (!a->cmd && !procs && !a->clear && !a->clear_all) {
		p_err("no process or command to trace; %s", KTRACE_SYNOPSIS);
		return -EINVAL;
	}
	return 0;
}

static int parse_ktrace_args(struct ktrace_args *a, int argc, char **argv)
{
	struct opts_rest rest;
	int ret;
	char pr;

	a->trfile = DEFAULT_TRFILE;
	ktr_parse_trstr("+", &a->facs, &pr);
	ret = opts_parse(&ktrace_opts, a, argc, argv, &rest);
	if (ret)
		return ret;
	if (rest.argc)
		a->cmd = rest.argv;
	return check_combination(a);
}

/* A new file gets a header; an appended one must already be ours. */
static int prepare_header(const char *path, int fd, bool truncate)
{
	struct ktr_file_header h;
	const char *why;
	struct stat st;
	ssize_t n;

	if (truncate && ftruncate(fd, 0))
		return -errno;
	if (fstat(fd, &st))
		return -errno;
	if (st.st_size == 0) {
		ktr_file_header_init(&h, ktr_systab_machine);
		n = pwrite(fd, &h, sizeof(h), 0);
		if (n != sizeof(h)) {
			n = n < 0 ? -errno : -ENOSPC;
			/* No half header: an empty file is retried as new. */
			return ftruncate(fd, 0) ? -errno : n;
		}
	} else {
		n = pread(fd, &h, sizeof(h), 0);
		why = n != sizeof(h) ? "too short for a trace file"
				     : ktr_file_header_check_append(&h);
		if (!why && h.machine != ktr_systab_machine)
			why = "recorded on another architecture";
		if (why) {
			p_err("cannot append to '%s': %s", path, why);
			return -EINVAL;
		}
	}
	return 0;
}

static void trfile_close(struct trfile *tf)
{
	if (tf->fd >= 0)
		close(tf->fd);
	if (tf->state_fd >= 0)
		close(tf->state_fd);
	tf->fd = tf->state_fd = -1;
}

/* Open the trace file and find (or claim the right to start) its recorder. */
static int trfile_open(struct trfile *tf, const char *path, bool create, bool append)
{
	struct stat st;
	int err;

	memset(tf, 0, sizeof(*tf));
	tf->state_fd = -1;
	tf->fd = ktr_trfile_open(path, create, &st);
	if (tf->fd < 0)
		return tf->fd;
	if (!realpath(path, tf->abspath))
		snprintf(tf->abspath, sizeof(tf->abspath), "%s", path);
	err = ktr_state_path(st.st_dev, st.st_ino, tf->state_path, sizeof(tf->state_path));
	if (!err) {
		tf->state_fd = ktr_state_open(tf->state_path, true, &tf->locked);
		err = tf->state_fd < 0 ? tf->state_fd : 0;
	}
	if (err) {
		p_err("cannot lock the recorder state for '%s' in %s: %s", path, KTR_STATE_DIR,
		      strerror(-err));
	} else if (!tf->locked) {
		err = ktr_state_read(tf->state_fd, &tf->st);
		if (err)
			p_err("unreadable recorder state %s: %s", tf->state_path, strerror(-err));
		else if (create && !append)
			p_warn("a recorder is already writing '%s'; appending to it", path);
	} else if (create) {
		err = prepare_header(path, tf->fd, !append);
		if (err == -EINVAL)
			return err;
		if (err)
			p_err("cannot prepare trace file '%s': %s", path, strerror(-err));
	}
	return err;
}

/* What a recorder that ended lost: 0, or -EIO when the file is short of records. */
static int report_losses(const struct ktr_state *st, const char *path)
{
	if (st->write_error && st->unmarked)
		p_err("cannot write '%s': %s; %llu records were lost, %llu of them not marked in the file",
		      path, strerror(st->write_error), st->dropped, st->unmarked);
	else if (st->write_error)
		p_err("cannot write '%s': %s; %llu records were lost, marked DROP in the file",
		      path, strerror(st->write_error), st->dropped);
	else if (st->dropped)
		p_warn("%llu records were dropped writing '%s' (marked DROP in the file)",
		       st->dropped, path);
	return st->write_error ? -EIO : 0;
}

struct detach_ctx {
	unsigned int keep_map; /* 0: remove from every recorder */
	const pid_t *pids;
	size_t n;
};

/* A process is traced into one file: take it away from the others. */
static int detach_from(const char *path, const struct ktr_state *st, void *ctx)
{
	struct detach_ctx *d = ctx;

	(void)path;
	if (st->map_id != d->keep_map)
		ktr_targets_remove(st->map_id, d->pids, d->n);
	return 0;
}

/*
 * A state file of our own (not the recorder's, which holds the lock):
 * when the lock drops, the state in it says whether the recorder finished.
 */
static int watch_recorder(struct trfile *tf)
{
	bool locked;

	tf->state_fd = ktr_state_open(tf->state_path, false, &locked);
	if (tf->state_fd >= 0 && !locked)
		return 0;
	if (tf->state_fd >= 0)
		ktr_state_remove_stale(tf->state_fd, tf->state_path);
	p_err("the recorder for '%s' ended as it started", tf->abspath);
	return -ESRCH;
}

static int start_or_join(const struct ktrace_args *a, struct trfile *tf,
			 const struct ktr_initial_target *t, size_t n)
{
	struct ktr_recorder_opts o = {
		.trace_fd = tf->fd,
		.state_fd = tf->state_fd,
		.state_path = tf->state_path,
		.trfile = tf->abspath,
		.targets = t,
		.nr_targets = n,
		.facs = a->facs,
	};
	struct detach_ctx d = { .pids = a->pids.pids, .n = a->pids.n };
	int err;

	if (!tf->locked) {
		if (a->facs & ~tf->st.facs) {
			p_err("the recorder of '%s' was started without some of these trace points; stop it with 'ktrace -c -f %s' first",
			      a->trfile, a->trfile);
			return -EINVAL;
		}
		d.keep_map = tf->st.map_id;
		ktr_state_for_each(detach_from, &d);
		err = ktr_targets_update(tf->st.map_id, t, n);
		if (err)
			p_err("cannot add processes to the recorder of '%s': %s", a->trfile,
			      strerror(-err));
		return err;
	}
	ktr_state_for_each(detach_from, &d);
	err = ktr_recorder_start(&o, &tf->st.pid, &tf->st.map_id);
	if (err && err != -ECHILD)
		p_err("cannot start the recorder for '%s': %s", a->trfile, strerror(-err));
	/* The lock is the recorder's now: our copy would keep it held. */
	close(tf->state_fd);
	tf->state_fd = -1;
	return err ? err : watch_recorder(tf);
}

static struct ktr_target target_value(const struct ktrace_args *a, bool await_exec)
{
	struct ktr_target t = { .facs = a->facs };

	if (a->inherit)
		t.flags |= KTR_T_INHERIT;
	if (await_exec)
		t.flags |= KTR_T_AWAIT_EXEC;
	return t;
}

static int collect_procs(struct ktrace_args *a)
{
	int i, err;

	for (i = 0; i < a->nr_pgids; i++) {
		err = ktr_proc_add_pgrp(&a->pids, a->pgids[i]);
		if (err) {
			p_err("no such process group: %d", (int)a->pgids[i]);
			return err;
		}
	}
	if (a->descend && (err = ktr_proc_add_descendants(&a->pids))) {
		p_err("cannot list child processes: %s", strerror(-err));
		return err;
	}
	return 0;
}

static int add_recorder(const char *path, const struct ktr_state *st, void *ctx)
{
	(void)path;
	return ktr_pidset_add(ctx, st->pid);
}

struct recorder_name {
	pid_t pid;
	char trfile[PATH_MAX];
};

static int name_recorder(const char *path, const struct ktr_state *st, void *ctx)
{
	struct recorder_name *r = ctx;

	(void)path;
	if (st->pid != r->pid)
		return 0;
	snprintf(r->trfile, sizeof(r->trfile), "%s", st->trfile);
	return 1;
}

/*
 * A recorder traced would record its own writes, and those records, for
 * ever. Named with -p it is an error; found by -g or -d it is left out.
 */
static int leave_out_recorders(struct ktr_pidset *s, size_t named)
{
	struct ktr_pidset recorders = { 0 };
	struct recorder_name r = { 0 };
	size_t i = 0;
	int err;

	err = ktr_state_for_each(add_recorder, &recorders);
	if (err)
		p_err("cannot list the running recorders: %s", strerror(-err));
	while (!err && i < s->n) {
		if (!ktr_pidset_has(&recorders, s->pids[i])) {
			i++;
		} else if (i < named) {
			r.pid = s->pids[i];
			ktr_state_for_each(name_recorder, &r);
			p_err("refusing to trace process %d: it is the recorder of '%s'",
			      (int)r.pid, r.trfile);
			err = -EPERM;
		} else {
			s->pids[i] = s->pids[--s->n]; /* from -g or -d: after the named */
		}
	}
	ktr_pidset_free(&recorders);
	if (!err && !s->n) {
		p_err("no process to trace: those given are all ktrace recorders");
		err = -ESRCH;
	}
	return err;
}

static int do_trace_procs(struct ktrace_args *a)
{
	struct ktr_initial_target *t;
	size_t named = a->pids.n;
	struct trfile tf;
	size_t i;
	int err;

	err = collect_procs(a);
	if (!err)
		err = leave_out_recorders(&a->pids, named);
	if (err)
		return err;
	t = calloc(a->pids.n, sizeof(*t));
	if (!t)
		return -ENOMEM;
	for (i = 0; i < a->pids.n; i++) {
		t[i].pid = a->pids.pids[i];
		t[i].t = target_value(a, false);
	}
	err = trfile_open(&tf, a->trfile, true, a->append);
	if (!err)
		err = start_or_join(a, &tf, t, a->pids.n);
	trfile_close(&tf);
	free(t);
	return err;
}

/* The child: wait until the recorder watches, then become the command. */
static void run_command(char **cmd, int sync_fd)
{
	char go;

	if (read(sync_fd, &go, 1) != 1)
		_exit(EXIT_KTRACE_FAILED);
	close(sync_fd);
	execvp(cmd[0], cmd);
	p_err("cannot run '%s': %s", cmd[0], strerror(errno));
	_exit(errno == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_EXEC);
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static long long file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) ? -1 : (long long)st.st_size;
}

/*
 * Wait for the recorder whose state file fd is open to exit: 0, or 1 when
 * map_id is given and processes are still traced there. Draining a full
 * ring buffer to a slow disk takes as long as it takes, so give up
 * (-ETIMEDOUT) only once the trace file stopped growing for a while.
 */
static int wait_recorder(int fd, const char *trfile, unsigned int map_id)
{
	long long size = file_size(trfile), now;
	int stalled = 0;

	for (;;) {
		if (!ktr_state_wait_exit(fd, 0))
			return 0;
		if (map_id && ktr_targets_any(map_id) > 0)
			return 1;
		sleep_ms(WAIT_STEP_MS);
		now = file_size(trfile);
		if (now != size) {
			size = now;
			stalled = 0;
		} else if ((stalled += WAIT_STEP_MS) >= STALL_TIMEOUT_MS) {
			return -ETIMEDOUT;
		}
	}
}

/* The recorder let go of its state file: did it write every record? */
static int check_recorder_end(const struct trfile *tf)
{
	struct ktr_state st;
	char sig[16];

	if (ktr_state_read(tf->state_fd, &st) || !st.exited) {
		p_err("the recorder of '%s' (pid %d) died before writing every record; the trace is incomplete",
		      tf->abspath, (int)tf->st.pid);
		ktr_state_remove_stale(tf->state_fd, tf->state_path);
		return -EPIPE;
	}
	if (st.signal && st.abandoned) {
		p_err("the recorder of '%s' was stopped by %s before the traced processes ended; the trace is incomplete",
		      tf->abspath, ktr_signal_name(st.signal, sig, sizeof(sig)) ?: "a signal");
		return -EINTR;
	}
	return report_losses(&st, tf->abspath);
}

/*
 * The command is gone. If nothing else is traced, the recorder drains the
 * ring and exits: wait for that so the file is complete when ktrace
 * returns. Inherited children still running keep it (and us) going no
 * further: they are traced in the background, as with BSD's ktrace.
 * 0, or -errno once the reason the trace is incomplete was printed.
 */
static int wait_recorder_idle(const struct trfile *tf)
{
	int ret = wait_recorder(tf->state_fd, tf->abspath, tf->st.map_id);

	if (ret == 1)
		return 0;
	if (ret == -ETIMEDOUT) {
		p_err("the recorder for '%s' stopped writing for %d s; the trace may be incomplete",
		      tf->abspath, STALL_TIMEOUT_MS / 1000);
		return ret;
	}
	return check_recorder_end(tf);
}

/* The command's wait status, or -errno. */
static int wait_command(pid_t child)
{
	struct sigaction ign = { .sa_handler = SIG_IGN }, old_int, old_quit;
	int status = 0;
	pid_t r;

	/* Like system(3): the terminal's ^C is for the command. */
	sigemptyset(&ign.sa_mask);
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);
	do {
		r = waitpid(child, &status, 0);
	} while (r < 0 && errno == EINTR);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	if (r < 0) {
		p_err("cannot wait for the command: %s", strerror(errno));
		return -errno;
	}
	return status;
}

/* As a shell reports it: the exit status, or 128 + the signal. */
static int exit_status_of(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return EXIT_SIGNALED + WTERMSIG(status);
	return EXIT_KTRACE_FAILED;
}

/* Start the command under a recorder: its pid, or -errno. */
static pid_t start_command(struct ktrace_args *a, struct trfile *tf)
{
	struct ktr_initial_target t;
	int sync[2], err;
	pid_t child;

	if (pipe2(sync, O_CLOEXEC)) {
		err = -errno;
		p_err("cannot run '%s': %s", a->cmd[0], strerror(-err));
		return err;
	}
	fflush(NULL);
	child = fork();
	if (child == 0) {
		close(sync[1]);
		run_command(a->cmd, sync[0]);
	}
	close(sync[0]);
	if (child < 0) {
		err = -errno;
		close(sync[1]);
		p_err("cannot run '%s': %s", a->cmd[0], strerror(-err));
		return err;
	}
	t.pid = child;
	t.t = target_value(a, true);
	err = start_or_join(a, tf, &t, 1);
	if (!err && write(sync[1], "g", 1) != 1)
		err = -errno;
	close(sync[1]); /* on failure the child sees EOF and exits */
	if (err) {
		waitpid(child, NULL, 0);
		return err;
	}
	return child;
}

/* The command's exit status, or EXIT_KTRACE_FAILED. */
static int do_trace_command(struct ktrace_args *a)
{
	int ret = EXIT_KTRACE_FAILED, status;
	struct trfile tf;
	pid_t child;

	if (!trfile_open(&tf, a->trfile, true, a->append) && (child = start_command(a, &tf)) > 0) {
		status = wait_command(child);
		if (status >= 0 && !wait_recorder_idle(&tf))
			ret = exit_status_of(status);
	}
	trfile_close(&tf);
	return ret;
}

/*
 * SIGTERM a recorder and wait until it has drained and let go; *ctx, an
 * int, becomes an error when the file misses records.
 */
static int stop_recorder(const char *path, const struct ktr_state *st, void *ctx)
{
	struct ktr_state end;
	int *err = ctx;
	bool locked;
	int fd;

	fd = ktr_state_open(path, false, &locked);
	if (fd < 0 || locked) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	if (kill(st->pid, SIGTERM) && errno != ESRCH) {
		p_err("cannot stop recorder %d for '%s': %s", (int)st->pid, st->trfile,
		      strerror(errno));
		close(fd);
		return 0;
	}
	if (wait_recorder(fd, st->trfile, 0))
		p_warn("recorder %d for '%s' stopped writing without exiting", (int)st->pid,
		       st->trfile);
	else if (!ktr_state_read(fd, &end) && report_losses(&end, end.trfile))
		*err = -EIO;
	close(fd);
	return 0;
}

static int do_clear_file(const struct ktrace_args *a)
{
	struct trfile tf;
	int err;

	err = trfile_open(&tf, a->trfile, false, true);
	if (!err && tf.locked) {
		p_err("no recorder is writing '%s'", a->trfile);
		unlink(tf.state_path);
		err = -ESRCH;
	}
	if (!err)
		stop_recorder(tf.state_path, &tf.st, &err);
	trfile_close(&tf);
	return err;
}

static int do_clear(struct ktrace_args *a)
{
	struct detach_ctx d = { 0 };
	int err;

	if (a->clear_all) {
		err = 0;
		return ktr_state_for_each(stop_recorder, &err) ?: err;
	}
	if (!a->pids.n && !a->nr_pgids)
		return do_clear_file(a);
	err = collect_procs(a);
	if (err)
		return err;
	d.pids = a->pids.pids;
	d.n = a->pids.n;
	return ktr_state_for_each(detach_from, &d);
}

int cmd_ktrace(struct env *env, int argc, char **argv)
{
	struct ktrace_args a = { 0 };
	int ret;

	(void)env; /* ktrace has its own options; -d is util_debug() */
	ret = parse_ktrace_args(&a, argc, argv);
	if (ret) {
		ktr_pidset_free(&a.pids);
		return ret > 0 ? 0 : 1; /* -h, or a bad command line */
	}
	/* Checked before the trace file is created. */
	if (geteuid() != 0) {
		p_err("ktrace needs root: it loads BPF programs and keeps its state in %s",
		      KTR_STATE_DIR);
		ret = -EPERM;
	} else if (a.clear || a.clear_all) {
		ret = do_clear(&a);
	} else if (a.cmd) {
		ret = do_trace_command(&a);
	} else {
		ret = do_trace_procs(&a);
	}
	ktr_pidset_free(&a.pids);
	/* The exit status: a command's own (125 for ktrace's failure), else 0 or 1. */
	if (ret < 0)
		return a.cmd ? EXIT_KTRACE_FAILED : 1;
	return ret;
}
