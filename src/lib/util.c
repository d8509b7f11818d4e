// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "lib/json_writer.h"
#include "lib/util.h"

/* Process-wide: p_err and friends have no context to carry them. */
static bool debug_on;
static bool libbpf_debug_on;
static bool json_mode;
static bool muted;

void util_mute(bool on)
{
	muted = on;
}

void util_set_debug(bool on)
{
	debug_on = on;
}

void util_set_libbpf_debug(bool on)
{
	libbpf_debug_on = on;
}

bool util_debug(void)
{
	return debug_on;
}

void util_set_json(bool on)
{
	json_mode = on;
}

bool util_json(void)
{
	return json_mode;
}

static int __attribute__((format(printf, 2, 0)))
libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	/*
	 * libbpf's debug level narrates every relocation: some 23,000 lines
	 * an object, which under emulation, an object a function, took -d
	 * from seconds to many minutes. Its warnings (a verifier log among
	 * them) are what -d is for.
	 */
	if (!debug_on || (level == LIBBPF_DEBUG && !libbpf_debug_on))
		return 0;
	/* libbpf's messages carry their own "libbpf: " prefix and newline. */
	return vfprintf(stderr, fmt, ap);
}

void util_route_libbpf_print(void)
{
	libbpf_set_print(libbpf_print);
}

const char *str_clip(const char *s, char buf[CLIP_BUF])
{
	size_t n = strnlen(s, CLIP_MAX + 1);

	if (n <= CLIP_MAX)
		return s;
	memcpy(buf, s, CLIP_MAX);
	strcpy(buf + CLIP_MAX, "...");
	return buf;
}

/*
 * Messages quote user input (specs, paths, options): a byte a terminal
 * could take as a control, or any byte outside printable ASCII, is shown
 * as '?', so no message can move the cursor, recolour or retitle it.
 */
static void make_printable(struct strbuf *sb)
{
	size_t i;

	for (i = 0; sb->buf && !sb->oom && i < sb->len; i++) {
		if (!isprint((unsigned char)sb->buf[i]))
			sb->buf[i] = '?';
	}
}

/*
 * An error or a warning is one line a person reads, whatever the length of
 * the input it quotes (a 100 KB path): past this, it ends in "...".
 */
#define REPORT_MAX 280

static void clip_report(struct strbuf *sb)
{
	if (sb->len <= REPORT_MAX || sb->oom)
		return;
	sb->len = REPORT_MAX - 3;
	sb_write(sb, "...", 3);
}

static char where[CLIP_BUF + 16];

void util_set_where(const char *file, int line)
{
	char clip[CLIP_BUF];

	if (!file)
		where[0] = '\0';
	else
		snprintf(where, sizeof(where), "%s:%d: ", str_clip(file, clip), line);
}

static void __attribute__((format(printf, 3, 0)))
report(const char *prefix, bool json, const char *fmt, va_list ap)
{
	struct strbuf sb, quoted;

	if (muted && !debug_on)
		return;
	/* What a caller muted is not the user's error: -d shows it as its own. */
	if (muted) {
		prefix = "debug";
		json = false;
	}
	sb_init(&sb);
	if (prefix[0] != 'd')
		sb_printf(&sb, "%s", where);
	sb_vprintf(&sb, fmt, ap);
	make_printable(&sb);
	if (prefix[0] != 'd')
		clip_report(&sb);
	if (json) {
		sb_init(&quoted);
		jw_escape(&quoted, sb_str(&sb), sb.len);
		fprintf(stderr, "{\"%s\": %s}\n", prefix[0] == 'E' ? "error" : "warning",
			sb_str(&quoted));
		sb_free(&quoted);
	} else {
		fprintf(stderr, "%s: %s\n", prefix, sb_str(&sb));
	}
	sb_free(&sb);
}

void p_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report("Error", json_mode, fmt, ap);
	va_end(ap);
}

void p_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report("Warning", json_mode, fmt, ap);
	va_end(ap);
}

void p_dbg(const char *fmt, ...)
{
	va_list ap;

	if (!debug_on)
		return;
	va_start(ap, fmt);
	report("debug", false, fmt, ap);
	va_end(ap);
}

/* How byte c shows in text output, in out (not NUL-terminated); returns its length. */
static size_t c_escape_byte(unsigned char c, char out[4])
{
	static const char hex[] = "0123456789abcdef";

	if (c == '"' || c == '\\' || c == '\n') {
		out[0] = '\\';
		out[1] = c == '\n' ? 'n' : c;
		return 2;
	}
	if (c < 0x20 || c >= 0x7f) {
		out[0] = '\\';
		out[1] = 'x';
		out[2] = hex[c >> 4];
		out[3] = hex[c & 0xf];
		return 4;
	}
	out[0] = c;
	return 1;
}

void fput_c_escaped(FILE *f, const char *s, size_t max)
{
	char out[4];
	size_t i;

	for (i = 0; i < max && s[i]; i++)
		fwrite(out, 1, c_escape_byte(s[i], out), f);
}

size_t c_escaped_len(const char *s, size_t max)
{
	size_t i, len = 0;
	char out[4];

	for (i = 0; i < max && s[i]; i++)
		len += c_escape_byte(s[i], out);
	return len;
}

volatile sig_atomic_t stop_signal;
volatile sig_atomic_t stop_count;

static void on_stop_signal(int sig)
{
	stop_signal = sig;
	if (stop_count < 2)
		stop_count++;
}

/*
 * SIGINT, SIGTERM and SIGHUP set stop_signal, so a trace loop detaches and
 * reports before it exits; a closed pipe shows as EPIPE (flush_output).
 */
int setup_stop_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	/*
	 * SA_RESTART: a stop that lands while a write to a slow reader (a pipe,
	 * a serial console) waits must not fail it with EINTR and lose the
	 * line; every wait that must end on a stop (poll, epoll_wait,
	 * nanosleep) returns EINTR anyway, and the reads retry it.
	 */
	struct sigaction sa = { .sa_handler = on_stop_signal, .sa_flags = SA_RESTART };
	size_t i;

	sigemptyset(&sa.sa_mask);
	for (i = 0; i < ARRAY_SIZE(sigs); i++) {
		if (sigaction(sigs[i], &sa, NULL))
			return -errno;
	}
	signal(SIGPIPE, SIG_IGN);
	return 0;
}

/*
 * Each traced function holds a program and a link per direction: the
 * default soft limit of 1024 descriptors stops a trace of a few hundred
 * functions that the hard limit allows.
 */
void raise_fd_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur >= rl.rlim_max)
		return;
	rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		p_dbg("cannot raise the open file limit: %s", strerror(errno));
}

unsigned long long proc_kb(const char *path, const char *field)
{
	char buf[4096], *at;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	at = strstr(buf, field);
	return at ? strtoull(at + strlen(field), NULL, 10) : 0;
}

/* What a BTF or an object file's allocation may ask for at once. */
#define ADDRESS_SPACE_MARGIN (16ULL << 20)

/*
 * Whether the address space left under RLIMIT_AS (ulimit -v) is less than
 * a large allocation needs. libbpf reports a target it could not look up
 * as ESRCH ("not in BTF") even where the look-up failed for memory.
 */
static bool address_space_short(void)
{
	unsigned long long vm;
	struct rlimit rl;

	if (getrlimit(RLIMIT_AS, &rl) || rl.rlim_cur == RLIM_INFINITY)
		return false;
	vm = proc_kb("/proc/self/status", "VmSize:");
	return vm && vm * 1024 + ADDRESS_SPACE_MARGIN > rl.rlim_cur;
}

const char *err_resource(int err)
{
	err = abs(err);
	if (err == ENOMEM || (err == ESRCH && address_space_short()))
		return "out of memory (ENOMEM): free memory, or raise the limit of ulimit -v";
	if (err == EMFILE)
		return "too many open files (EMFILE): raise the limit with ulimit -n";
	if (err == ENFILE)
		return "the system's table of open files is full (ENFILE): raise fs.file-max";
	return NULL;
}

const char *err_text(int err)
{
	const char *why = err_resource(err);

	return why ? why : strerror(abs(err));
}

int p_err_nomem(const char *doing)
{
	p_err("%s: %s", doing, err_text(ENOMEM));
	return -ENOMEM;
}

long long clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Said once: a trace that failed to write must not say so again at exit. */
static int output_error;
/* Stdout's reader went away: every later flush of it ends quietly too. */
static bool stdout_gone;

/*
 * A write inside printf that failed left only the error flag, no errno:
 * a pipe or socket without a reader polls as an error (EPIPE), and a full
 * file system is the usual reason a file's write fails.
 */
static int lost_errno(FILE *f)
{
	struct pollfd p = { .fd = fileno(f), .events = POLLOUT };
	struct statvfs st;

	if (poll(&p, 1, 0) == 1 && (p.revents & (POLLERR | POLLHUP)))
		return EPIPE;
	return !fstatvfs(fileno(f), &st) && !st.f_bavail ? ENOSPC : 0;
}

/*
 * 1 for stdout's EPIPE, then and ever after (its error flag stays set,
 * and a later flush of nothing fails without an errno); else -e after one
 * error line naming path, or the output for stdout (-EIO when e is 0).
 */
static int output_failed(bool is_stdout, const char *path, int e)
{
	char clip[CLIP_BUF];

	if (is_stdout && (e == EPIPE || stdout_gone)) {
		stdout_gone = true;
		return 1;
	}
	if (output_error)
		return output_error;
	/* An earlier write failed and nothing is left to retry: no errno. */
	if (is_stdout && !e)
		p_err("writing the output failed");
	else if (is_stdout)
		p_err("writing the output: %s", strerror(e));
	else if (!e)
		p_err("writing '%s' failed", str_clip(path, clip));
	else
		p_err("writing '%s': %s", str_clip(path, clip), strerror(e));
	output_error = e ? -e : -EIO;
	return output_error;
}

int flush_output(FILE *f, const char *path)
{
	errno = 0;
	if (!fflush(f) && !ferror(f))
		return 0;
	return output_failed(f == stdout, path, errno ?: lost_errno(f));
}

int close_output(FILE *f, const char *path)
{
	int err = flush_output(f, path);

	if (f == stdout)
		return err;
	/* close(2) reports what write(2) may not (NFS writes back at close) */
	errno = 0;
	if (fclose(f) && !err)
		err = output_failed(false, path, errno);
	return err;
}

int flush_stdout(void)
{
	return flush_output(stdout, NULL);
}

bool stdout_closed(void)
{
	return stdout_gone;
}

int finish_stdout(void)
{
	int err = flush_stdout(), fd;

	if (err)
		return err;
	/*
	 * As close_output, but a copy is closed, so stdout stays open for
	 * whoever runs us again (the unit tests); no copy is a closed stdout
	 * nothing was written to.
	 */
	fd = dup(STDOUT_FILENO);
	if (fd >= 0 && close(fd))
		return output_failed(true, NULL, errno);
	return 0;
}

int parse_long(const char *s, long long min, long long max, long long *out)
{
	char *end;
	long long v;

	/* strtoll would skip leading blanks */
	if (!s || !*s || isspace((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	/* Decimal: "010" is ten, as a user reads it, never octal eight. */
	v = strtoll(s, &end, 10);
	if (errno == ERANGE || v < min || v > max)
		return -ERANGE;
	if (*end)
		return -EINVAL;
	*out = v;
	return 0;
}

int parse_duration_ns(const char *s, unsigned long long *out)
{
	static const struct {
		const char *suffix;
		unsigned long long mult;
	} units[] = {
		{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 }, { "", 1 }
	};
	unsigned long long v;
	char *end;
	size_t i;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -ERANGE;
	for (i = 0; i < ARRAY_SIZE(units); i++) {
		if (strcmp(end, units[i].suffix))
			continue;
		if (v > ~0ULL / units[i].mult)
			return -ERANGE;
		*out = v * units[i].mult;
		return 0;
	}
	return -EINVAL;
}

void sb_init(struct strbuf *sb)
{
	memset(sb, 0, sizeof(*sb));
}

void sb_free(struct strbuf *sb)
{
	free(sb->buf);
	sb_init(sb);
}

void sb_reset(struct strbuf *sb)
{
	sb->len = 0;
	if (sb->buf)
		sb->buf[0] = '\0';
}

static bool sb_grow(struct strbuf *sb, size_t extra)
{
	size_t need = sb->len + extra + 1;
	size_t cap = sb->cap ? sb->cap : 64;
	char *nb;

	if (sb->oom)
		return false;
	if (need <= sb->cap)
		return true;
	while (cap < need)
		cap *= 2;
	nb = realloc(sb->buf, cap);
	if (!nb) {
		sb->oom = true;
		return false;
	}
	sb->buf = nb;
	sb->cap = cap;
	return true;
}

/* One formatting pass when the result fits, which is nearly always. */
void sb_vprintf(struct strbuf *sb, const char *fmt, va_list ap)
{
	size_t room;
	va_list aq;
	int n;

	if (!sb_grow(sb, 64))
		return;
	room = sb->cap - sb->len;
	va_copy(aq, ap);
	n = vsnprintf(sb->buf + sb->len, room, fmt, aq);
	va_end(aq);
	if (n < 0) {
		sb->buf[sb->len] = '\0';
		return;
	}
	if ((size_t)n >= room) {
		if (!sb_grow(sb, n))
			return;
		vsnprintf(sb->buf + sb->len, n + 1, fmt, ap);
	}
	sb->len += n;
}

void sb_printf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sb_vprintf(sb, fmt, ap);
	va_end(ap);
}

void sb_write(struct strbuf *sb, const void *data, size_t len)
{
	if (!sb_grow(sb, len))
		return;
	memcpy(sb->buf + sb->len, data, len);
	sb->len += len;
	sb->buf[sb->len] = '\0';
}

char *sb_take(struct strbuf *sb)
{
	char *s = sb->oom ? NULL : strdup(sb_str(sb));

	sb_free(sb);
	return s;
}

unsigned long long sb_counts(struct strbuf *sb, const uint64_t *counts, const char *const *names,
			     int n)
{
	unsigned long long total = 0;
	int i;

	for (i = 0; i < n; i++) {
		total += counts[i];
		if (counts[i])
			sb_printf(sb, "%s%llu %s", sb->len ? ", " : "",
				  (unsigned long long)counts[i], names[i]);
	}
	return total;
}

void sb_putc(struct strbuf *sb, char c)
{
	sb_write(sb, &c, 1);
}

const char *sb_str(const struct strbuf *sb)
{
	return sb->buf && !sb->oom ? sb->buf : "";
}

bool grow_array(void *arr, size_t *cap, size_t nr, size_t elem_size, size_t first_cap)
{
	void **slot = arr;
	size_t ncap;
	void *na;

	if (nr < *cap)
		return true;
	ncap = *cap ? *cap * 2 : first_cap;
	na = realloc(*slot, ncap * elem_size);
	if (!na)
		return false;
	*slot = na;
	*cap = ncap;
	return true;
}

const char **names_push(const char **names, size_t *cap, size_t n, const char *name)
{
	if (!grow_array(&names, cap, n, sizeof(*names), 64)) {
		free(names);
		return NULL;
	}
	names[n] = name;
	return names;
}

void strs_free(char **strs, int n)
{
	int i;

	for (i = 0; strs && i < n; i++)
		free(strs[i]);
	free(strs);
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

size_t names_sort_unique(const char **names, size_t n)
{
	size_t i, kept = 0;

	if (!n)
		return 0;
	qsort(names, n, sizeof(*names), cmp_names);
	for (i = 0; i < n; i++) {
		if (!kept || strcmp(names[kept - 1], names[i]))
			names[kept++] = names[i];
	}
	return kept;
}

int edit_distance(const char *a, const char *b, int cap)
{
	size_t la = strlen(a), lb = strlen(b), i, j;
	int *row, best, res;

	if ((size_t)abs((int)(la - lb)) > (size_t)cap || la > 256 || lb > 256)
		return cap + 1;
	row = malloc((lb + 1) * sizeof(*row));
	if (!row)
		return cap + 1;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		int diag = row[0];

		row[0] = i;
		best = row[0];
		for (j = 1; j <= lb; j++) {
			int up = row[j], v = diag + (a[i - 1] != b[j - 1]);

			if (up + 1 < v)
				v = up + 1;
			if (row[j - 1] + 1 < v)
				v = row[j - 1] + 1;
			diag = up;
			row[j] = v;
			if (v < best)
				best = v;
		}
		if (best > cap) {
			free(row);
			return cap + 1;
		}
	}
	res = row[lb];
	free(row);
	return res > cap ? cap + 1 : res;
}

int suggest_max_distance(const char *name)
{
	size_t cap = strlen(name) / 3 + 1;

	return cap > 4 ? 4 : cap;
}

int private_dir(const char *dir)
{
	struct stat st;

	if (mkdir(dir, 0700) && errno != EEXIST)
		return -errno;
	if (lstat(dir, &st))
		return -errno;
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 022))
		return -EPERM;
	return 0;
}
