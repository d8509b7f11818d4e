// SPDX-License-Identifier: GPL-2.0
/*
 * fmtbench: the consumer side alone, on any machine. Builds the plans for
 * the given specs from a BTF file (e.g. a Debian vmlinux from the kernel
 * cache), makes one synthetic entry and one return event per function
 * from the plan (data bytes 0x11), and formats them N times to /dev/null
 * through output.c. Prints events per second of CPU time.
 *
 *   fmtbench [-j] BTF N SPEC...
 *
 * A profiler (valgrind --tool=callgrind) on this shows where formatting
 * time goes without a VM or a BPF-capable kernel.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "env.h"
#include "lib/kbtf.h"
#include "trace/output.h"
#include "trace/plan.h"
#include "trace/spec.h"

static size_t make_event(const struct func_plan *p, int id, bool entry, struct ksnoop_event *ev)
{
	__u32 i, off = 0;

	memset(ev, 0, KSNOOP_EVENT_HDR_SIZE);
	ev->kind = entry ? KSNOOP_EV_ENTRY : KSNOOP_EV_RETURN;
	ev->func_id = id;
	ev->ts = 123456789012ULL;
	ev->pid = ev->tgid = 4242;
	strcpy(ev->comm, "fmtbench");
	for (i = 0; i < p->cfg.nr_values; i++) {
		const struct ksnoop_value *v = &p->cfg.values[i];
		struct ksnoop_vrec *vr = (void *)&ev->data[off];
		__u32 len = 0;

		if (!!(v->flags & KSNOOP_V_ENTRY) != entry)
			continue;
		if (v->flags & KSNOOP_V_READ)
			len = v->size > KSNOOP_VALUE_MAX ? KSNOOP_VALUE_MAX : v->size;
		vr->raw = 0xffff888001234560ULL;
		vr->len = len;
		vr->idx = i;
		memset(vr + 1, 0x11, len);
		if (v->flags & KSNOOP_V_STRING && len)
			((char *)(vr + 1))[len - 1] = 0;
		off += sizeof(*vr) + ((len + 7) & ~7U);
		ev->nr_vrecs++;
	}
	ev->data_len = off;
	return KSNOOP_EVENT_HDR_SIZE + off;
}

int main(int argc, char **argv)
{
	struct env env = { .pages = KSNOOP_DEFAULT_PAGES, .cpu = -1 };
	struct plan_opts popts = { 0 };
	struct func_plan *plans;
	struct ksnoop_event **evs;
	size_t *lens;
	struct output *o;
	struct kbtf *kb;
	struct timespec t0, t1;
	long n, k;
	int i, nr, err = 0;
	FILE *out;

	if (argc > 1 && !strcmp(argv[1], "-j")) {
		env.json = true;
		argc--;
		argv++;
	}
	if (argc < 4) {
		fputs("usage: fmtbench [-j] BTF N SPEC...\n", stderr);
		return 2;
	}
	n = strtol(argv[2], NULL, 10);
	nr = argc - 3;
	kb = kbtf__new(argv[1], &err);
	plans = calloc(nr, sizeof(*plans));
	evs = calloc(2 * nr, sizeof(*evs));
	lens = calloc(2 * nr, sizeof(*lens));
	out = fopen("/dev/null", "w");
	if (!kb || !plans || !evs || !lens || !out) {
		fprintf(stderr, "fmtbench: cannot open %s (%d)\n", argv[1], err);
		return 1;
	}
	setvbuf(out, NULL, _IOFBF, 1 << 16);
	for (i = 0; i < nr; i++) {
		struct spec_error serr;
		struct spec spec;

		if (spec_parse(argv[3 + i], &spec, &serr) ||
		    plan_build(kb, &spec, &popts, &plans[i])) {
			fprintf(stderr, "fmtbench: bad spec %s\n", argv[3 + i]);
			return 1;
		}
		spec_free(&spec);
		evs[2 * i] = malloc(sizeof(struct ksnoop_event));
		evs[2 * i + 1] = malloc(sizeof(struct ksnoop_event));
		if (!evs[2 * i] || !evs[2 * i + 1])
			return 1;
		lens[2 * i] = make_event(&plans[i], i, true, evs[2 * i]);
		lens[2 * i + 1] = make_event(&plans[i], i, false, evs[2 * i + 1]);
	}
	o = output__new(&env, plans, nr, out, NULL);
	if (!o)
		return 1;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
	for (k = 0; k < n; k++) {
		for (i = 0; i < nr; i++) {
			int e = 2 * i + k % 2;

			output__event(o, evs[e], lens[e]);
		}
	}
	fflush(out);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
	printf("%ld events in %.3f s CPU: %.0f events/s\n", n * nr,
	       (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9,
	       n * nr / ((t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9));
	output__free(o);
	for (i = 0; i < nr; i++)
		plan_free(&plans[i]);
	kbtf__free(kb);
	return 0;
}
