/* Restore of memfds (see evfd.h), child side: memfd_create with the name (always with sealing allowed:
 * the seals of the image, F_SEAL_SEAL included, are added at the end), the size, the contents, the mode,
 * then the seals. Several open file descriptions of one memfd in the task (same inode at dump) are new
 * opens of the first one through /proc/self/fd. A memfd held by several processes (one open file description
 * shared, or each its own, e.g. opened through /proc/PID/fd) is made once in crshim (rst_memfd_tree) and
 * each process gets its own open of that one memfd. The first read-write open of each memfd is the file
 * memfd_create made itself (hand_out), which is not counted as a writer, so that execveat of it works. */
#define LOG_PREFIX "restore-memfd: "
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/log.h"
#include "files/evfd.h"
#include "mem/memfd.h"
#include "restore.h"
#include "mem/shmem.h"

struct rmemfd {
	uint64_t inode;
	int fd; /* helper >= lo, O_RDWR */
};
static struct rmemfd *made;
static size_t nr_made;

/* A hugetlbfs memfd cannot be written to (no write()): its contents go in through a mapping. */
static int write_huge(int fd, const MemfdEntry *m)
{
	if (!m->n_data)
		return 0;
	void *p = mmap(NULL, m->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return -1;
	int r = 0;
	for (size_t i = 0; i < m->n_data && !r; i++) {
		const MemfdExtent *x = m->data[i];
		if (x->off > m->size || x->data.len > m->size - x->off)
			errno = EBADMSG, r = -1;
		else
			memcpy((char *)p + x->off, x->data.data, x->data.len);
	}
	munmap(p, m->size);
	return r;
}

static int write_all(int fd, const MemfdEntry *m)
{
	if (m->hugetlb)
		return write_huge(fd, m);
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
	if (m->shmem_anon) { /* (rst_memfd_make hands out the object when shmem.img has it) */
		errno = EBADMSG;
		return rst_errmsg(msg, len, "shared anonymous memory %llu is not in shmem.img",
				  (unsigned long long)m->inode);
	}
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
	int fd = open(path, (int)(m->flags & ~(uint32_t)RST_OPEN_DROP_FLAGS) | O_CLOEXEC);
	if (fd < 0)
		return rst_errmsg(msg, len, "reopen memfd %s", m->name);
	if (m->pos && lseek(fd, (off_t)m->pos, SEEK_SET) < 0) {
		rst_errmsg(msg, len, "memfd %s: seek to %llu", m->name, (unsigned long long)m->pos);
		close(fd);
		return -1;
	}
	return fd;
}

/* The memfds (by inode) whose own file, the one memfd_create made, was handed to an fd of the image. */
static uint64_t *given;
static size_t nr_given;

/* The fd of the image for the memfd held by hfd. The file memfd_create made does not count as a writer of
 * the memfd, while every open of it for writing does, and execveat() of a memfd refuses while it has writers
 * (ETXTBSY): so the first open for reading and writing of each memfd gets that file itself (as it was most
 * likely the task's own), the others new opens. */
static int hand_out(int hfd, const MemfdEntry *m, char *msg, size_t len)
{
	bool first = m->has_inode && (m->flags & O_ACCMODE) == O_RDWR;
	for (size_t i = 0; first && i < nr_given; i++)
		first = given[i] != m->inode;
	uint64_t *ng = first ? realloc(given, (nr_given + 1) * sizeof(*ng)) : NULL;
	if (!ng)
		return reopen(hfd, m, msg, len);
	given = ng;
	int fd = fcntl(hfd, F_DUPFD_CLOEXEC, 0);
	if (fd < 0 || fcntl(fd, F_SETFL, (int)m->flags) || lseek(fd, (off_t)m->pos, SEEK_SET) < 0) {
		rst_errmsg(msg, len, "memfd %s: its own file: flags %#x, offset %llu", m->name, m->flags,
			   (unsigned long long)m->pos);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	given[nr_given++] = m->inode;
	return fd;
}

/* crshim: the memfds (by inode at dump) held by several processes of the tree, and the one made of each */
struct tree_memfd {
	uint64_t inode;
	int fd; /* -1 until made */
};
static struct tree_memfd *tree_memfds;
static size_t nr_tree_memfds;

static struct tree_memfd *tree_memfd(uint64_t inode)
{
	for (size_t i = 0; i < nr_tree_memfds; i++)
		if (tree_memfds[i].inode == inode)
			return &tree_memfds[i];
	return NULL;
}

static bool task_has_memfd(const struct rst_task *t, uint64_t inode)
{
	for (size_t i = 0; i < t->nr_files; i++) {
		const FileEntry *f = t->files[i];
		if (f->kind == FILE_KIND__FILE_MEMFD && f->memfd && f->memfd->has_inode &&
		    f->memfd->inode == inode)
			return true;
	}
	return false;
}

int rst_memfd_tree(const struct rst_task *ts, size_t n, struct cr_err *e)
{
	for (size_t k = 0; k < n; k++)
		for (size_t i = 0; i < ts[k].nr_files; i++) {
			const FileEntry *f = ts[k].files[i];
			if (f->kind != FILE_KIND__FILE_MEMFD || !f->memfd || !f->memfd->has_inode ||
			    tree_memfd(f->memfd->inode))
				continue;
			bool other = false;
			for (size_t j = k + 1; j < n && !other; j++)
				other = task_has_memfd(&ts[j], f->memfd->inode);
			if (!other)
				continue;
			struct tree_memfd *nt = realloc(tree_memfds, (nr_tree_memfds + 1) * sizeof(*nt));
			if (!nt)
				return cr_fail_errno(e, ENOMEM, "out of memory");
			tree_memfds = nt;
			tree_memfds[nr_tree_memfds++] = (struct tree_memfd){f->memfd->inode, -1};
			pr_info("memfd %s (inode %llu) is held by several processes: made once\n",
				f->memfd->name ? f->memfd->name : "", (unsigned long long)f->memfd->inode);
		}
	return 0;
}

bool rst_memfd_in_tree(const FileEntry *f)
{
	return f->memfd && f->memfd->has_inode && tree_memfd(f->memfd->inode);
}

void rst_memfd_tree_done(void)
{
	free(given);
	given = NULL;
	nr_given = 0;
	for (size_t i = 0; i < nr_tree_memfds; i++)
		if (tree_memfds[i].fd >= 0)
			close(tree_memfds[i].fd);
	free(tree_memfds);
	tree_memfds = NULL;
	nr_tree_memfds = 0;
}

int rst_memfd_make(const FileEntry *f, char *msg, size_t len)
{
	int shm = f->memfd->has_inode ? rst_shmem_fd(f->memfd->inode) : -1;
	if (shm >= 0) /* also mapped: the object restore-shmem.c made, with its contents */
		return hand_out(shm, f->memfd, msg, len);
	struct tree_memfd *tm = f->memfd->has_inode ? tree_memfd(f->memfd->inode) : NULL;
	if (tm && tm->fd >= 0) /* made for an earlier holder */
		return hand_out(tm->fd, f->memfd, msg, len);
	int raw = make_raw(f->memfd, msg, len);
	if (raw < 0)
		return -1;
	int fd = hand_out(raw, f->memfd, msg, len);
	if (tm && fd >= 0)
		tm->fd = raw; /* kept for the other holders until the restore ends */
	else
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
	int fd = hand_out(hfd, m, msg, len);
	if (fd < 0)
		return -1;
	if (rst_fd_at(fd, fi->fd, msg, len))
		return -1;
	(void)t;
	return 0;
}

void rst_memfd_done(void)
{
	free(given);
	given = NULL;
	nr_given = 0;
	for (size_t i = 0; i < nr_made; i++)
		close(made[i].fd);
	free(made);
	made = NULL;
	nr_made = 0;
}
