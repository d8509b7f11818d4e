/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cgroup v2 ids, as BPF's bpf_get_current_cgroup_id gives them, named by
 * their path under the cgroup2 root; and the container and pod a path
 * names, as containerd, CRI-O, Docker, Podman and systemd name theirs.
 */
#ifndef KSNOOP_LIB_CGROUP_H
#define KSNOOP_LIB_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cgroup_names;

struct cgroup_names *cgroup_names__new(void);
void cgroup_names__free(struct cgroup_names *c);
/*
 * The path of cgroup id under the cgroup2 root ("/system.slice/ssh.service",
 * "/" for the root), or NULL when no cgroup has that id (removed before it
 * was first looked up, or no cgroup2 is mounted). An id is looked for by
 * walking the hierarchy again at most once a second; a path once found is
 * kept, so a cgroup removed since keeps its name.
 */
const char *cgroup_names__path(struct cgroup_names *c, uint64_t id);

/* A container id is at most 64 hex digits; a pod uid 36 characters. */
#define CGROUP_ID_MAX 65
#define CGROUP_POD_MAX 37
#define CGROUP_NAME_MAX 256 /* a systemd-nspawn machine's name */

/*
 * The container path is in: id the container's id (64 hex digits for
 * containerd, CRI-O, Docker and Podman; a machine's name for
 * systemd-nspawn and machinectl), pod the Kubernetes pod's uid where the
 * path has one ("" where not). The deepest component that names a
 * container wins, so a process in a container's own sub-cgroup counts
 * as its. false, with both "", for a path that names none.
 */
bool cgroup_container(const char *path, char id[CGROUP_NAME_MAX], char pod[CGROUP_POD_MAX]);

#endif
