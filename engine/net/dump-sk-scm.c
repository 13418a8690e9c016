/* Dump of files in flight in unix sockets' receive queues (SCM_RIGHTS; see sk-unix.h): the copies the peek
 * gave crshim become file entries of the process (in_flight), or point at the process's own fd of the same
 * open file description (same_fd). */
#define LOG_PREFIX "dump-sk-scm: "
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/kcmp.h>

#include "base/cleanup.h"
#include "dump.h"
#include "files/fdshare.h"
#include "base/log.h"
#include "net/sk-inet.h"
#include "net/sk-unix.h"

static bool same_desc(pid_t a, int fa, pid_t b, int fb)
{
	return syscall(SYS_kcmp, a, b, KCMP_FILE, fa, fb) == 0;
}

/* The lowest fd of the task with the same open file description as crshim's rfd, -1 if none. */
static int task_fd_of(pid_t pid, int rfd)
{
	char path[48];
	snprintf(path, sizeof(path), "/proc/%d/fd", pid);
	__cleanup_closedir DIR *d = opendir(path);
	struct dirent *de;
	int best = -1;
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		int fd = atoi(de->d_name);
		if ((best < 0 || fd < best) && same_desc(pid, fd, getpid(), rfd))
			best = fd;
	}
	return best;
}

static bool same_as_own(int fd, void *rfd)
{
	return same_desc(getpid(), fd, getpid(), *(int *)rfd);
}

int dump_sk_scm_add(struct dump_ctx *c, struct dump_scm *s, int rfd, int sk_fd, uint32_t ino, uint32_t *id,
		    struct cr_err *e)
{
	for (size_t i = 0; i < s->n; i++) {
		const struct dump_scm_file *f = &s->f[i];
		if (f->fd >= 0 ? same_desc(getpid(), f->fd, getpid(), rfd)
			       : same_desc(c->pid, f->same_fd, getpid(), rfd)) {
			close(rfd);
			*id = f->id;
			return 0;
		}
	}
	struct dump_scm_file *nf = realloc(s->f, (s->n + 1) * sizeof(*nf));
	if (!nf) {
		close(rfd);
		return cr_fail_errno(e, ENOMEM, "out of memory");
	}
	s->f = nf;
	int same = task_fd_of(c->pid, rfd);
	pid_t rpid = 0;
	uint32_t rid = 0;
	if (same < 0 && dump_fdshare_flight(c->fdsh, same_as_own, &rfd, &rpid, &rid))
		pr_debug("socket:[%u] (fd %d): carries file id %#x of task %d too\n", ino, sk_fd, rid, rpid);
	if (same >= 0 || rpid) {
		close(rfd);
		rfd = -1;
	}
	*id = DUMP_SCM_ID_BASE + (uint32_t)s->n;
	s->f[s->n++] = (struct dump_scm_file){rfd, -1, same, *id, sk_fd, ino, rpid, rid};
	pr_debug("socket:[%u] (fd %d): a file in flight, id %#x%s%d\n", ino, sk_fd, *id,
		 same >= 0 ? ": the description of fd " : ", crshim's fd ", same >= 0 ? same : rfd);
	return 0;
}

void dump_scm_free(struct dump_scm *s)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->f[i].fd >= 0)
			close(s->f[i].fd);
	free(s->f);
	s->f = NULL;
	s->n = 0;
}

/* One carried file: its entry; an error becomes one line naming the carrying socket. */
static int write_file(struct dump_ctx *c, struct dump_scm_file *f, struct img_writer *wf, struct cr_err *e)
{
	FileEntry fe = FILE_ENTRY__INIT;
	fe.id = f->id, fe.has_id = 1;
	fe.in_flight = true, fe.has_in_flight = 1;
	if (f->fd < 0 && f->ref_pid) { /* carried by an earlier process's socket too: one file */
		fe.same_flight_pid = f->ref_pid, fe.has_same_flight_pid = 1;
		fe.same_flight_id = f->ref_id, fe.has_same_flight_id = 1;
		return img_write(wf, &fe.base, e);
	}
	if (f->fd < 0) {
		fe.same_fd = f->same_fd, fe.has_same_fd = 1;
		return img_write(wf, &fe.base, e);
	}
	const char *what = "a file";
	char link[256] = "?", path[48];
	snprintf(path, sizeof(path), "/proc/self/fd/%d", f->fd);
	ssize_t l = readlink(path, link, sizeof(link) - 1);
	link[l > 0 ? l : 1] = '\0';
	struct dump_ctx cc = *c; /* crshim's own fd: dumped as an fd of crshim */
	cc.pid = getpid();
	cc.sk = NULL;
	int r = dump_files_carried(&cc, f->fd, f->id, wf, &fe, &what, e);
	c->ghosts = cc.ghosts;
	dump_sk_finish(&cc, DUMP_SK_RESUME); /* the pidfd of crshim a unix socket's check made */
	if (r) {
		char why[sizeof(e->msg)];
		snprintf(why, sizeof(why), "%s", e->msg);
		return cr_fail_errno(e, e->errnum,
				     "fd %d of task %d is a unix socket (socket:[%u]) with %s (%s) in flight "
				     "(SCM_RIGHTS)%s: %s",
				     f->sk_fd, c->pid, f->ino, what, link,
				     e->errnum == ENOTSUP || e->errnum == EOPNOTSUPP ? ", not supported" : "",
				     why);
	}
	f->kept = f->fd;
	f->fd = -1; /* open until the dump ends */
	return dump_fdshare_keep(c->fdsh, f->kept, c->pid, f->id, e);
}

int dump_scm_write(struct dump_ctx *c, struct dump_scm *s, struct img_writer *wf, struct cr_err *e)
{
	/* the files written here are the ones an epoll among them may watch (dump_fdshare_find_flight) */
	int *fds = calloc(s->n ? s->n : 1, sizeof(*fds));
	uint32_t *ids = calloc(s->n ? s->n : 1, sizeof(*ids));
	int r = !fds || !ids ? cr_fail_errno(e, ENOMEM, "out of memory") : 0;
	for (size_t i = 0; !r && i < s->n; i++) {
		for (size_t k = 0; k < s->n; k++) /* (as they are now: one may have been closed) */
			fds[k] = s->f[k].fd >= 0 ? s->f[k].fd : s->f[k].kept, ids[k] = s->f[k].id;
		dump_fdshare_writing(c->fdsh, c->pid, fds, ids, s->n);
		r = write_file(c, &s->f[i], wf, e);
		dump_fdshare_writing(c->fdsh, 0, NULL, NULL, 0);
	}
	free(fds);
	free(ids);
	if (!r && s->n)
		pr_info("%zu files in flight in unix sockets of task %d\n", s->n, c->pid);
	return r ? -1 : 0;
}
