/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Progress of long work, such as attaching hundreds of functions, as one
 * line on stderr ("\rattaching 312/500 functions") rewritten at most every
 * PROGRESS_INTERVAL_NS, and cleared when the work is done. Only a terminal
 * gets it: a log or a pipe gets nothing. Every call takes NULL, which is
 * what a non-terminal gets.
 */
#ifndef KSNOOP_PROGRESS_H
#define KSNOOP_PROGRESS_H

#include <stdbool.h>
#include <stdio.h>

#define PROGRESS_INTERVAL_NS 100000000LL

struct progress;

/*
 * total steps of "what" ("functions"), shown on stderr if it is a terminal
 * and debug output, which would interleave with it, is off.
 */
struct progress *progress__new(int total, const char *verb, const char *what);
/* The same on out, is_tty telling whether it is a terminal, timed by now_ns. */
struct progress *progress__new_to(FILE *out, bool is_tty, long long (*now_ns)(void), int total,
				  const char *verb, const char *what);
/* One more step done. */
void progress__step(struct progress *p);
/* Erase the line if one is shown, as before printing an error. */
void progress__clear(struct progress *p);
/* Clear the line if one is shown, and free p. */
void progress__done(struct progress *p);

#endif
