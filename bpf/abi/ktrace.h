/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktrace's ABI: ring records from bpf/ktrace.bpf.c, which are also the
 * on-disk trace file records. KTR_VERSION names the file format: any change
 * to a record here must bump it.
 */
#ifndef KSNOOP_ABI_KTRACE_H
#define KSNOOP_ABI_KTRACE_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/*
 * ktrace(1) trace file and ring buffer records, after BSD's ktrace(9).
 *
 * A trace file is one struct ktr_file_header, then records. In version 2
 * every record is a struct ktr_hdr followed by exactly ktr_hdr.len payload
 * bytes, no padding. The header names the thread only: a KTR_THREAD record
 * gives its process and command name before its first record, and again
 * whenever either changes (exec, prctl PR_SET_NAME). The BPF program emits
 * the very same records into its ring buffer, with ts_ns on CLOCK_BOOTTIME;
 * the recorder rewrites ts_ns to CLOCK_REALTIME before writing the file.
 *
 * Version 1 files, which kdump still reads, had a struct ktr_rec header on
 * every record (pid and comm in each) and six arguments in every CALL.
 * kdump hands every record out in that form, whatever the version.
 * Everything is little-endian (native x86-64 and arm64); doc/ktrace.1
 * documents the layout.
 */
#define KTR_MAGIC "KSNKTRC\0"
#define KTR_MAGIC_LEN 8
#define KTR_VERSION 2	 /* what ktrace writes */
#define KTR_VERSION_V1 1 /* the older one kdump reads */
#define KTR_BYTE_ORDER 0x01020304u
#define KTR_COMM_LEN 16

struct ktr_file_header {
	char magic[KTR_MAGIC_LEN]; /* KTR_MAGIC */
	__u16 version;		   /* KTR_VERSION */
	__u16 hdr_len;		   /* sizeof(struct ktr_file_header) */
	__u16 rec_hdr_len;	   /* sizeof(struct ktr_hdr); ktr_rec in version 1 */
	__u16 machine;		   /* ELF e_machine of the traced kernel */
	__u32 byte_order;	   /* KTR_BYTE_ORDER as written */
	__u32 reserved;
};

/* Record types: BSD's KTR_* numbers where BSD has one. */
enum ktr_type {
	KTR_SYSCALL = 1,
	KTR_SYSRET = 2,
	KTR_NAMEI = 3,
	KTR_GENIO = 4,
	KTR_PSIG = 5,
	KTR_EXECARGS = 10,
	KTR_EXECENV = 11,
	KTR_DROP = 16,	 /* records lost before this point */
	KTR_THREAD = 17, /* version 2: who a thread is (struct ktr_thread) */
	KTR_TYPE_MAX = 17,
};

/* The record header of version 2 files and of the ring buffer. */
struct ktr_hdr {
	__u8 type;   /* enum ktr_type */
	__u8 flags;  /* KTR_F_* */
	__u16 len;   /* payload bytes following this header */
	__u32 tid;   /* thread id */
	__u64 ts_ns; /* CLOCK_REALTIME ns in files */
};

struct ktr_thread { /* KTR_THREAD */
	__u32 pid;  /* process (thread group) id */
	__u32 pad;
	char comm[KTR_COMM_LEN];
};

/* A record as kdump reads it, and the record header of version 1 files. */
struct ktr_rec {
	__u16 type;  /* enum ktr_type */
	__u16 flags; /* KTR_F_* */
	__u32 len;   /* payload bytes following this header */
	__u32 pid;   /* process (thread group) id */
	__u32 tid;   /* thread id */
	__u64 ts_ns; /* CLOCK_REALTIME ns in files */
	char comm[KTR_COMM_LEN];
};

/* The data of this record was cut at the capture limit. */
#define KTR_F_TRUNC 0x1

/* Upper bounds a reader enforces; the BPF side never exceeds them. */
#define KTR_SYSCALL_ARGS 6
#define KTR_PATH_MAX 4096     /* NAMI payload */
#define KTR_GIO_MAX 4096      /* data bytes in one GIO record */
#define KTR_EXEC_MAX 8192     /* ARGS or ENV strings */
#define KTR_MAX_PAYLOAD 65536 /* any record */

/*
 * KTR_SYSCALL. Version 2 records hold the nargs arguments the syscall's
 * prototype has (all six when it is unknown); version 1 held six always.
 */
struct ktr_syscall {
	__u32 code;  /* syscall number */
	__u32 nargs; /* arguments recorded, at most KTR_SYSCALL_ARGS */
	__u64 args[KTR_SYSCALL_ARGS];
};
#define KTR_SYSCALL_LEN(nargs) (8 + 8 * (nargs)) /* its payload bytes */

struct ktr_sysret { /* KTR_SYSRET */
	__u32 code;
	__s32 error;  /* errno, 0 on success */
	__s64 retval; /* the raw return value (negative errno on error) */
};

/* KTR_NAMEI: the payload is the path, without a terminating NUL. */

enum ktr_rw { KTR_READ = 0, KTR_WRITE = 1 };

struct ktr_genio { /* KTR_GENIO, followed by the captured data */
	__s32 fd;
	__u32 rw;   /* enum ktr_rw */
	__u32 code; /* syscall number */
	__u32 pad;
	__u64 count; /* bytes transferred; the data is the first of them */
};

struct ktr_psig { /* KTR_PSIG */
	__s32 signo;
	__s32 code;	  /* si_code */
	__s32 err;	  /* si_errno */
	__s32 sender_pid; /* si_pid when the code carries one */
	__u32 sender_uid;
	__u32 flags;  /* KTR_PSIG_* */
	__u64 action; /* handler: 0 SIG_DFL, 1 SIG_IGN, else its address */
	__u64 mask;   /* blocked signals at delivery, bit n-1 = signal n */
	__u64 sa_flags;
};

/* No siginfo: sent by the kernel, or a fatal signal's group exit. */
#define KTR_PSIG_NOINFO 0x1

struct ktr_exec {    /* KTR_EXECARGS, KTR_EXECENV: then NUL-separated strings */
	__u32 total; /* bytes of the whole area; more than captured if cut */
	__u32 pad;
};

struct ktr_drop {    /* KTR_DROP */
	__u64 count; /* records lost since the previous KTR_DROP */
};

_Static_assert(sizeof(struct ktr_file_header) == 24, "ktr_file_header layout");
_Static_assert(sizeof(struct ktr_hdr) == 16, "ktr_hdr layout");
_Static_assert(sizeof(struct ktr_thread) == 24, "ktr_thread layout");
_Static_assert(sizeof(struct ktr_rec) == 40, "ktr_rec layout");
_Static_assert(sizeof(struct ktr_syscall) == 56, "ktr_syscall layout");
_Static_assert(sizeof(struct ktr_sysret) == 16, "ktr_sysret layout");
_Static_assert(sizeof(struct ktr_genio) == 24, "ktr_genio layout");
_Static_assert(sizeof(struct ktr_psig) == 48, "ktr_psig layout");
_Static_assert(sizeof(struct ktr_exec) == 8, "ktr_exec layout");
_Static_assert(sizeof(struct ktr_drop) == 8, "ktr_drop layout");

/* Facilities, the letters of ktrace -t. */
#define KTRFAC_SYSCALL 0x01  /* c: CALL and RET */
#define KTRFAC_NAMEI 0x02    /* n */
#define KTRFAC_GENIO 0x04    /* i */
#define KTRFAC_PSIG 0x08     /* s */
#define KTRFAC_EXECARGS 0x10 /* x */
#define KTRFAC_EXECENV 0x20  /* X */

/* Value of the traced-process map, keyed by process id (tgid). */
struct ktr_target {
	__u32 facs;  /* KTRFAC_* */
	__u32 flags; /* KTR_T_* */
};
#define KTR_T_INHERIT 0x1    /* -i: new child processes are traced too */
#define KTR_T_AWAIT_EXEC 0x2 /* ktrace cmd: start at the next execve */

/* What the BPF side must capture per syscall number, set by user space. */
enum ktr_gio_kind {
	KTR_GIO_NONE = 0,
	KTR_GIO_BUF, /* (fd, buf, ...) transferring the return value */
	KTR_GIO_IOV, /* (fd, iov, iovcnt, ...) */
	KTR_GIO_MSG, /* (fd, struct user_msghdr *, ...) */
};

struct ktr_sysinfo {
	__u8 path_args; /* bit n: argument n is a path the kernel looks up */
	__u8 gio;	/* enum ktr_gio_kind */
	__u8 gio_rw;	/* enum ktr_rw */
	__u8 is_exec;	/* execve, execveat */
	__u8 nargs;	/* arguments to record: the prototype's, or all six */
	__u8 pad[3];
};
_Static_assert(sizeof(struct ktr_target) == 8, "ktr_target layout");
_Static_assert(sizeof(struct ktr_sysinfo) == 8, "ktr_sysinfo layout");

#define KTR_MAX_SYSCALLS 1024 /* syscall numbers the sysinfo map covers */
#define KTR_MAX_THREADS 16384 /* threads remembered without task storage (5.10) */
#define KTR_GIO_MAX_IOV 8     /* iovec entries followed per GIO record */

#endif
