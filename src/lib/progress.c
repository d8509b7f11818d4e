// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "lib/progress.h"
#include "lib/util.h"

struct progress {
	FILE *out;
	long long (*now_ns)(void);
	long long last_ns; /* when the line was last written, or created */
	int done, total;
	const char *verb, *what;
	bool shown; /* the line is on the terminal and needs clearing */
};

static long long monotonic_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

struct progress *progress__new_to(FILE *out, bool is_tty, long long (*now_ns)(void), int total,
				  const char *verb, const char *what)
{
	struct progress *p;

	if (!is_tty)
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL; /* no progress line is no reason to fail */
	p->out = out;
	p->now_ns = now_ns;
	p->last_ns = now_ns();
	p->total = total;
	p->verb = verb;
	p->what = what;
	return p;
}

struct progress *progress__new(int total, const char *verb, const char *what)
{
	return progress__new_to(stderr, isatty(STDERR_FILENO) && !util_debug(), monotonic_ns, total,
				verb, what);
}

void progress__step(struct progress *p)
{
	long long now;

	if (!p)
		return;
	p->done++;
	now = p->now_ns();
	/* Work that ends within one interval never shows a line at all. */
	if (now - p->last_ns < PROGRESS_INTERVAL_NS)
		return;
	p->last_ns = now;
	p->shown = true;
	fprintf(p->out, "\r%s %d/%d %s", p->verb, p->done, p->total, p->what);
	fflush(p->out);
}

void progress__clear(struct progress *p)
{
	if (!p || !p->shown)
		return;
	/* ESC[K erases to the end of the line: the next line starts clean. */
	fputs("\r\033[K", p->out);
	fflush(p->out);
	p->shown = false;
}

void progress__done(struct progress *p)
{
	progress__clear(p);
	free(p);
}
