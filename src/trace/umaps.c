// SPDX-License-Identifier: GPL-2.0
/* The kernel's mappings of a user stack; see umaps.h. */
#include <limits.h>
#include <unistd.h>

#include "trace/umaps.h"

/* A mapping the kernel recorded, with its file's path here; false when it has none. */
static bool umap_decode(struct mounts *mounts, const struct ksnoop_umap *km, struct usym_map *m,
			char *path, size_t size)
{
	static unsigned long long page;
	unsigned int major = km->dev >> 20, minor = km->dev & 0xfffff;
	char fs_path[KSNOOP_UMAP_PATH + 1];

	if ((km->flags & KSNOOP_UMAP_TRUNCATED) ||
	    fs_path_from_leaf(km->path, sizeof(km->path), km->depth, fs_path, sizeof(fs_path)) ||
	    mounts__path(mounts, major, minor, fs_path, km->ino, path, size))
		return false;
	if (!page)
		page = sysconf(_SC_PAGESIZE);
	*m = (struct usym_map){ .start = km->start,
				.end = km->end,
				.pgoff = km->pgoff * page,
				.dev_major = major,
				.dev_minor = minor,
				.inode = km->ino,
				.exec = true,
				.path = path };
	return true;
}

void umaps_learn(struct ustack_syms *u, struct mounts *m, int pid, const struct ksnoop_umap *km,
		 size_t nr)
{
	struct usym_map maps[KSNOOP_UMAPS_MAX];
	char paths[KSNOOP_UMAPS_MAX][PATH_MAX];
	size_t i, n = 0;

	if (!nr || !ustack_syms__gone(u, pid))
		return;
	/* Each event of a gone process repeats its mappings: look up only new ones. */
	for (i = 0; i < nr && i < KSNOOP_UMAPS_MAX; i++) {
		if (!ustack_syms__knows(u, pid, km[i].start) &&
		    umap_decode(m, &km[i], &maps[n], paths[n], sizeof(paths[n])))
			n++;
	}
	ustack_syms__learn(u, pid, maps, n);
}
