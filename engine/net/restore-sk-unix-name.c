/* Restore of unix sockets (see sk-unix.h): names. A socket bound to its name again: an abstract one as it is,
 * a path relative to the cwd of the task that bound it, a stale socket file left there removed, a deleted one
 * bound where it was and moved aside (its directories made again if they went too); the socket files (and
 * directories) this restore made removed if it fails. Connect by name, by the process the other end's
 * SO_PEERCRED names. */
#define LOG_PREFIX "restore-sk-unix: "
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/log.h"
#include "net/sk-unix.h"

socklen_t usk_mk_addr(const ProtobufCBinaryData *name, struct sockaddr_un *a)
{
	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	size_t l = name->len > sizeof(a->sun_path) ? sizeof(a->sun_path) : name->len;
	memcpy(a->sun_path, name->data, l);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + l);
}

const char *usk_sk_name(const UnixSkEntry *u, char *buf, size_t len)
{
	if (!u->has_name || !u->name.len)
		return "(unnamed)";
	const char *p = (const char *)u->name.data;
	snprintf(buf, len, "%s%.*s", p[0] ? "" : "@", (int)(p[0] ? u->name.len : u->name.len - 1),
		 p[0] ? p : p + 1);
	return buf;
}

/* The socket file at r's path is left over (nobody is bound to it any more): a connect is refused. */
static bool stale(const struct rsk *r)
{
	int fd = socket(AF_UNIX, (int)r->u->type | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return false;
	bool refused = connect(fd, (const struct sockaddr *)&r->addr, r->alen) && errno == ECONNREFUSED;
	close(fd);
	return refused;
}

/* The socket file just bound at r's path (in the cwd): its absolute path and inode, for a failed restore. */
static int remember_file(struct rsk *r, struct cr_err *e)
{
	struct stat st;
	char cwd[PATH_MAX], dir[sizeof(r->addr.sun_path) + 1];
	const char *p = r->addr.sun_path, *slash = strrchr(p, '/');
	if (lstat(p, &st))
		return cr_fail_sys(e, "socket:[%u]: stat %s after bind", r->ino, p);
	if (p[0] != '/' && !getcwd(cwd, sizeof(cwd)))
		return cr_fail_sys(e, "socket:[%u]: getcwd", r->ino);
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - p) + 1 : 1, slash ? p : ".");
	r->made_dir = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (r->made_dir < 0)
		return cr_fail_sys(e, "socket:[%u]: open the directory of %s", r->ino, p);
	if (asprintf(&r->made, "%s%s%s", p[0] == '/' ? "" : cwd, p[0] == '/' ? "" : "/", p) < 0) {
		r->made = NULL;
		return cr_fail_errno(e, ENOMEM, "out of memory");
	}
	r->made_dev = st.st_dev;
	r->made_ino = st.st_ino;
	return 0;
}

/* A failed restore: the socket files it bound go again (those still there as it made them), through their
 * directory (a tree's own mount tree is not crshim's). */
static void unlink_made(struct rsk *r)
{
	struct stat st;
	const char *base = strrchr(r->made, '/') + 1;
	if (!fstatat(r->made_dir, base, &st, AT_SYMLINK_NOFOLLOW) && S_ISSOCK(st.st_mode) &&
	    st.st_dev == r->made_dev && st.st_ino == r->made_ino) {
		if (unlinkat(r->made_dir, base, 0))
			pr_warn("socket:[%u]: unlink %s: %s\n", r->ino, r->made, strerror(errno));
		else
			pr_info("socket:[%u]: %s removed (restore failed)\n", r->ino, r->made);
	}
}

/* The directories of r's path that are missing (removed with the deleted socket file) are made (0700),
 * listed in r->dirs (absolute); 0 if any was made. */
static int make_dirs(struct rsk *r)
{
	char p[sizeof(r->addr.sun_path) + 1], cwd[PATH_MAX] = "";
	snprintf(p, sizeof(p), "%s", r->addr.sun_path);
	if (p[0] != '/' && !getcwd(cwd, sizeof(cwd)))
		return -1;
	for (char *s = strchr(p + 1, '/'); s && r->ndirs < (int)ARRAY_SIZE(r->dirs); s = strchr(s + 1, '/')) {
		*s = '\0';
		if (!mkdir(p, 0700) && asprintf(&r->dirs[r->ndirs], "%s%s%s", cwd, cwd[0] ? "/" : "", p) >= 0)
			r->ndirs++;
		*s = '/';
	}
	return r->ndirs ? 0 : -1;
}

void usk_rm_dirs(struct rsk *r)
{
	while (r->ndirs > 0) {
		char *d = r->dirs[--r->ndirs];
		if (rmdir(d))
			pr_warn("socket:[%u]: rmdir %s: %s\n", r->ino, d, strerror(errno));
		free(d);
	}
}

/* A failed restore: every socket file it bound, then the directories it made for them (several sockets may
 * share one), those made last first. */
void usk_unlink_all_made(void)
{
	for (size_t i = 0; i < usk_nsks; i++) {
		if (usk_sks[i].made)
			unlink_made(&usk_sks[i]);
		free(usk_sks[i].made);
		usk_sks[i].made = NULL;
	}
	for (size_t i = usk_nsks; i-- > 0;)
		usk_rm_dirs(&usk_sks[i]);
}

/* A deleted socket is bound at its own path, so that its name stays, and its file then moved to a name of
 * its own (PATH.crshim-PID-INO: several deleted sockets once bound at one path each get one) where its
 * peers connect to it, unlinked in the end. A file at that path (a live socket, another file) is moved
 * aside for the bind and put back. r->addr becomes the file's new name. */
static int bind_deleted(struct rsk *r, bool taken, struct cr_err *e)
{
	char path[sizeof(r->addr.sun_path) + 1], aside[PATH_MAX], tmp[sizeof(r->addr.sun_path)];
	snprintf(path, sizeof(path), "%.*s", (int)sizeof(r->addr.sun_path), r->addr.sun_path);
	int n = snprintf(tmp, sizeof(tmp), "%s.crshim-%d-%u", path, (int)getpid(), r->ino);
	if (n < 0 || (size_t)n >= sizeof(tmp))
		return cr_fail_errno(e, ENAMETOOLONG, "socket:[%u]: %s: no room for a temporary name", r->ino,
				     path);
	snprintf(aside, sizeof(aside), "%s-aside", tmp);
	if (taken && renameat2(AT_FDCWD, path, AT_FDCWD, aside, RENAME_NOREPLACE))
		return cr_fail_sys(e, "socket:[%u]: move %s aside to bind the deleted socket there", r->ino,
				   path);
	int b = bind(r->fd, (struct sockaddr *)&r->addr, r->alen), err = errno;
	if (b && err == ENOENT && !taken && !make_dirs(r)) /* its directory was removed too */
		b = bind(r->fd, (struct sockaddr *)&r->addr, r->alen), err = errno;
	if (!b && renameat2(AT_FDCWD, path, AT_FDCWD, tmp, RENAME_NOREPLACE)) {
		b = -1, err = errno;
		unlink(path);
	}
	if (taken && rename(aside, path))
		pr_warn("socket:[%u]: put %s back from %s: %s\n", r->ino, path, aside, strerror(errno));
	if (b)
		return cr_fail_errno(e, err, "socket:[%u]: bind the deleted socket to %s (file %s)", r->ino,
				     path, tmp);
	memcpy(r->addr.sun_path, tmp, (size_t)n + 1);
	r->alen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + (size_t)n + 1);
	return 0;
}

/* A path name: a stale socket file left by the dumped task is removed; a deleted one is bound where it
 * was (bind_deleted) and unlinked at the end. */
static int bind_path(struct rsk *r, struct cr_err *e)
{
	const UnixSkEntry *u = r->u;
	struct stat st;
	char nb[128];
	bool taken = !lstat(r->addr.sun_path, &st);
	if (taken && !u->deleted) {
		if (S_ISSOCK(st.st_mode) && stale(r)) {
			unlink(r->addr.sun_path);
		} else if (S_ISSOCK(st.st_mode)) {
			return cr_fail_errno(e, EADDRINUSE,
					     "socket:[%u]: bind to %s: a live socket is bound there", r->ino,
					     usk_sk_name(u, nb, sizeof(nb)));
		} else {
			return cr_fail_errno(e, EADDRINUSE,
					     "socket:[%u]: bind to %s: a file that is not a socket is there",
					     r->ino, usk_sk_name(u, nb, sizeof(nb)));
		}
	}
	if (u->deleted) {
		if (bind_deleted(r, taken, e))
			return -1;
	} else if (bind(r->fd, (struct sockaddr *)&r->addr, r->alen)) {
		return cr_fail_sys(e, "socket:[%u]: bind to %s", r->ino, r->addr.sun_path);
	}
	if (remember_file(r, e))
		return -1;
	r->unlink_after = u->deleted;
	if (u->has_file_mode && chmod(r->addr.sun_path, u->file_mode))
		return cr_fail_sys(e, "socket:[%u]: chmod %s", r->ino, r->addr.sun_path);
	if (u->has_file_uid && u->has_file_gid && chown(r->addr.sun_path, u->file_uid, u->file_gid))
		return cr_fail_sys(e, "socket:[%u]: chown %s", r->ino, r->addr.sun_path);
	return 0;
}

int usk_do_bind(struct rsk *r, struct cr_err *e)
{
	const UnixSkEntry *u = r->u;
	if (!u->has_name || !u->name.len)
		return 0;
	r->alen = usk_mk_addr(&u->name, &r->addr);
	if (!r->addr.sun_path[0]) {
		if (bind(r->fd, (struct sockaddr *)&r->addr, r->alen))
			return cr_fail_sys(e, "socket:[%u]: bind to the abstract name @%.*s", r->ino,
					   (int)u->name.len - 1, r->addr.sun_path + 1);
		return 0;
	}
	__cleanup_close int here = -1;
	if (r->addr.sun_path[0] != '/' && u->cwd) { /* relative to the task's cwd */
		here = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (here < 0 || chdir(u->cwd))
			return cr_fail_sys(e, "socket:[%u]: chdir %s to bind %s", r->ino, u->cwd,
					   r->addr.sun_path);
	}
	int ret = bind_path(r, e);
	if (here >= 0 && fchdir(here) && !ret)
		ret = cr_fail_sys(e, "fchdir back");
	return ret;
}

/* A relative path name is relative to the cwd of the task that bound it (dir): go there for the call. */
int usk_enter(const char *dir, const struct sockaddr_un *a)
{
	if (!dir || !a->sun_path[0] || a->sun_path[0] == '/')
		return -1;
	int here = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (here >= 0 && chdir(dir)) {
		close(here);
		return -1;
	}
	return here;
}

void usk_leave(int here)
{
	if (here >= 0) {
		if (fchdir(here))
			pr_warn("fchdir back: %s\n", strerror(errno));
		close(here);
	}
}

struct connect_call {
	int fd;
	const struct sockaddr_un *a;
	socklen_t alen;
};

static int connect_fn(void *arg)
{
	const struct connect_call *cc = arg;
	return connect(cc->fd, (const struct sockaddr *)cc->a, cc->alen);
}

/* Connect c to a (relative to dir); by the process that as's SO_PEERCRED names (as: the other end of the
 * connection; NULL: crshim). */
int usk_connect_to(struct rsk *c, const struct sockaddr_un *a, socklen_t alen, const char *dir,
		   const struct rsk *as, struct cr_err *e)
{
	struct connect_call cc = {c->fd, a, alen};
	int fl = fcntl(c->fd, F_GETFL);
	fcntl(c->fd, F_SETFL, fl | O_NONBLOCK);
	int here = usk_enter(dir, a);
	int r = as ? usk_as_peer(as->ct, as->cu, connect_fn, &cc, SRV_CONNECT, c->fd, 0, a, alen)
		   : connect_fn(&cc);
	int err = errno;
	usk_leave(here);
	fcntl(c->fd, F_SETFL, fl);
	if (r)
		return cr_fail_errno(e, err, "socket:[%u]: connect to %s%s", c->ino,
				     a->sun_path[0] ? "" : "@",
				     a->sun_path[0] ? a->sun_path : a->sun_path + 1);
	return 0;
}
