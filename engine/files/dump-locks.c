/* Dump of file locks (see locks.h). */
#define LOG_PREFIX "dump-locks: "
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/kcmp.h>

#include "base/cleanup.h"
#include "dump.h"
#include "files/locks.h"
#include "base/log.h"

struct lock_list {
	FileLockEntry *l;
	size_t n;
	int *fds; /* fds that had locks (one per open file description) */
	size_t nfds;
};

/* fd refers to the same open file description as an fd already seen with locks. */
static bool seen_desc(const struct dump_ctx *c, const struct lock_list *ll, int fd)
{
	for (size_t i = 0; i < ll->nfds; i++)
		if (syscall(SYS_kcmp, c->pid, c->pid, KCMP_FILE, ll->fds[i], fd) == 0)
			return true;
	return false;
}

static const char *kind_name(FileLockKind k)
{
	return k == FILE_LOCK_KIND__FL_POSIX   ? "POSIX"
	       : k == FILE_LOCK_KIND__FL_FLOCK ? "flock"
	       : k == FILE_LOCK_KIND__FL_LEASE ? "LEASE"
					       : "OFD";
}

/* One "lock:" line of fd into *fl; < 0 with one line for what we cannot take. */
static int parse_lock(struct dump_ctx *c, int fd, const char *line, FileLockEntry *fl, struct cr_err *e)
{
	char kind[16], adv[16], rw[16], end[32], link[64], target[512] = "?";
	unsigned long long start;
	int pid;
	snprintf(link, sizeof(link), "/proc/%d/fd/%d", c->pid, fd);
	ssize_t n = readlink(link, target, sizeof(target) - 1);
	target[n > 0 ? n : 1] = '\0';
	if (sscanf(line, "lock: %*d: %15s %15s %15s %d %*s %llu %31s", kind, adv, rw, &pid, &start, end) != 6)
		return cr_fail(e, "fd %d (%s): cannot parse its lock line '%s'", fd, target, line);
	file_lock_entry__init(fl);
	if (!strcmp(kind, "POSIX"))
		fl->kind = FILE_LOCK_KIND__FL_POSIX;
	else if (!strcmp(kind, "FLOCK"))
		fl->kind = FILE_LOCK_KIND__FL_FLOCK;
	else if (!strcmp(kind, "OFDLCK"))
		fl->kind = FILE_LOCK_KIND__FL_OFD;
	else if (!strcmp(kind, "LEASE") && strcmp(adv, "ACTIVE") &&
		 (strcmp(adv, "BREAKING") || (strcmp(rw, "READ") && strcmp(rw, "UNLCK"))))
		return cr_fail(e, "fd %d (%s) holds a lease in state %s %s, not supported yet", fd, target,
			       adv, rw);
	else if (!strcmp(kind, "LEASE"))
		fl->kind = FILE_LOCK_KIND__FL_LEASE;
	else
		return cr_fail(e, "fd %d (%s) holds a %s lock, not supported yet", fd, target, kind);
	if (!c->o->file_locks)
		return cr_fail(e, "fd %d (%s) holds a %s lock: dump with --file-locks", fd, target,
			       kind_name(fl->kind));
	if (fl->kind == FILE_LOCK_KIND__FL_LEASE && !strcmp(adv, "BREAKING")) {
		fl->break_to = strcmp(rw, "READ") ? F_UNLCK : F_RDLCK, fl->has_break_to = 1;
		strcpy(rw, "READ"); /* the type before the break: the restore takes it from the access mode */
	}
	if ((strcmp(adv, "ADVISORY") && fl->kind != FILE_LOCK_KIND__FL_LEASE) ||
	    (strcmp(rw, "READ") && strcmp(rw, "WRITE")))
		return cr_fail(e, "fd %d (%s) holds a %s %s %s lock, not supported", fd, target, kind, adv,
			       rw);
	fl->has_kind = 1;
	fl->fd = fd, fl->has_fd = 1;
	fl->write = !strcmp(rw, "WRITE"), fl->has_write = 1;
	fl->start = start, fl->has_start = 1;
	fl->len = strcmp(end, "EOF") ? strtoull(end, NULL, 10) - start + 1 : 0, fl->has_len = 1;
	pr_info("fd %d (%s): %s %s lock, start %llu len %llu\n", fd, target, kind_name(fl->kind), rw,
		(unsigned long long)fl->start, (unsigned long long)fl->len);
	return 0;
}

static int fd_locks(struct dump_ctx *c, int fd, struct lock_list *ll, struct cr_err *e)
{
	char path[64], line[256];
	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", c->pid, fd);
	__cleanup_fclose FILE *f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? 0 : cr_fail_sys(e, "open %s", path);
	bool first = true;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "lock:", 5))
			continue;
		line[strcspn(line, "\n")] = '\0';
		if (first) {
			if (seen_desc(c, ll, fd))
				return 0; /* a dup: its description's locks are listed already */
			int *nf = realloc(ll->fds, (ll->nfds + 1) * sizeof(*nf));
			if (!nf)
				return cr_fail_errno(e, ENOMEM, "out of memory");
			ll->fds = nf;
			ll->fds[ll->nfds++] = fd;
			first = false;
		}
		FileLockEntry *nl = realloc(ll->l, (ll->n + 1) * sizeof(*nl));
		if (!nl)
			return cr_fail_errno(e, ENOMEM, "out of memory");
		ll->l = nl;
		if (parse_lock(c, fd, line, &ll->l[ll->n], e))
			return -1;
		ll->n++;
	}
	return 0;
}

static int write_locks(struct dump_ctx *c, const struct lock_list *ll, struct cr_err *e)
{
	struct img_writer *w;
	if (img_create(c->dirfd, IMG_FILE_LOCKS, c->pid, &w, e))
		return -1;
	for (size_t i = 0; i < ll->n; i++)
		if (img_write_or_drop(w, &ll->l[i].base, e))
			return -1;
	if (img_commit(w, e))
		return -1;
	return dump_created(c, IMG_FILE_LOCKS, c->pid, e);
}

int dump_locks_write(struct dump_ctx *c, struct cr_err *e)
{
	char path[64];
	struct lock_list ll = {0};
	int ret = 0;
	if (c->fds_read && !c->fd_locks)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/fdinfo", c->pid);
	__cleanup_closedir DIR *d = opendir(path);
	if (!d)
		return cr_fail_sys(e, "open %s", path);
	struct dirent *de;
	while (!ret && (de = readdir(d)))
		if (de->d_name[0] != '.')
			ret = fd_locks(c, atoi(de->d_name), &ll, e);
	if (!ret && ll.n)
		ret = write_locks(c, &ll, e);
	free(ll.l);
	free(ll.fds);
	return ret;
}
