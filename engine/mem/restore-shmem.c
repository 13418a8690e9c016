/* Restore of shared memory objects (see shmem.h): made once in crshim before the tree, inherited by every
 * process that maps one, mapped by the blob like a file. */
#define LOG_PREFIX "restore-shmem: "
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/log.h"
#include "restore.h"
#include "mem/shmem.h"
#include "net/sk-inet.h"

struct rst_shm {
	uint64_t ino;
	int fd;	  /* O_RDWR */
	int rofd; /* O_RDONLY reopen, for shared read-only mappings of a file opened read-only; -1 until used
		   */
};

static struct rst_shm *objs;
static size_t nr_objs;

/* The object's pages into map (len bytes). */
int rst_shmem_fill(int dirfd, enum img_kind kpm, enum img_kind kpages, int id, uint8_t *map, uint64_t len,
		   struct cr_err *e)
{
	struct page_map pm;
	char name[64];
	img_name(kpages, id, name, sizeof(name));
	if (pm_load_kinds(dirfd, kpm, kpages, id, &pm, e))
		return -1;
	int ret = 0;
	for (size_t i = 0; i < pm.nr && !ret; i++) {
		const struct page_block *b = &pm.blocks[i];
		if (b->vaddr > len || b->len > len - b->vaddr) {
			ret = cr_fail_errno(e, EBADMSG, "%s: block at %llu is past the end", name,
					    (unsigned long long)b->vaddr);
			break;
		}
		for (uint64_t got = 0; map && got < b->len;) { /* (no map: the blocks checked only) */
			ssize_t n = pread(pm_block_fd(&pm, b), map + b->vaddr + got, b->len - got,
					  (off_t)(b->offset + got));
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				ret = cr_fail_errno(e, n ? errno : EBADMSG, "read %s", name);
				break;
			}
			got += (uint64_t)n;
		}
	}
	pm_free(&pm);
	return ret;
}

uint64_t rst_shmem_bytes(int dirfd, enum img_kind kpm, enum img_kind kpages, int id, uint64_t size)
{
	struct page_map pm;
	struct cr_err e = {0};
	if (pm_open_map(dirfd, kpm, kpages, id, &pm, &e)) /* (the fill says why) */
		return size;
	uint64_t n = pm_data_bytes(&pm); /* (a block in the parent images too: its pages are filled here) */
	pm_free(&pm);
	return n;
}

static int shm_fill(int dirfd, const ShmemEntry *se, uint8_t *map, uint64_t len, struct cr_err *e)
{
	return rst_shmem_fill(dirfd, IMG_SHMEM_PAGEMAP, IMG_SHMEM_PAGES, (int)se->id, map, len, e);
}

static int shm_huge_check(const ShmemEntry *se, uint64_t len, struct cr_err *e)
{
	if (se->huge_page && (!len || len % se->huge_page || (se->huge_page & (se->huge_page - 1))))
		return cr_fail_errno(e, EBADMSG, "shmem.img: object %u has size %llu (page size %llu)",
				     se->id, (unsigned long long)len, (unsigned long long)se->huge_page);
	return 0;
}

/* Shared anonymous memory: a fresh MAP_SHARED|MAP_ANONYMOUS object, reopened through map_files. */
static int shm_create_anon(int dirfd, const ShmemEntry *se, uint64_t len, struct cr_err *e)
{
	char path[96];
	if (shm_huge_check(se, len, e))
		return -1;
	if (!len) /* (an fd's object truncated to 0: made with a page, truncated below) */
		len = (uint64_t)sysconf(_SC_PAGESIZE);
	__cleanup_munmap struct cr_map m = {NULL, len};
	int huge = se->huge_page ? MAP_HUGETLB | (int)shmem_huge_flag(se->huge_page) : 0;
	m.addr = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | huge, -1, 0);
	if (m.addr == MAP_FAILED)
		return cr_fail_sys(e, "map %llu bytes of shared memory", (unsigned long long)len);
	if (shm_fill(dirfd, se, m.addr, len, e))
		return -1;
	snprintf(path, sizeof(path), "/proc/self/map_files/%llx-%llx", (unsigned long long)(uintptr_t)m.addr,
		 (unsigned long long)(uintptr_t)m.addr + len);
	__cleanup_close int fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return cr_fail_sys(e, "open %s", path);
	if (se->size != len && ftruncate(fd, (off_t)se->size)) /* held by an fd, truncated or grown */
		return cr_fail_sys(e, "shared memory: size %llu", (unsigned long long)se->size);
	return steal_fd(fd);
}

static int shm_create_memfd(int dirfd, const ShmemEntry *se, uint64_t len, struct cr_err *e)
{
	unsigned huge = se->huge_page ? MFD_HUGETLB | shmem_huge_flag(se->huge_page) : 0;
	__cleanup_close int fd =
	    memfd_create(se->name ? se->name : "", MFD_CLOEXEC | MFD_ALLOW_SEALING | huge);
	if (fd < 0)
		return cr_fail_sys(e, "memfd_create %s", se->name ? se->name : "");
	if (ftruncate(fd, (off_t)se->size))
		return cr_fail_sys(e, "memfd %s: size %llu", se->name, (unsigned long long)se->size);
	if (se->has_mode && fchmod(fd, (mode_t)se->mode))
		return cr_fail_sys(e, "memfd %s: mode", se->name);
	if (len) {
		__cleanup_munmap struct cr_map m = {NULL, len};
		m.addr = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (m.addr == MAP_FAILED)
			return cr_fail_sys(e, "memfd %s: map", se->name);
		if (shm_fill(dirfd, se, m.addr, len, e))
			return -1;
	}
	if (se->seals && fcntl(fd, F_ADD_SEALS, (int)se->seals))
		return cr_fail_sys(e, "memfd %s: seals %#x", se->name, se->seals);
	return steal_fd(fd);
}

/* What shm_create_* refuse from the images alone, nothing made (a dry run, restore-check.c). */
static int shm_dry(int dirfd, const ShmemEntry *se, uint64_t len, struct cr_err *e)
{
	if (se->kind == SHMEM_KIND__SHMEM_MEMFD)
		return len ? shm_fill(dirfd, se, NULL, len, e) : 0;
	return shm_huge_check(se, len, e) ||
		       shm_fill(dirfd, se, NULL, len ? len : (uint64_t)sysconf(_SC_PAGESIZE), e)
		   ? -1
		   : 0;
}

/* Made and filled in the tree's memory cgroup (when it has room for them): shared memory pages are charged
 * for good to the cgroup of the process that first touches them, crshim here, not the tree's processes
 * that map them later (zdtm shm_memcg). The room wanted is the pages of its pagemap, not its size: only the
 * pages filled are allocated (a 4 GiB memfd with 1 MiB written takes 1 MiB: zdtm shm_memcg_sparse). */
static int shm_create_in_memcg(const struct rst_task *t, const ShmemEntry *se, uint64_t len, struct cr_err *e)
{
	ns_rst_memcg_enter_for(
	    t->ns, rst_shmem_bytes(t->dirfd, IMG_SHMEM_PAGEMAP, IMG_SHMEM_PAGES, (int)se->id, len));
	int fd = se->kind == SHMEM_KIND__SHMEM_MEMFD ? shm_create_memfd(t->dirfd, se, len, e)
						     : shm_create_anon(t->dirfd, se, len, e);
	ns_rst_memcg_leave(t->ns);
	return fd;
}

static int shm_create(const struct rst_task *t, const ShmemEntry *se, struct cr_err *e)
{
	uint64_t psz = (uint64_t)sysconf(_SC_PAGESIZE), len = (se->size + psz - 1) & ~(psz - 1);
	struct rst_shm *no = realloc(objs, (nr_objs + 1) * sizeof(*no));
	if (!no)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	objs = no;
	int fd = -1;
	if (t->dry ? shm_dry(t->dirfd, se, len, e) : (fd = shm_create_in_memcg(t, se, len, e)) < 0)
		return cr_wrap(e, "shared memory object %llu", (unsigned long long)se->ino);
	objs[nr_objs++] = (struct rst_shm){se->ino, fd, -1};
	if (t->dry)
		return 0;
	pr_info("shared memory %llu (%s%s, %llu bytes): made once, fd %d\n", (unsigned long long)se->ino,
		se->kind == SHMEM_KIND__SHMEM_MEMFD ? "memfd:" : "anonymous", se->name ? se->name : "",
		(unsigned long long)se->size, fd);
	return 0;
}

static struct rst_shm *find(uint64_t ino)
{
	for (size_t i = 0; i < nr_objs; i++)
		if (objs[i].ino == ino)
			return &objs[i];
	return NULL;
}

int rst_shmem_fd(uint64_t ino)
{
	const struct rst_shm *o = find(ino);
	return o ? o->fd : -1;
}

/* The fd a VMA maps: read-only opens for shared read-only mappings of a file opened so. */
static int vma_fd(struct rst_shm *o, const VmaEntry *v, struct cr_err *e)
{
	if (!v->has_file_flags || (v->file_flags & O_ACCMODE) != O_RDONLY || !(v->flags & MAP_SHARED))
		return o->fd;
	if (o->rofd < 0) {
		char path[64];
		snprintf(path, sizeof(path), "/proc/self/fd/%d", o->fd);
		o->rofd = open(path, O_RDONLY | O_CLOEXEC);
		if (o->rofd < 0)
			return cr_fail_sys(e, "reopen shared memory %llu read-only",
					   (unsigned long long)o->ino);
	}
	return o->rofd;
}

/* A packet socket's rings: mapped from the task's own fd of the socket (restore-files.c, ring_fds). One
 * that several processes hold (forked after the mmap) is made once by crshim with its rings filled and
 * inherited by each (files/restore-fdshare.c: its entry is FILE_INHERIT now, its packet_sk kept): each maps
 * the rings of that one socket, the kernel's pages. */
static int ring_vma(struct rst_task *t, size_t i, const VmaEntry *v, struct cr_err *e)
{
	const FileEntry *f = NULL;
	for (size_t k = 0; v->has_sk_fd && k < t->nr_fdinfo && !f; k++)
		if (t->fdinfo[k]->fd == v->sk_fd)
			f = rst_file_by_id(t, t->fdinfo[k]->id);
	if (!f || (f->kind != FILE_KIND__FILE_PACKETSK && f->kind != FILE_KIND__FILE_INHERIT) ||
	    !f->packet_sk || pkt_ring_map_len(f->packet_sk) != v->end - v->start)
		return cr_fail_errno(
		    e, EBADMSG,
		    "mm-%d.img: vma 0x%llx-0x%llx maps the rings of fd %d, which is no packet socket "
		    "with rings of that size",
		    t->pid, (unsigned long long)v->start, (unsigned long long)v->end, v->sk_fd);
	t->mfiles[t->nr_mfiles] =
	    (struct rst_mfile){"a packet socket's rings", O_RDWR, -1, v->sk_fd + 1, false, NULL};
	t->vma_mfile[i] = (int)t->nr_mfiles++;
	return 0;
}

static int task_vmas(struct rst_task *t, struct cr_err *e)
{
	for (size_t i = 0; i < t->mm->n_vmas; i++) {
		const VmaEntry *v = t->mm->vmas[i];
		if (v->kind == VMA_KIND__VMA_PACKET_RING) {
			if (ring_vma(t, i, v, e))
				return -1;
			continue;
		}
		if (!v->has_shmid || v->kind == VMA_KIND__VMA_SYSV_SHM) /* System V: restore-ipc-shm.c */
			continue;
		struct rst_shm *o = find(v->shmid);
		if (!o) {
			if (v->kind == VMA_KIND__VMA_ANON_SHARED)
				continue; /* an older image: its pages are in the task's pagemap */
			return cr_fail_errno(e, EBADMSG,
					     "mm-%d.img: vma 0x%llx-0x%llx maps shared memory %llu, which "
					     "shmem.img lacks",
					     t->pid, (unsigned long long)v->start, (unsigned long long)v->end,
					     (unsigned long long)v->shmid);
		}
		if (t->dry) /* (made by the restore only) */
			continue;
		int fd = vma_fd(o, v, e);
		if (fd < 0)
			return -1;
		size_t k;
		for (k = 0; k < t->nr_mfiles && t->mfiles[k].fd != fd; k++)
			;
		if (k == t->nr_mfiles)
			t->mfiles[t->nr_mfiles++] = (struct rst_mfile){v->path, O_RDWR, fd, 0, false, NULL};
		t->vma_mfile[i] = (int)k;
	}
	return 0;
}

static int shm_one(ProtobufCMessage *m, void *arg, struct cr_err *e)
{
	const ShmemEntry *se = (const ShmemEntry *)m;
	return find(se->ino) ? 0 : shm_create(arg, se, e);
}

int rst_shmem_prepare(struct rst_task *ts, size_t n, struct cr_err *e)
{
	if (img_each(ts[0].dirfd, IMG_SHMEM, 0, shm_one, &ts[0], e))
		return -1;
	for (size_t i = 0; i < n; i++)
		if (!ts[i].zombie && task_vmas(&ts[i], e))
			return cr_wrap(e, "task %d", ts[i].pid);
	return 0;
}

void rst_shmem_done(void)
{
	for (size_t i = 0; i < nr_objs; i++) {
		if (objs[i].fd >= 0) /* (-1: a dry run's) */
			close(objs[i].fd);
		if (objs[i].rofd >= 0)
			close(objs[i].rofd);
	}
	free(objs);
	objs = NULL;
	nr_objs = 0;
}
