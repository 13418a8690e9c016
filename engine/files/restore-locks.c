/* Restore of file locks (see locks.h): loaded with the task's images, taken by the restored process itself
 * once its fds are in place (flock and OFD locks belong to the open file description, POSIX locks to the
 * process, which is the restored one already: same pid, same files table). */
#define LOG_PREFIX "restore-locks: "
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/fsuid.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "files/fown.h"
#include "files/ghost.h"
#include "files/locks.h"
#include "base/log.h"
#include "restore.h"

/* keeps the record in t->locks */
static int lock_one(ProtobufCMessage *m, void *arg, struct cr_err *e)
{
	struct rst_task *t = arg;
	FileLockEntry **nl = realloc(t->locks, (t->nr_locks + 1) * sizeof(void *));
	if (!nl)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	t->locks = nl;
	t->locks[t->nr_locks++] = (FileLockEntry *)m;
	return 1;
}

int rst_locks_load(struct rst_task *t, struct cr_err *e)
{
	int ret = img_each(t->dirfd, IMG_FILE_LOCKS, t->pid, lock_one, t, e);
	for (size_t i = 0; !ret && i < t->nr_locks; i++) {
		const FileLockEntry *l = t->locks[i];
		bool known = false;
		for (size_t j = 0; j < t->nr_fdinfo; j++)
			known |= t->fdinfo[j]->fd == l->fd;
		if (!l->has_kind || !l->has_fd || !known)
			ret = cr_fail_errno(e, EBADMSG,
					    "filelocks-%d.img: a lock on fd %d, which the task lacks", t->pid,
					    l->fd);
	}
	if (!ret && t->nr_locks)
		pr_info("task %d: %zu file locks\n", t->pid, t->nr_locks);
	return ret;
}

void rst_locks_free(struct rst_task *t)
{
	for (size_t i = 0; i < t->nr_locks; i++)
		protobuf_c_message_free_unpacked(&t->locks[i]->base, NULL);
	free(t->locks);
	t->locks = NULL;
	t->nr_locks = 0;
}

static int lmsg(char *msg, size_t len, const FileLockEntry *l, const char *kind)
{
	snprintf(msg, len, "fd %d: take its %s %s lock again: %s", l->fd, l->write ? "write" : "read", kind,
		 strerror(errno));
	return -1;
}

/* A POSIX lock is dropped when its process closes any fd of the file. The blob closes the helper fds of
 * mapped files (all >= helper_fd_lo): a mapped file with POSIX locks is mapped through the locked fd
 * instead (a target fd, below helper_fd_lo), when its access mode allows the mapping. */
static void map_through_locked(const struct rst_task *t)
{
	int32_t *mfd = (int32_t *)(uintptr_t)t->args->mfd;
	for (size_t k = 0; k < t->nr_locks; k++) {
		const FileLockEntry *l = t->locks[k];
		struct stat ls, ms;
		int fl = fcntl(l->fd, F_GETFL);
		if (l->kind != FILE_LOCK_KIND__FL_POSIX || fl < 0 || (fl & (O_APPEND | O_PATH)) ||
		    fstat(l->fd, &ls))
			continue;
		for (size_t i = 0; i < t->nr_mfiles; i++) {
			bool ok = t->mfiles[i].oflags == O_RDWR ? (fl & O_ACCMODE) == O_RDWR
								: (fl & O_ACCMODE) != O_WRONLY;
			if (ok && mfd[i] >= t->args->helper_fd_lo && !fstat(mfd[i], &ms) &&
			    ms.st_ino == ls.st_ino && ms.st_dev == ls.st_dev) {
				close(mfd[i]);
				mfd[i] = l->fd;
			}
		}
	}
}

/* F_SETLEASE on fd: the kernel lets only the file's owner (by fsuid) or a holder of CAP_LEASE in the
 * initial user namespace take one. The restored process still has crshim's credentials here (its own come
 * later): in a user namespace, root there, not the owner of a file that a process of another uid leased. It
 * takes the lease as the owner then (setfsuid: this thread's fsuid only, put back at once, with the dumpable
 * flag). */
static int set_lease(int fd, int type)
{
	struct stat st;
	if (!fcntl(fd, F_SETLEASE, type))
		return 0;
	if (errno != EACCES || fstat(fd, &st))
		return -1;
	int dumpable = prctl(PR_GET_DUMPABLE, 0, 0, 0, 0); /* a change of fsuid resets it */
	uid_t was = (uid_t)setfsuid(st.st_uid);
	int r = (uid_t)setfsuid((uid_t)-1) == st.st_uid ? fcntl(fd, F_SETLEASE, type) : (errno = EACCES, -1);
	int err = errno;
	setfsuid(was);
	if (dumpable >= 0)
		prctl(PR_SET_DUMPABLE, dumpable, 0, 0, 0);
	errno = err;
	return r;
}

/* A lease again. F_SETLEASE makes the caller the file's owner (the lease-break signal goes to it): the owner
 * restored with the fd is put back. A lease being broken is taken as the fd's access mode allows (a read
 * lease on a read-only fd, else a write lease), then broken again by an open of the file that does not wait
 * (through a handle of the fd, else /proc/self/fd), with no owner meanwhile: no signal for a break the task
 * had seen. */
static int lease_again(const struct rst_task *t, const FileLockEntry *l, char *msg, size_t len)
{
	struct f_owner_ex own, none = {F_OWNER_PID, 0};
	int acc = fcntl(l->fd, F_GETFL) & O_ACCMODE;
	int type = l->has_break_to ? (acc == O_RDONLY ? F_RDLCK : F_WRLCK) : l->write ? F_WRLCK : F_RDLCK;
	if (fcntl(l->fd, F_GETOWN_EX, &own) || set_lease(l->fd, type) || fcntl(l->fd, F_SETOWN_EX, &none))
		return lmsg(msg, len, l, "lease");
	if (l->has_break_to) {
		union {
			struct file_handle h;
			char buf[sizeof(struct file_handle) + MAX_HANDLE_SZ];
		} fh;
		int mnt, flags = (l->break_to == F_UNLCK ? O_WRONLY : O_RDONLY) | O_NONBLOCK | O_CLOEXEC;
		fh.h.handle_bytes = MAX_HANDLE_SZ;
		int o = -1;
		errno = EPERM;
		if (!name_to_handle_at(l->fd, "", &fh.h, &mnt, AT_EMPTY_PATH))
			o = open_by_handle_at(l->fd, &fh.h, flags);
		if (o < 0 && errno != EWOULDBLOCK) { /* no CAP_DAC_READ_SEARCH (a user namespace): /proc */
			char p[32];
			snprintf(p, sizeof(p), "fd/%d", l->fd);
			o = rst_self_proc_open(p, flags);
		}
		if (o >= 0 || errno != EWOULDBLOCK) {
			if (o >= 0)
				close(o), errno = EAGAIN;
			return lmsg(msg, len, l, "lease (break it again)");
		}
	}
	if (rst_fown_setown(l->fd, &own, t->creds))
		return lmsg(msg, len, l, "lease (its file owner)");
	return 0;
}

int rst_child_locks(const struct rst_task *t, char *msg, size_t len)
{
	map_through_locked(t);
	for (size_t i = 0; i < t->nr_locks; i++) {
		const FileLockEntry *l = t->locks[i];
		struct flock fl = {.l_type = l->write ? F_WRLCK : F_RDLCK,
				   .l_whence = SEEK_SET,
				   .l_start = (off_t)l->start,
				   .l_len = (off_t)l->len};
		switch (l->kind) {
		case FILE_LOCK_KIND__FL_FLOCK:
			if (flock(l->fd, (l->write ? LOCK_EX : LOCK_SH) | LOCK_NB))
				return lmsg(msg, len, l, "flock");
			break;
		case FILE_LOCK_KIND__FL_POSIX:
			if (fcntl(l->fd, F_SETLK, &fl))
				return lmsg(msg, len, l, "POSIX");
			break;
		case FILE_LOCK_KIND__FL_OFD:
			if (fcntl(l->fd, F_OFD_SETLK, &fl))
				return lmsg(msg, len, l, "OFD");
			break;
		case FILE_LOCK_KIND__FL_LEASE:
			if (lease_again(t, l, msg, len))
				return -1;
			break;
		default:
			errno = EINVAL;
			return lmsg(msg, len, l, "unknown");
		}
	}
	return 0;
}
