// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/kcore is an ELF core file of the running kernel: each PT_LOAD
 * segment maps a range of kernel addresses (text, modules, the direct map)
 * to a file offset. Reading it needs CAP_SYS_RAWIO.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "lib/kcore.h"

/* Where addr..addr+len lies in the file, from the program headers. */
static int segment_offset(int fd, uint64_t addr, size_t len, off_t *off)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	int i;

	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof(ph))
		return -EINVAL;
	for (i = 0; i < eh.e_phnum; i++) {
		if (pread(fd, &ph, sizeof(ph), eh.e_phoff + (off_t)i * sizeof(ph)) != sizeof(ph))
			return -EIO;
		if (ph.p_type == PT_LOAD && addr >= ph.p_vaddr &&
		    addr - ph.p_vaddr + len <= ph.p_filesz) {
			*off = ph.p_offset + (addr - ph.p_vaddr);
			return 0;
		}
	}
	return -ENOENT;
}

int kcore_read(uint64_t addr, void *buf, size_t len)
{
	int fd = open("/proc/kcore", O_RDONLY | O_CLOEXEC), err;
	off_t off;

	if (fd < 0)
		return -errno;
	err = segment_offset(fd, addr, len, &off);
	if (!err && pread(fd, buf, len, off) != (ssize_t)len)
		err = -EIO;
	close(fd);
	return err;
}
