/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-architecture constants shared by BPF programs and user space.
 */
#ifndef KSNOOP_LIB_ARCH_H
#define KSNOOP_LIB_ARCH_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/*
 * The backend calibration target: getppid's body as BTF names it, the
 * cheapest traceable function a test can call at will. x86-64 builds
 * SYSCALL_DEFINE0 as a __do_sys_ body behind an __x64_sys_ stub that has
 * no BTF; arm64 builds it as __arm64_sys_getppid alone.
 */
#if defined(__TARGET_ARCH_arm64) || defined(__aarch64__)
#define KSNOOP_CALIB_FUNC "__arm64_sys_getppid"
#else
#define KSNOOP_CALIB_FUNC "__do_sys_getppid"
#endif

#endif
