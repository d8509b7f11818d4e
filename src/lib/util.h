/* SPDX-License-Identifier: GPL-2.0 */
/* Error reporting, number parsing and a growable string buffer. */
#ifndef KSNOOP_UTIL_H
#define KSNOOP_UTIL_H

#include <stdarg.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#ifndef min
#define min(a, b) ((a) < (b) ? (a) : (b))
#endif
#ifndef max
#define max(a, b) ((a) > (b) ? (a) : (b))
#endif

/*
 * One line on stderr, "Error: ...". Never exits: callers unwind. Every
 * byte of the message outside printable ASCII (ESC, newline, UTF-8) is
 * shown as '?', so input quoted in it is safe to print.
 */
void p_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void p_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Printed only when debug output is enabled, "debug: ...", escaped alike. */
void p_dbg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void util_set_debug(bool on);
/* libbpf's own debug messages too (-dd), beside its warnings. */
void util_set_libbpf_debug(bool on);
/* While muted, p_err and p_warn print only with debug output on, as debug lines. */
void util_mute(bool on);
bool util_debug(void);
/* JSON mode (-j): commands print JSON, and p_err {"error": "..."} on stderr. */
void util_set_json(bool on);
bool util_json(void);
/*
 * Errors and warnings say where in a file their input came from
 * ("serve.conf:12: ..."), until util_set_where(NULL, 0).
 */
void util_set_where(const char *file, int line);
/* Send libbpf's own messages through p_dbg: shown only with -d. */
void util_route_libbpf_print(void);

/*
 * User input in messages: s, or a copy in buf of its first CLIP_MAX bytes
 * and "..." when it is longer. (p_err and p_warn make the bytes safe.)
 */
#define CLIP_MAX 64
#define CLIP_BUF (CLIP_MAX + 4)
const char *str_clip(const char *s, char buf[CLIP_BUF]);

/*
 * A string's bytes in text output, s[0..max) or to its NUL, as C writes
 * them: '"', '\\' and newline escaped, any other control or byte outside
 * printable ASCII as \xNN, so that no value reaches a terminal as one of
 * its controls. c_escaped_len: the length fput_c_escaped writes.
 */
void fput_c_escaped(FILE *f, const char *s, size_t max);
size_t c_escaped_len(const char *s, size_t max);

/*
 * SIGINT, SIGTERM and SIGHUP: stop_signal is the last one caught, and
 * stop_count how many have been (a second one means "now").
 */
extern volatile sig_atomic_t stop_signal;
extern volatile sig_atomic_t stop_count;
int setup_stop_signals(void);
void raise_fd_limit(void);
/*
 * Flush f, stdout or the file path (-o). A reader that went away from
 * stdout (| head) ends output quietly: 1, and 1 for every later flush of
 * stdout. Any other failure, such as a full disk, loses output: one error
 * line (once per run, whichever output failed) and -errno.
 */
int flush_output(FILE *f, const char *path);
/* The same, then fclose f unless it is stdout, where a failed close is an error too. */
int close_output(FILE *f, const char *path);
int flush_stdout(void);
/* Stdout's reader went away: whoever prints to it can stop. */
bool stdout_closed(void);
/* flush_stdout at exit, where a failed close(2) is an error too. */
int finish_stdout(void);
/* Root's private run-time directory: ktrace's state files, symbol copies. */
#define KSNOOP_RUN_DIR "/run/ksnoop"
/*
 * Make dir (mode 0700) unless it exists. 0 when it is a directory of this
 * user's that nobody else may write to, else -errno (-EPERM).
 */
int private_dir(const char *dir);
/*
 * When a failure with err (sign ignored) comes from the process being out
 * of something of its own, memory (ENOMEM; ESRCH, libbpf's "not found",
 * once the address space under ulimit -v is nearly used up) or file
 * descriptors (EMFILE, ENFILE): one phrase naming it and what to do.
 * NULL otherwise: the error is about what was asked for. Messages that
 * would blame the kernel, a function or a file ask this first.
 */
const char *err_resource(int err);
/* err_resource's phrase, else strerror's. */
const char *err_text(int err);
/* "Error: DOING: out of memory ...", and -ENOMEM: for a failed allocation. */
int p_err_nomem(const char *doing);
/*
 * The number after field ("MemAvailable:") in a /proc file of "field
 * value kB" lines, read into a stack buffer (no allocation, so it serves
 * out of memory too); 0 when the file or the field cannot be read.
 */
unsigned long long proc_kb(const char *path, const char *field);
/* Nanoseconds on clock id. */
long long clock_ns(clockid_t id);
/* Strict decimal parse of the whole string into [min, max]; "010" is 10. */
int parse_long(const char *s, long long min, long long max, long long *out);

/* "500ns", "20us", "5ms", "1s" or a plain number of ns. */
int parse_duration_ns(const char *s, unsigned long long *out);

struct strbuf {
	char *buf;
	size_t len;
	size_t cap;
	bool oom;
};

void sb_init(struct strbuf *sb);
void sb_free(struct strbuf *sb);
void sb_reset(struct strbuf *sb);
void sb_vprintf(struct strbuf *sb, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
void sb_printf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_putc(struct strbuf *sb, char c);
void sb_write(struct strbuf *sb, const void *data, size_t len);
/* Returns a NUL-terminated string, "" on an empty or failed buffer. */
const char *sb_str(const struct strbuf *sb);
/* The text as a string of its own, and sb freed; NULL when out of memory. */
char *sb_take(struct strbuf *sb);
/*
 * "3 ring buffer full, 1 key table full": the nonzero of n counts, with
 * their names, appended to sb (comma-separated from any text in it).
 * Returns the sum of all n.
 */
unsigned long long sb_counts(struct strbuf *sb, const uint64_t *counts, const char *const *names,
			     int n);

/*
 * Make room for one more element in a doubling array: *arr holds *nr of
 * *cap elements of elem_size. Returns false (array untouched) when out of
 * memory.
 */
bool grow_array(void *arr, size_t *cap, size_t nr, size_t elem_size, size_t first_cap);

/*
 * A list of names: push one (NULL: out of memory, the list freed), and
 * sort it, each name once (returns how many are left).
 */
const char **names_push(const char **names, size_t *cap, size_t n, const char *name);
size_t names_sort_unique(const char **names, size_t n);
/* An array of n strings, each freed (NULL ones too), then the array. */
void strs_free(char **strs, int n);

/* Edit distance, capped: returns cap+1 as soon as it is exceeded. */
int edit_distance(const char *a, const char *b, int cap);
/*
 * The farthest a name may be from one asked for and still be offered as
 * "did you mean": a third of its length, 1 to 4 edits.
 */
int suggest_max_distance(const char *name);

#endif
