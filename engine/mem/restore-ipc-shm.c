/* Restore of System V shared memory (see ipc-shm.h): each segment made once in crshim before the tree, with
 * its id, key, mode, owner and contents; attached by the blob in every process. */
#define LOG_PREFIX "restore-ipc-shm: "
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/shm.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "mem/ipc-shm.h"
#include "base/log.h"
#include "restore.h"
#include "mem/shmem.h"

#define NEXT_ID "/proc/sys/kernel/shm_next_id"

struct rst_seg {
	int32_t id;
	bool destroyed, removed;
};

static struct rst_seg *segs;
static size_t nr_segs;

static int write_next_id(int32_t id, struct cr_err *e)
{
	char buf[16];
	__cleanup_close int fd = open(NEXT_ID, O_WRONLY | O_CLOEXEC);
	int n = snprintf(buf, sizeof(buf), "%d", id);
	if (fd < 0 || write(fd, buf, (size_t)n) != n)
		return cr_fail_sys(e, "write %d to %s", id, NEXT_ID);
	return 0;
}

/* shmget with the image's id: the id must be free. */
static int seg_get(const IpcShmEntry *ie, struct cr_err *e)
{
	struct shmid_ds ds;
	if (shmctl(ie->id, IPC_STAT, &ds) == 0)
		return cr_fail_errno(e, EEXIST,
				     "System V shared memory segment id %d is in use (key %#x, %llu bytes)",
				     ie->id, (unsigned)ds.shm_perm.__key, (unsigned long long)ds.shm_segsz);
	if (errno != EINVAL && errno != EIDRM)
		return cr_fail_sys(e, "System V shared memory segment %d: IPC_STAT", ie->id);
	if (write_next_id(ie->id, e))
		return -1;
	int flags = IPC_CREAT | IPC_EXCL | (int)(ie->mode & 0777) |
		    (ie->huge_page ? SHM_HUGETLB | (int)shmem_huge_flag(ie->huge_page) : 0);
	int id = shmget(ie->destroyed ? IPC_PRIVATE : (key_t)ie->key, (size_t)ie->size, flags);
	int err = errno;
	struct cr_err e2;
	if (id < 0) {
		write_next_id(-1, &e2); /* not used up: do not leave it to the next shmget of the host */
		if (err == EEXIST)
			return cr_fail_errno(e, err, "System V shared memory key %#x is in use", ie->key);
		return cr_fail_errno(e, err, "shmget (key %#x, %llu bytes)", ie->key,
				     (unsigned long long)ie->size);
	}
	if (id != ie->id) {
		shmctl(id, IPC_RMID, NULL);
		return cr_fail_errno(e, EEXIST, "System V shared memory segment got id %d, not %d", id,
				     ie->id);
	}
	return id;
}

/* Contents, owner and mode. */
static int seg_fill(int dirfd, const IpcShmEntry *ie, struct cr_err *e)
{
	uint64_t psz = (uint64_t)sysconf(_SC_PAGESIZE), len = (ie->size + psz - 1) & ~(psz - 1);
	struct shmid_ds ds;
	void *m = shmat(ie->id, NULL, 0);
	if (m == (void *)-1)
		return cr_fail_sys(e, "shmat");
	int r = rst_shmem_fill(dirfd, IMG_IPC_SHM_PAGEMAP, IMG_IPC_SHM_PAGES, ie->id, m, len, e);
	shmdt(m);
	if (r)
		return -1;
	if (shmctl(ie->id, IPC_STAT, &ds))
		return cr_fail_sys(e, "IPC_STAT");
	ds.shm_perm.uid = ie->uid;
	ds.shm_perm.gid = ie->gid;
	ds.shm_perm.mode = (unsigned short)(ie->mode & 0777);
	if (shmctl(ie->id, IPC_SET, &ds))
		return cr_fail_sys(e, "IPC_SET (owner %u:%u, mode %o)", ie->uid, ie->gid, ie->mode & 0777);
	return 0;
}

static int seg_create(const struct rst_task *t, const IpcShmEntry *ie, struct cr_err *e)
{
	struct rst_seg *n = realloc(segs, (nr_segs + 1) * sizeof(*n));
	if (!n)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	segs = n;
	if (!ie->has_id || !ie->has_size || !ie->size)
		return cr_fail_errno(e, EBADMSG, "ipc-shm.img: a segment without id or size");
	if (seg_get(ie, e) < 0)
		return -1;
	segs[nr_segs++] = (struct rst_seg){ie->id, ie->destroyed, false};
	/* (its pages charged to the tree's memory cgroup, not crshim's: as restore-shmem.c; room for them) */
	ns_rst_memcg_enter_for(
	    t->ns, rst_shmem_bytes(t->dirfd, IMG_IPC_SHM_PAGEMAP, IMG_IPC_SHM_PAGES, ie->id, ie->size));
	int r = seg_fill(t->dirfd, ie, e);
	ns_rst_memcg_leave(t->ns);
	if (r)
		return cr_wrap(e, "System V shared memory segment %d", ie->id);
	pr_info("System V shared memory segment %d (key %#x, %llu bytes%s) made\n", ie->id, ie->key,
		(unsigned long long)ie->size, ie->destroyed ? ", removed after the attaches" : "");
	return 0;
}

static bool seg_known(uint64_t id)
{
	for (size_t i = 0; i < nr_segs; i++)
		if ((uint64_t)segs[i].id == id)
			return true;
	return false;
}

static int check_vmas(const struct rst_task *t, struct cr_err *e)
{
	for (size_t i = 0; t->mm && i < t->mm->n_vmas; i++) {
		const VmaEntry *v = t->mm->vmas[i];
		if (v->kind == VMA_KIND__VMA_SYSV_SHM && (!v->has_shmid || !seg_known(v->shmid)))
			return cr_fail_errno(
			    e, EBADMSG,
			    "mm-%d.img: vma 0x%llx: System V shared memory %llu is not in ipc-shm.img",
			    t->pid, (unsigned long long)v->start, (unsigned long long)v->shmid);
	}
	return 0;
}

static int seg_one(ProtobufCMessage *m, void *arg, struct cr_err *e)
{
	return seg_create(arg, (const IpcShmEntry *)m, e);
}

int rst_ipc_shm_prepare(struct rst_task *ts, size_t n, struct cr_err *e)
{
	if (img_each(ts[0].dirfd, IMG_IPC_SHM, 0, seg_one, &ts[0], e))
		return -1;
	for (size_t i = 0; i < n; i++)
		if (!ts[i].zombie && check_vmas(&ts[i], e))
			return -1;
	return 0;
}

int rst_ipc_shm_attached(struct cr_err *e)
{
	for (size_t i = 0; i < nr_segs; i++) {
		if (!segs[i].destroyed || segs[i].removed)
			continue;
		if (shmctl(segs[i].id, IPC_RMID, NULL))
			return cr_fail_sys(e, "System V shared memory segment %d: IPC_RMID", segs[i].id);
		segs[i].removed = true;
		pr_info("System V shared memory segment %d removed again (attached, IPC_RMID'ed at dump)\n",
			segs[i].id);
	}
	return 0;
}

void rst_ipc_shm_done(bool failed)
{
	for (size_t i = 0; failed && i < nr_segs; i++) {
		if (segs[i].removed)
			continue;
		if (shmctl(segs[i].id, IPC_RMID, NULL) && errno != EINVAL && errno != EIDRM)
			pr_warn("remove System V shared memory segment %d: %s\n", segs[i].id,
				strerror(errno));
		else
			pr_info("System V shared memory segment %d removed (the restore failed)\n",
				segs[i].id);
	}
	free(segs);
	segs = NULL;
	nr_segs = 0;
}
