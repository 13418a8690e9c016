/* Dump of System V shared memory (see ipc-shm.h): ipc-shm.img and one page store per segment. */
#define LOG_PREFIX "dump-ipc-shm: "
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <linux/magic.h>

#include "base/cleanup.h"
#include "dump.h"
#include "mem/ipc-shm.h"
#include "base/log.h"
#include "mem/shmem.h"
#include "ns.h"

struct ipc_seg {
	int32_t id;
	uint32_t key, mode, uid, gid, cuid, cgid, nattch;
	uint64_t size;
	uint64_t huge; /* SHM_HUGETLB: its page size */
	bool destroyed;
	uint32_t tree_vmas; /* VMAs of the tree attached to it */
};

/* One attach in one process: VMAs from offset 0 on, contiguous. */
struct ipc_run {
	pid_t pid;
	int32_t id;
	uint64_t start, end;
};

struct dump_ipc_shm {
	struct ipc_seg *s;
	size_t n;
	struct ipc_run *r;
	size_t nr;
	uint64_t ipc_ns; /* inode of the IPC namespace the segments are read in */
	int ns_fd;	 /* that namespace when it is the root's own, not crshim's (ns_call); -1 */
	bool whole_ns; /* the namespace is the tree's own: its segments no process attaches are the tree's too
			*/
};

void dump_ipc_shm_own_ns(struct dump_ipc_shm *s)
{
	s->whole_ns = true;
}

int dump_ipc_shm_new(struct dump_ipc_shm **out, int ns_fd, struct cr_err *e)
{
	struct stat st;
	*out = calloc(1, sizeof(**out));
	if (!*out)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	(*out)->ns_fd = ns_fd;
	(*out)->ipc_ns =
	    (ns_fd >= 0 ? fstat(ns_fd, &st) : stat("/proc/self/ns/ipc", &st)) ? 0 : (uint64_t)st.st_ino;
	return 0;
}

/* fn(arg) in the IPC namespace of the segments (crshim's, or the root's own: ns_call). */
static int in_ipc_ns(const struct dump_ipc_shm *s, int (*fn)(void *arg, struct cr_err *e), void *arg,
		     struct cr_err *e)
{
	return s->ns_fd >= 0 ? ns_call(s->ns_fd, CLONE_NEWIPC, fn, arg, e) : fn(arg, e);
}

static int open_sysvipc_here(void *arg, struct cr_err *e)
{
	int *fd = arg;
	*fd = open("/proc/sysvipc/shm", O_RDONLY | O_CLOEXEC);
	return *fd < 0 ? cr_fail_sys(e, "open /proc/sysvipc/shm") : 0;
}

/* /proc/sysvipc/shm of the segments' namespace (the file shows the namespace of its opener). */
static FILE *open_sysvipc(const struct dump_ipc_shm *s, struct cr_err *e)
{
	int fd = -1;
	if (in_ipc_ns(s, open_sysvipc_here, &fd, e))
		return NULL;
	FILE *f = fdopen(fd, "re");
	if (!f) {
		cr_fail_sys(e, "open /proc/sysvipc/shm");
		close(fd);
	}
	return f;
}

void dump_ipc_shm_free(struct dump_ipc_shm *s)
{
	if (!s)
		return;
	free(s->s);
	free(s->r);
	free(s);
}

/* The segment's line of /proc/sysvipc/shm (the task's IPC namespace, checked by the caller). */
static int seg_stat(const struct dump_ipc_shm *s, int32_t id, struct ipc_seg *g, struct cr_err *e)
{
	__cleanup_fclose FILE *f = open_sysvipc(s, e);
	char line[512];
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		int key, sid;
		unsigned perms, cpid, lpid, uid, gid, cuid, cgid;
		unsigned long long size;
		unsigned long nattch;
		if (sscanf(line, "%d %d %o %llu %u %u %lu %u %u %u %u", &key, &sid, &perms, &size, &cpid,
			   &lpid, &nattch, &uid, &gid, &cuid, &cgid) != 11 ||
		    sid != id)
			continue;
		*g = (struct ipc_seg){.id = id,
				      .key = (uint32_t)key,
				      .mode = perms & 0777,
				      .uid = uid,
				      .gid = gid,
				      .cuid = cuid,
				      .cgid = cgid,
				      .nattch = (uint32_t)nattch,
				      .size = size,
				      .destroyed = (perms & SHM_DEST) != 0};
		return 0;
	}
	return cr_fail(e, "System V shared memory segment %d is not in /proc/sysvipc/shm", id);
}

static int same_ipc_ns(struct dump_ctx *c, const struct dump_ipc_shm *s, struct cr_err *e)
{
	char path[64];
	struct stat st;
	snprintf(path, sizeof(path), "/proc/%d/ns/ipc", c->pid);
	if (stat(path, &st))
		return cr_fail_sys(e, "stat %s", path);
	if ((uint64_t)st.st_ino != s->ipc_ns)
		return cr_fail(
		    e, "System V shared memory of task %d in another IPC namespace is not supported yet",
		    c->pid);
	return 0;
}

/* The contents, read through the mapping v of process pid (a task's: no attach of crshim's own). */
static int seg_dump(struct dump_ctx *c, pid_t pid, const struct proc_vma *v, struct ipc_seg *g,
		    struct cr_err *e)
{
	char path[PATH_MAX];
	struct statfs sf;
	__cleanup_close int sfd = -1; /* (path may be /proc/self/fd/ of it) */
	if (dump_map_src(pid, v, path, sizeof(path), &sfd, e))
		return -1;
	__cleanup_close int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return cr_fail_sys(e, "open %s", path);
	if (fstatfs(fd, &sf))
		return cr_fail_sys(e, "statfs %s", path);
	if ((unsigned long)sf.f_type == 0x958458f6ul) /* HUGETLBFS_MAGIC: SHM_HUGETLB */
		g->huge = (uint64_t)sf.f_bsize;
	else if (sf.f_type != TMPFS_MAGIC)
		return cr_fail(e, "System V shared memory segment %d on a file system of type %#lx", g->id,
			       (unsigned long)sf.f_type);
	return dump_shmem_file(c, IMG_IPC_SHM_PAGEMAP, IMG_IPC_SHM_PAGES, g->id, fd, g->size, e);
}

/* The end of crshim's attach at start (its VMA: the size rounded up to the segment's pages, huge ones for
 * SHM_HUGETLB), from /proc/self/maps; end rounded up to a page if it is not found there. */
static uint64_t attach_end(uint64_t start, uint64_t end)
{
	uint64_t psz = (uint64_t)sysconf(_SC_PAGESIZE), s, en;
	char line[512];
	__cleanup_fclose FILE *f = fopen("/proc/self/maps", "re");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%" SCNx64 "-%" SCNx64, &s, &en) == 2 && s == start)
			return en;
	return (end + psz - 1) & ~(psz - 1);
}

struct attach {
	int32_t id;
	void *p;
};

static int attach_here(void *arg, struct cr_err *e)
{
	struct attach *a = arg;
	a->p = shmat(a->id, NULL, SHM_RDONLY);
	if (a->p == (void *)-1)
		return cr_fail_sys(e, "attach System V shared memory segment %d to read it", a->id);
	return 0;
}

/* The contents of a segment no process of the tree attaches (in the tree's IPC namespace): read through
 * crshim's own read-only attach (made in that namespace, in crshim's memory), which goes again at once. */
static int seg_dump_detached(struct dump_ctx *root, struct ipc_seg *g, struct cr_err *e)
{
	struct attach a = {.id = g->id};
	if (in_ipc_ns(root->ipc_shm, attach_here, &a, e))
		return -1;
	void *p = a.p;
	char name[32];
	snprintf(name, sizeof(name), "/SYSV%08x (deleted)", g->key);
	struct proc_vma v = {
	    .start = (uint64_t)(uintptr_t)p, .end = (uint64_t)(uintptr_t)p + g->size, .name = name, .ino = 0};
	v.end = attach_end(v.start, v.end);
	int ret = seg_dump(root, getpid(), &v, g, e);
	shmdt(p);
	return ret;
}

static struct ipc_seg *seg_find(struct dump_ipc_shm *s, int32_t id)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->s[i].id == id)
			return &s->s[i];
	return NULL;
}

static int seg_add(struct dump_ctx *c, const struct proc_vma *v, int32_t id, struct cr_err *e)
{
	struct dump_ipc_shm *s = c->ipc_shm;
	struct ipc_seg g;
	if (same_ipc_ns(c, s, e) || seg_stat(s, id, &g, e))
		return -1;
	struct ipc_seg *n = realloc(s->s, (s->n + 1) * sizeof(*n));
	if (!n)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	s->s = n;
	if (seg_dump(c, c->pid, v, &g, e))
		return -1;
	s->s[s->n++] = g;
	pr_info("System V shared memory segment %d (key %#x, %llu bytes, nattch %u%s) dumped as "
		"pages-ipcshm-%d.img\n",
		id, g.key, (unsigned long long)g.size, g.nattch, g.destroyed ? ", removed" : "", id);
	return 0;
}

/* A run of this process goes on, or a new one starts (at offset 0). */
static int add_run(struct dump_ctx *c, const struct proc_vma *v, int32_t id, struct cr_err *e)
{
	struct dump_ipc_shm *s = c->ipc_shm;
	struct ipc_run *last = s->nr ? &s->r[s->nr - 1] : NULL;
	if (last && last->pid == c->pid && last->id == id && last->end == v->start &&
	    v->pgoff == v->start - last->start) {
		last->end = v->end;
		return 0;
	}
	if (v->pgoff)
		return cr_fail(
		    e,
		    "task %d: System V shared memory segment %d attached at 0x%llx only from offset %llu "
		    "(partly unmapped) is not supported yet",
		    c->pid, id, (unsigned long long)v->start, (unsigned long long)v->pgoff);
	struct ipc_run *n = realloc(s->r, (s->nr + 1) * sizeof(*n));
	if (!n)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	s->r = n;
	s->r[s->nr++] = (struct ipc_run){c->pid, id, v->start, v->end};
	return 0;
}

int dump_ipc_shm_vma(struct dump_ctx *c, const struct proc_vma *v, VmaEntry *ve, struct cr_err *e)
{
	int32_t id = (int32_t)v->ino; /* the inode of a segment's file is its id */
	if (v->perms[3] != 's')
		return cr_fail(e,
			       "task %d: a private mapping of System V shared memory (%s) is not supported",
			       c->pid, v->name);
	if (!seg_find(c->ipc_shm, id) && seg_add(c, v, id, e))
		return cr_wrap(e, "task %d: System V shared memory segment %d", c->pid, id);
	if (add_run(c, v, id, e))
		return -1;
	seg_find(c->ipc_shm, id)->tree_vmas++;
	ve->kind = VMA_KIND__VMA_SYSV_SHM;
	ve->shmid = (uint64_t)id, ve->has_shmid = 1;
	ve->file_flags = (v->vmflags & PROC_VMA_MW) ? O_RDWR : O_RDONLY, ve->has_file_flags = 1;
	return 0;
}

/* The length of an attach of segment g: its size rounded up to its pages. */
static uint64_t page_up(const struct ipc_seg *g)
{
	uint64_t psz = g->huge ? g->huge : (uint64_t)sysconf(_SC_PAGESIZE);
	return (g->size + psz - 1) & ~(psz - 1);
}

/* Every attach covers its whole segment; nobody outside the tree has one attached. */
static int check_attaches(const struct dump_ipc_shm *s, struct cr_err *e)
{
	for (size_t i = 0; i < s->nr; i++) {
		const struct ipc_run *r = &s->r[i];
		const struct ipc_seg *g = seg_find((struct dump_ipc_shm *)s, r->id);
		if (r->end - r->start != page_up(g))
			return cr_fail(
			    e,
			    "task %d: System V shared memory segment %d attached at 0x%llx partly unmapped "
			    "(%llu of %llu bytes) is not supported yet",
			    r->pid, r->id, (unsigned long long)r->start,
			    (unsigned long long)(r->end - r->start), (unsigned long long)g->size);
	}
	for (size_t i = 0; i < s->n; i++)
		if (s->s[i].nattch > s->s[i].tree_vmas)
			return cr_fail(
			    e,
			    "System V shared memory segment %d is attached outside the dumped tree too "
			    "(nattch %u, %u in the tree)",
			    s->s[i].id, s->s[i].nattch, s->s[i].tree_vmas);
	return 0;
}

/* The tree's own IPC namespace: the segments no process of it attaches (made and detached, kept for later
 * or for another process: CRIU saves them too); read from /proc/sysvipc/shm of the namespace crshim is in. */
static int add_detached(struct dump_ctx *root, struct dump_ipc_shm *s, struct cr_err *e)
{
	__cleanup_fclose FILE *f = open_sysvipc(s, e);
	char line[512];
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		int key, id;
		if (sscanf(line, "%d %d", &key, &id) != 2 || seg_find(s, id))
			continue;
		struct ipc_seg g;
		if (seg_stat(s, id, &g, e))
			return -1;
		struct ipc_seg *n = realloc(s->s, (s->n + 1) * sizeof(*n));
		if (!n)
			return cr_fail_errno(e, ENOMEM, "out of memory");
		s->s = n;
		if (g.nattch == 0 && seg_dump_detached(root, &g, e))
			return cr_wrap(e, "System V shared memory segment %d", id);
		s->s[s->n++] = g; /* (attached only outside the tree: check_attaches refuses it) */
		pr_info(
		    "System V shared memory segment %d (key %#x, %llu bytes) attached by no process: dumped "
		    "as pages-ipcshm-%d.img\n",
		    id, g.key, (unsigned long long)g.size, id);
	}
	return 0;
}

int dump_ipc_shm_write(struct dump_ctx *root, struct cr_err *e)
{
	struct dump_ipc_shm *s = root->ipc_shm;
	struct img_writer *w;
	if (s && s->whole_ns && add_detached(root, s, e))
		return -1;
	if (!s || !s->n)
		return 0;
	if (check_attaches(s, e) || img_create(root->dirfd, IMG_IPC_SHM, 0, &w, e))
		return -1;
	for (size_t i = 0; i < s->n; i++) {
		const struct ipc_seg *g = &s->s[i];
		IpcShmEntry ie = IPC_SHM_ENTRY__INIT;
		ie.id = g->id, ie.has_id = 1;
		ie.key = g->key, ie.has_key = 1;
		ie.size = g->size, ie.has_size = 1;
		ie.mode = g->mode, ie.has_mode = 1;
		ie.uid = g->uid, ie.has_uid = 1;
		ie.gid = g->gid, ie.has_gid = 1;
		ie.cuid = g->cuid, ie.has_cuid = 1;
		ie.cgid = g->cgid, ie.has_cgid = 1;
		ie.destroyed = g->destroyed, ie.has_destroyed = 1;
		ie.nattch = g->nattch, ie.has_nattch = 1;
		ie.huge_page = g->huge, ie.has_huge_page = g->huge != 0;
		if (img_write_or_drop(w, &ie.base, e))
			return -1;
	}
	if (img_commit(w, e))
		return -1;
	return dump_created(root, IMG_IPC_SHM, 0, e);
}

static int remove_here(void *arg, struct cr_err *e)
{
	const struct dump_ipc_shm *s = arg;
	(void)e;
	for (size_t i = 0; i < s->n; i++) {
		if (s->s[i].destroyed)
			continue; /* gone with its last attach */
		if (shmctl(s->s[i].id, IPC_RMID, NULL))
			pr_warn("remove System V shared memory segment %d: %s\n", s->s[i].id,
				strerror(errno));
		else
			pr_info("System V shared memory segment %d removed (its tree is gone, it is in the "
				"images)\n",
				s->s[i].id);
	}
	return 0;
}

void dump_ipc_shm_killed(const struct dump_ipc_shm *s)
{
	struct cr_err e = {0};
	if (s && s->n && in_ipc_ns(s, remove_here, (void *)s, &e))
		pr_warn("remove the System V shared memory segments of the killed tree: %s\n", e.msg);
}
