/* Dump of shared memory objects (see shmem.h): shmem.img and one page store per object. */
#define LOG_PREFIX "dump-shmem: "
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <linux/magic.h>

#include "base/cleanup.h"
#include "dump.h"
#include "base/log.h"
#include "mem/shmem.h"

#define CHUNK (1u << 20)

#define HUGETLBFS_MAGIC_ 0x958458f6

struct shm_obj {
	uint64_t ino, dev, size, huge; /* huge: hugetlbfs, its page size */
	uint32_t id, seals, mode;
	ShmemKind kind;
	char *name; /* memfd name */
};

struct dump_shmem {
	struct shm_obj *o;
	size_t n;
};

int dump_shmem_new(struct dump_shmem **out, struct cr_err *e)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : cr_fail_errno(e, ENOMEM, "out of memory");
}

void dump_shmem_free(struct dump_shmem *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++)
		free(s->o[i].name);
	free(s->o);
	free(s);
}

/* The kind and memfd name from the link of the object's fd. */
static int shm_identify(int fd, struct shm_obj *o, struct cr_err *e)
{
	static const char memfd[] = "/memfd:", del[] = " (deleted)";
	char path[64], link[PATH_MAX];
	struct statfs sf;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	ssize_t n = readlink(path, link, sizeof(link) - 1);
	if (n < 0)
		return cr_fail_sys(e, "readlink %s", path);
	link[n] = '\0';
	if (fstatfs(fd, &sf))
		return cr_fail_sys(e, "statfs of %s", link);
	if ((unsigned long)sf.f_type == HUGETLBFS_MAGIC_)
		o->huge = (uint64_t)sf.f_bsize;
	else if (sf.f_type != TMPFS_MAGIC)
		return cr_fail(e, "shared memory %s on a file system of type %#lx is not supported yet", link,
			       (unsigned long)sf.f_type);
	o->kind = SHMEM_KIND__SHMEM_ANON;
	if (strncmp(link, memfd, sizeof(memfd) - 1))
		return 0;
	o->kind = SHMEM_KIND__SHMEM_MEMFD;
	size_t l = (size_t)n - (sizeof(memfd) - 1);
	if (l >= sizeof(del) - 1 && !strcmp(link + n - (sizeof(del) - 1), del))
		l -= sizeof(del) - 1;
	o->name = strndup(link + sizeof(memfd) - 1, l);
	if (!o->name)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	int s = fcntl(fd, F_GET_SEALS);
	o->seals = s > 0 ? (uint32_t)s : 0;
	return 0;
}

/* Copy [from, to) of the object into the page store (to is page aligned; past i_size reads as zero). */
static int copy_range(struct page_writer *pw, int fd, uint8_t *buf, uint64_t from, uint64_t to,
		      struct cr_err *e)
{
	while (from < to) {
		size_t len = to - from > CHUNK ? CHUNK : (size_t)(to - from), got = 0;
		while (got < len) {
			ssize_t r = pread(fd, buf + got, len - got, (off_t)(from + got));
			if (r < 0 && errno == EINTR)
				continue;
			if (r < 0)
				return cr_fail_sys(e, "read shared memory at %llu", (unsigned long long)from);
			if (r == 0) { /* end of file inside the last page */
				memset(buf + got, 0, len - got);
				break;
			}
			got += (size_t)r;
		}
		if (pw_add(pw, from, buf, len, e))
			return -1;
		from += len;
	}
	return 0;
}

/* Copy the data pages of [0, end) (holes skipped) into pw. */
static int shm_scan(struct page_writer *pw, int fd, uint64_t end, uint64_t psz, uint8_t *buf,
		    struct cr_err *e)
{
	for (uint64_t off = 0; off < end;) {
		off_t d = lseek(fd, (off_t)off, SEEK_DATA);
		if (d < 0 && errno == ENXIO)
			break;
		if (d < 0)
			return cr_fail_sys(e, "SEEK_DATA");
		off_t h = lseek(fd, d, SEEK_HOLE);
		if (h < 0)
			return cr_fail_sys(e, "SEEK_HOLE");
		uint64_t ds = (uint64_t)d & ~(psz - 1), he = ((uint64_t)h + psz - 1) & ~(psz - 1);
		if (he > end)
			he = end;
		if (ds < off)
			ds = off;
		if (he <= ds)
			break;
		if (copy_range(pw, fd, buf, ds, he, e))
			return -1;
		off = he;
	}
	return 0;
}

/* The pages of the object that hold data (plain free: scan-build loses a cleanup variable across the loop).
 */
int dump_shmem_contents(struct page_writer *pw, int fd, uint64_t size, struct cr_err *e)
{
	uint64_t psz = (uint64_t)sysconf(_SC_PAGESIZE), end = (size + psz - 1) & ~(psz - 1);
	uint8_t *buf = malloc(CHUNK);
	if (!buf)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	int r = shm_scan(pw, fd, end, psz, buf, e);
	free(buf);
	return r;
}

int dump_shmem_file(struct dump_ctx *c, enum img_kind kmap, enum img_kind kpages, int id, int fd,
		    uint64_t size, struct cr_err *e)
{
	struct page_writer *pw;
	if (pw_open_px(c->dirfd, c->px, kmap, kpages, id, &pw, e))
		return -1;
	if (dump_shmem_contents(pw, fd, size, e)) {
		pw_abort(pw);
		return -1;
	}
	uint64_t pages = pw_bytes(pw) / (uint64_t)sysconf(_SC_PAGESIZE);
	if (pw_commit(pw, e))
		return -1;
	CR_STAT_ADD(c->o->stats, shpages_written, pages);
	return dump_created(c, kpages, id, e) || dump_created(c, kmap, id, e);
}

static int shm_dump(struct dump_ctx *c, struct shm_obj *o, int fd, struct cr_err *e)
{
	return dump_shmem_file(c, IMG_SHMEM_PAGEMAP, IMG_SHMEM_PAGES, (int)o->id, fd, o->size, e);
}

int dump_shmem_add(struct dump_ctx *c, int fd, uint64_t *ino, struct cr_err *e)
{
	struct dump_shmem *s = c->shm;
	struct stat st;
	if (fstat(fd, &st))
		return cr_fail_sys(e, "stat shared memory");
	*ino = (uint64_t)st.st_ino;
	for (size_t i = 0; i < s->n; i++)
		if (s->o[i].ino == (uint64_t)st.st_ino && s->o[i].dev == (uint64_t)st.st_dev)
			return 0; /* dumped already (another VMA or process) */
	struct shm_obj *no = realloc(s->o, (s->n + 1) * sizeof(*no));
	if (!no)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	s->o = no;
	struct shm_obj *o = &s->o[s->n];
	*o = (struct shm_obj){.ino = (uint64_t)st.st_ino,
			      .dev = (uint64_t)st.st_dev,
			      .size = (uint64_t)st.st_size,
			      .id = (uint32_t)s->n + 1,
			      .mode = st.st_mode & 07777};
	if (shm_identify(fd, o, e) || shm_dump(c, o, fd, e)) {
		free(o->name);
		return cr_wrap(e, "shared memory object %llu", (unsigned long long)o->ino);
	}
	s->n++;
	pr_info("shared memory %llu (%s%s, %llu bytes%s) dumped as pages-shmem-%u.img\n",
		(unsigned long long)o->ino, o->kind == SHMEM_KIND__SHMEM_MEMFD ? "memfd:" : "anonymous",
		o->name ? o->name : "", (unsigned long long)o->size, o->huge ? ", hugetlb" : "", o->id);
	return 0;
}

int dump_shmem_write(struct dump_ctx *root, struct cr_err *e)
{
	struct dump_shmem *s = root->shm;
	struct img_writer *w;
	if (!s || !s->n)
		return 0;
	if (img_create(root->dirfd, IMG_SHMEM, 0, &w, e))
		return -1;
	for (size_t i = 0; i < s->n; i++) {
		const struct shm_obj *o = &s->o[i];
		ShmemEntry se = SHMEM_ENTRY__INIT;
		se.id = o->id, se.has_id = 1;
		se.ino = o->ino, se.has_ino = 1;
		se.dev = o->dev, se.has_dev = 1;
		se.size = o->size, se.has_size = 1;
		se.kind = o->kind, se.has_kind = 1;
		se.name = o->name;
		se.seals = o->seals, se.has_seals = 1;
		se.mode = o->mode, se.has_mode = 1;
		se.huge_page = o->huge, se.has_huge_page = o->huge != 0;
		if (img_write_or_drop(w, &se.base, e))
			return -1;
	}
	if (img_commit(w, e))
		return -1;
	return dump_created(root, IMG_SHMEM, 0, e);
}
