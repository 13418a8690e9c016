/* Dump of memfds (see evfd.h): name (from the fd's link "/memfd:NAME (deleted)"), size, seals, mode and
 * the contents, hole-aware (SEEK_DATA / SEEK_HOLE), read through a new open file description of the
 * memfd (via /proc/PID/fd/N) so that the task's file position is not touched. */
#define LOG_PREFIX "dump-memfd: "
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "dump.h"
#include "files/evfd.h"
#include "files/fd-kind.h"
#include "mem/memfd.h"
#include "mem/shmem.h"
#include "base/log.h"

#define MEMFD_MAX_DATA (48u << 20) /* contents saved in the image record (IMG_MAX_RECORD is 64 MiB) */
#define HUGETLBFS_MAGIC_ 0x958458f6
#define PFX "/memfd:"
#define DEL " (deleted)"
#define SHM_ANON "/dev/zero (deleted)"

/* An fd of shared anonymous memory (MAP_SHARED | MAP_ANONYMOUS, opened through /proc/PID/map_files). */
static bool shm_anon_is(const char *link, const struct stat *st)
{
	return !strcmp(link, SHM_ANON) && st->st_nlink == 0 && S_ISREG(st->st_mode);
}

bool dump_memfd_is(const char *link, const struct stat *st)
{
	return (!strncmp(link, PFX, strlen(PFX)) && st->st_nlink == 0 && S_ISREG(st->st_mode)) ||
	       shm_anon_is(link, st);
}

/* An fd of shared anonymous memory: the object goes to shmem.img (dump-shmem.c, once for the tree, also
 * when nothing maps it any more), the entry names it by inode; restore hands out an open of the object
 * restore-shmem.c made, so that the fd and the mappings are one object again. */
static int fill_shm_anon(struct dump_ctx *c, const struct evfd_src *s, MemfdEntry *m, struct cr_err *e)
{
	char path[64];
	struct stat st;
	uint64_t ino;
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", s->pid, s->fd);
	__cleanup_close int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st))
		return cr_fail_sys(e, "open %s", path);
	if (dump_shmem_add(c, fd, &ino, e))
		return -1;
	m->shmem_anon = 1, m->has_shmem_anon = 1;
	m->size = (uint64_t)st.st_size, m->has_size = 1;
	m->flags = s->flags, m->has_flags = 1;
	m->pos = s->pos, m->has_pos = 1;
	m->inode = ino, m->has_inode = 1;
	m->mode = st.st_mode & 07777, m->has_mode = 1;
	pr_debug("fd %d: shared anonymous memory %llu (%lld bytes)\n", s->fd, (unsigned long long)ino,
		 (long long)st.st_size);
	return 0;
}

static char *memfd_name(const char *link)
{
	size_t l = strlen(link), p = strlen(PFX), d = strlen(DEL);
	if (l >= p + d && !strcmp(link + l - d, DEL))
		l -= d;
	return strndup(link + p, l - p);
}

static int add_extent(MemfdEntry *m, int fd, off_t off, size_t len, struct cr_err *e)
{
	MemfdExtent **nx = realloc(m->data, (m->n_data + 1) * sizeof(void *));
	if (!nx)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	m->data = nx;
	MemfdExtent *x = malloc(sizeof(*x));
	uint8_t *buf = malloc(len ? len : 1);
	if (!x || !buf) {
		free(x);
		free(buf);
		return cr_fail_errno(e, ENOMEM, "out of memory");
	}
	memfd_extent__init(x);
	m->data[m->n_data++] = x;
	x->off = (uint64_t)off, x->has_off = 1;
	x->data.data = buf, x->data.len = len, x->has_data = 1;
	size_t got = 0;
	while (got < len) {
		ssize_t r = pread(fd, buf + got, len - got, off + (off_t)got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return cr_fail_errno(e, r < 0 ? errno : EIO, "read memfd contents at %lld",
					     (long long)(off + (off_t)got));
		got += (size_t)r;
	}
	return 0;
}

/* The non-hole parts of the contents. */
static int read_contents(MemfdEntry *m, int fd, off_t size, struct cr_err *e)
{
	off_t off = 0;
	size_t total = 0;
	while (off < size) {
		off_t d = lseek(fd, off, SEEK_DATA);
		if (d < 0 && errno == ENXIO)
			break; /* only a hole up to the end */
		if (d < 0)
			return cr_fail_sys(e, "SEEK_DATA");
		off_t h = lseek(fd, d, SEEK_HOLE);
		if (h < 0)
			return cr_fail_sys(e, "SEEK_HOLE");
		if (h > size)
			h = size;
		total += (size_t)(h - d);
		if (total > MEMFD_MAX_DATA)
			return cr_fail_errno(e, EFBIG, "more than %u MiB of contents (not supported yet)",
					     MEMFD_MAX_DATA >> 20);
		for (off_t o = d; o < h; o += 1 << 20) {
			size_t len = (size_t)(h - o < (1 << 20) ? h - o : (1 << 20));
			if (add_extent(m, fd, o, len, e))
				return -1;
		}
		off = h;
	}
	return 0;
}

static int fill(const struct evfd_src *s, MemfdEntry *m, struct cr_err *e)
{
	char path[64];
	struct stat st;
	struct statfs sfs;
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", s->pid, s->fd);
	__cleanup_close int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return cr_fail_sys(e, "open %s", path);
	int seals = fcntl(fd, F_GET_SEALS);
	if (seals < 0 || fstat(fd, &st) || fstatfs(fd, &sfs))
		return cr_fail_sys(e, "seals / stat of the memfd");
	if (!(m->name = memfd_name(s->link)))
		return cr_fail_errno(e, ENOMEM, "out of memory");
	m->size = (uint64_t)st.st_size, m->has_size = 1;
	m->seals = (uint32_t)seals, m->has_seals = 1;
	m->allow_sealing = !(seals & F_SEAL_SEAL), m->has_allow_sealing = 1;
	m->flags = s->flags, m->has_flags = 1;
	m->pos = s->pos, m->has_pos = 1;
	m->inode = st.st_ino, m->has_inode = 1;
	m->mode = st.st_mode & 07777, m->has_mode = 1;
	m->hugetlb = (unsigned long)sfs.f_type == HUGETLBFS_MAGIC_, m->has_hugetlb = 1;
	if (read_contents(m, fd, st.st_size, e))
		return -1;
	pr_debug("fd %d: memfd \"%s\" size %lld seals %#x, %zu extents\n", s->fd, m->name,
		 (long long)st.st_size, seals, m->n_data);
	return 0;
}

int dump_memfd_fill(const struct evfd_src *s, FileEntry *fe, struct cr_err *e)
{
	MemfdEntry *m = malloc(sizeof(*m));
	if (!m)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	memfd_entry__init(m);
	if (fill(s, m, e)) {
		protobuf_c_message_free_unpacked(&m->base, NULL);
		return cr_wrap(e, "fd %d (%s)", s->fd, s->link);
	}
	fe->memfd = m;
	fe->kind = FILE_KIND__FILE_MEMFD, fe->has_kind = 1;
	return 0;
}

/* ---------------------------------------------------------------- the kind */

static bool is_memfd(const struct dump_ctx *c, const struct fd_src *f)
{
	return dump_memfd_is(f->link, &f->st);
}

static int dump_memfd(struct dump_ctx *c, struct fd_src *f, void **state, FileEntry *fe, struct cr_err *e)
{
	struct evfd_src s;
	evfd_src_of(f, &s);
	if (!shm_anon_is(f->link, &f->st))
		return dump_evfd_done(c, &s, fe, dump_memfd_fill(&s, fe, e));
	MemfdEntry *m = fe_sub_new(fe, FILE_KIND__FILE_MEMFD, &memfd_entry__descriptor, e);
	if (!m)
		return -1;
	fe->memfd = m;
	int r = fill_shm_anon(c, &s, m, e);
	return dump_evfd_done(c, &s, fe, r ? cr_wrap(e, "fd %d (%s)", s.fd, s.link) : 0);
}

/* Also mapped (opened from the object restore-shmem.c made), or held by several processes (made once by
 * rst_memfd_make): made in crshim (rst_evfd_share). */
static bool memfd_mapped(const FileEntry *f)
{
	return f->memfd && (rst_shmem_fd(f->memfd->inode) >= 0 || rst_memfd_in_tree(f));
}

FD_KIND(fdk_memfd) = {
    .name = "memfd",
    .kind = FILE_KIND__FILE_MEMFD,
    .prio = 50,
    .is = is_memfd,
    .dump = dump_memfd,
    .release = dump_evfd_kind_release,
    .check = rst_evfd_check,
    .open = rst_memfd_open,
    .child_done = rst_memfd_done,
    .made_once = memfd_mapped,
    .make = rst_memfd_make,
    .flight = rst_evfd_share_one,
};
