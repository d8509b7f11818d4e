// SPDX-License-Identifier: GPL-2.0
/*
 * Each process gets a Dwfl of its own, its modules reported from
 * /proc/PID/maps and its "thread" state attached once: libdwfl asks the
 * callbacks below for the registers and the stack each time it unwinds,
 * and they answer from the sample at hand. The objects' ELF and CFI are
 * opened on first use and kept with the Dwfl.
 */
#include <elfutils/libdwfl.h>
#include <dwarf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/arch.h"
#include "lib/archinfo.h"
#include "lib/uunwind.h"
#include "lib/util.h"

/* An address no module covers reads the maps again, at most this often. */
#define REPORT_EVERY_NS 1000000000ULL

struct uproc {
	pid_t pid;
	Dwfl *dwfl;			/* NULL: its maps could not be read */
	unsigned long long reported_ns; /* CLOCK_MONOTONIC */
	unsigned long used;		/* u->tick when last used */
};

struct uunwind {
	struct uproc procs[UUNWIND_MAX_PIDS];
	int nr;
	int last; /* the entry found last: events come in runs from one process */
	unsigned long tick;
	const struct arch *arch;
	/* The sample being unwound, and where its frames go. */
	const struct uunwind_sample *s;
	unsigned long long *ips;
	int n, max;
};

static char *debuginfo_path;

static const Dwfl_Callbacks proc_callbacks = {
	.find_elf = dwfl_linux_proc_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.debuginfo_path = &debuginfo_path,
};

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_arg)
{
	(void)dwfl;
	if (*thread_arg)
		return 0;
	*thread_arg = arg;
	return dwfl_pid(dwfl);
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_arg)
{
	(void)dwfl;
	(void)tid;
	*thread_arg = arg;
	return true;
}

/* Stack words come from the copy; anything else is unknown. */
static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	const struct uunwind_sample *s = ((struct uunwind *)arg)->s;

	(void)dwfl;
	if (addr < s->sp || s->stack_len < sizeof(*result) ||
	    addr - s->sp > s->stack_len - sizeof(*result))
		return false;
	memcpy(result, (const char *)s->stack + (addr - s->sp), sizeof(*result));
	return true;
}

static unsigned long long reg_slot(const struct uunwind_sample *s, int slot)
{
	unsigned long long v;

	memcpy(&v, (const char *)s->regs + 8 * slot, sizeof(v));
	return v;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	const struct uunwind *u = arg;
	Dwarf_Word regs[ARRAY_SIZE(u->arch->dwarf_slots)];
	int i;

	for (i = 0; i < u->arch->nr_dwarf; i++)
		regs[i] = reg_slot(u->s, u->arch->dwarf_slots[i]);
	if (!dwfl_thread_state_registers(thread, 0, u->arch->nr_dwarf, regs))
		return false;
	dwfl_thread_state_register_pc(thread, reg_slot(u->s, u->arch->pc));
	return true;
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

struct uunwind *uunwind__new(void)
{
	struct uunwind *u = calloc(1, sizeof(*u));

	if (u)
		u->arch = arch_native();
	return u;
}

static void proc_drop(struct uproc *p)
{
	if (p->dwfl)
		dwfl_end(p->dwfl);
	p->dwfl = NULL;
}

void uunwind__free(struct uunwind *u)
{
	int i;

	if (!u)
		return;
	for (i = 0; i < u->nr; i++)
		proc_drop(&u->procs[i]);
	free(u);
}

/* pid's modules as its maps have them now, and the unwinder attached. */
static void proc_report(struct uunwind *u, struct uproc *p)
{
	Dwfl *dwfl;

	proc_drop(p);
	p->reported_ns = clock_ns(CLOCK_MONOTONIC);
	dwfl = dwfl_begin(&proc_callbacks);
	if (!dwfl)
		return;
	dwfl_report_begin(dwfl);
	if (dwfl_linux_proc_report(dwfl, p->pid) || dwfl_report_end(dwfl, NULL, NULL) ||
	    !dwfl_attach_state(dwfl, NULL, p->pid, &thread_callbacks, u)) {
		p_dbg("user stacks: no modules of pid %d: %s", p->pid, dwfl_errmsg(-1));
		dwfl_end(dwfl);
		return;
	}
	p->dwfl = dwfl;
}

/* pid's entry, made (and reported) when new; the least recently used one gives way. */
static struct uproc *proc_get(struct uunwind *u, pid_t pid)
{
	struct uproc *p = NULL;
	int i;

	u->tick++;
	if (u->last < u->nr && u->procs[u->last].pid == pid) {
		u->procs[u->last].used = u->tick;
		return &u->procs[u->last];
	}
	for (i = 0; i < u->nr; i++) {
		if (u->procs[i].pid == pid) {
			u->procs[i].used = u->tick;
			u->last = i;
			return &u->procs[i];
		}
		if (!p || u->procs[i].used < p->used)
			p = &u->procs[i];
	}
	if (u->nr < UUNWIND_MAX_PIDS)
		p = &u->procs[u->nr++];
	u->last = p - u->procs;
	proc_drop(p);
	*p = (struct uproc){ .pid = pid, .used = u->tick };
	proc_report(u, p);
	return p;
}

void uunwind__note(struct uunwind *u, pid_t pid)
{
	if (u)
		proc_get(u, pid);
}

static int take_frame(Dwfl_Frame *frame, void *arg)
{
	struct uunwind *u = arg;
	Dwarf_Addr pc;
	bool activation;

	if (!dwfl_frame_pc(frame, &pc, &activation) || !pc)
		return DWARF_CB_ABORT;
	u->ips[u->n++] = pc;
	return u->n < u->max ? DWARF_CB_OK : DWARF_CB_ABORT;
}

int uunwind__frames(struct uunwind *u, pid_t pid, const struct uunwind_sample *s,
		    unsigned long long *ips, int max)
{
	unsigned long long pc;
	struct uproc *p;

	if (!u || max < 1)
		return 0;
	pc = reg_slot(s, u->arch->pc);
	p = proc_get(u, pid);
	if ((!p->dwfl || !dwfl_addrmodule(p->dwfl, pc)) &&
	    clock_ns(CLOCK_MONOTONIC) - p->reported_ns >= REPORT_EVERY_NS)
		proc_report(u, p);
	u->s = s;
	u->ips = ips;
	u->max = max;
	u->n = 0;
	/* An unwind ends in an error at the outermost frame: the frames so far stand. */
	if (p->dwfl)
		dwfl_getthread_frames(p->dwfl, pid, take_frame, u);
	if (!u->n)
		ips[u->n++] = pc;
	return u->n;
}
