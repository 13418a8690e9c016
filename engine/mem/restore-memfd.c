/* Restore of memfds (see evfd.h), child side: memfd_create with the name (always with sealing allowed:
 * the seals of the image, F_SEAL_SEAL included, are added at the end), the size, the contents, the mode,
 * then the seals. Several open file descriptions of one memfd in the task (same inode at dump) are new
 * opens of the first one through /proc/self/fd. A memfd held by several processes is made by each of
 * them (not shared after restore). */
#define LOG_PREFIX "restore-memfd: "
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "files/evfd.h"
#include "mem/memfd.h"
#include "restore.h"
#include "mem/shmem.h"

#define OPEN_DROP_FLAGS (O_CREAT | O_TRUNC | O_EXCL | O_CLOEXEC)

struct rmemfd {
	uint64_t inode;
	int fd; /* helper >= lo, O_RDWR */
};
static struct rmemfd *made;
static size_t nr_made;

static int write_all(int fd, const MemfdEntry *m)
{
	for (size_t i = 0; i < m->n_data; i++) {
		const MemfdExtent *x = m->data[i];
		size_t off = 0;
		while (off < x->data.len) {
			ssize_t w = pwrite(fd, x->data.data + off, x->data.len - off, (off_t)(x->off + off));
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				return -1;
			off += (size_t)w;
		}
	}
	return 0;
}

/* A new memfd (O_RDWR) with the image's name, size, contents, mode and seals; -1 on error. */
static int make_raw(const MemfdEntry *m, char *msg, size_t len)
{
	unsigned flags = MFD_CLOEXEC | MFD_ALLOW_SEALING | (m->hugetlb ? MFD_HUGETLB : 0);
	int fd = memfd_create(m->name ? m->name : "", flags);
	if (fd < 0)
		return rst_errmsg(msg, len, "memfd_create %s", m->name);
	int r = 0;
	if (ftruncate(fd, (off_t)m->size) || write_all(fd, m))
		r = rst_errmsg(msg, len, "memfd %s: size %llu and contents", m->name,
			       (unsigned long long)m->size);
	else if (m->has_mode && fchmod(fd, m->mode & 07777))
		r = rst_errmsg(msg, len, "memfd %s: mode %o", m->name, m->mode);
	else if (m->seals && fcntl(fd, F_ADD_SEALS, (int)m->seals))
		r = rst_errmsg(msg, len, "memfd %s: seals %#x", m->name, m->seals);
	if (r) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The memfd of the image's fd: its own open file description with the image's access mode, flags and
 * offset (a new open of the memfd held by hfd). */
static int reopen(int hfd, const MemfdEntry *m, char *msg, size_t len)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/fd/%d", hfd);
	int fd = open(path, (int)(m->flags & ~(uint32_t)OPEN_DROP_FLAGS) | O_CLOEXEC);
	if (fd < 0)
		return rst_errmsg(msg, len, "reopen memfd %s", m->name);
	if (m->pos && lseek(fd, (off_t)m->pos, SEEK_SET) < 0) {
		rst_errmsg(msg, len, "memfd %s: seek to %llu", m->name, (unsigned long long)m->pos);
		close(fd);
		return -1;
	}
	return fd;
}

int rst_memfd_make(const FileEntry *f, char *msg, size_t len)
{
	int shm = f->memfd->has_inode ? rst_shmem_fd(f->memfd->inode) : -1;
	if (shm >= 0) /* also mapped: the object restore-shmem.c made, with its contents */
		return reopen(shm, f->memfd, msg, len);
	int raw = make_raw(f->memfd, msg, len);
	if (raw < 0)
		return -1;
	int fd = reopen(raw, f->memfd, msg, len);
	close(raw);
	return fd;
}

/* make_raw, kept as a helper fd >= lo for the other opens of the same memfd. */
static int make(int lo, const MemfdEntry *m, const FdinfoEntry *fi, char *msg, size_t len)
{
	int fd = make_raw(m, msg, len);
	if (fd < 0)
		return -1;
	int hfd = rst_fd_above(fd, lo);
	if (hfd < 0)
		return rst_errmsg(msg, len, "fd %d: memfd: move above %d", fi->fd, lo);
	struct rmemfd *n = realloc(made, (nr_made + 1) * sizeof(*n));
	if (!n) {
		close(hfd);
		errno = ENOMEM;
		return rst_errmsg(msg, len, "memfds");
	}
	made = n;
	made[nr_made++] = (struct rmemfd){m->inode, hfd};
	return hfd;
}

int rst_memfd_open(struct rst_task *t, int lo, const FileEntry *f, const FdinfoEntry *fi, char *msg,
		   size_t len)
{
	const MemfdEntry *m = f->memfd;
	int hfd = -1;
	for (size_t i = 0; i < nr_made && hfd < 0; i++)
		if (m->has_inode && made[i].inode == m->inode)
			hfd = made[i].fd;
	if (hfd < 0 && (hfd = make(lo, m, fi, msg, len)) < 0)
		return -1;
	int fd = reopen(hfd, m, msg, len);
	if (fd < 0)
		return -1;
	if (rst_fd_at(fd, fi->fd, msg, len))
		return -1;
	(void)t;
	return 0;
}

void rst_memfd_done(void)
{
	for (size_t i = 0; i < nr_made; i++)
		close(made[i].fd);
	free(made);
	made = NULL;
	nr_made = 0;
}
