/* Open namespace files (/proc/PID/ns/KIND, "net:[INO]"): an fd of one of the task's own namespaces is saved
 * by its kind, and opened again by the task from /proc/self/ns/KIND once it is in its restored namespaces
 * (the fd table is made after the namespaces: ns/README.md). A network namespace file of another of the
 * tree's network namespaces (ns/net-multi.c saved them all) becomes at restore FILE_INHERIT of crshim's fd of
 * the restored one (rst_nsfile_prepare); one of crshim's own is refused. A namespace file of any other
 * namespace of another kind (another process's, one left by unshare, pid_for_children) is refused at dump
 * with one line, and so are the user and
 * time namespace files of a tree with such a namespace of its own (the task enters its user namespace after
 * its fds; a time namespace is entered through time_for_children, so not checked to be the task's yet). */
#define LOG_PREFIX "nsfile: "
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fd.h"
#include "base/log.h"
#include "dump.h"
#include "files/ghost.h"
#include "files/fd-kind.h"
#include "restore.h"

static const char *const kinds[] = {"net", "uts", "ipc", "mnt", "pid", "cgroup", "time", "user"};
#define NR_KINDS (sizeof(kinds) / sizeof(kinds[0]))

/* "net:[4026531840]": the index of its kind and its inode, or -1 */
static int parse(const char *link, uint64_t *ino)
{
	for (size_t i = 0; i < NR_KINDS; i++) {
		size_t l = strlen(kinds[i]);
		if (!strncmp(link, kinds[i], l) && link[l] == ':' && link[l + 1] == '[' &&
		    sscanf(link + l + 2, "%" SCNu64 "]", ino) == 1)
			return (int)i;
	}
	return -1;
}

static bool is_nsfile(const struct dump_ctx *c, const struct fd_src *f)
{
	uint64_t ino;
	return S_ISREG(f->st.st_mode) && parse(f->link, &ino) >= 0;
}

/* the inode of /proc/PID/ns/KIND (PID 0: crshim), 0 if it cannot be read */
static uint64_t ns_ino(pid_t pid, const char *kind)
{
	char p[64];
	struct stat st;
	if (pid)
		snprintf(p, sizeof(p), "/proc/%d/ns/%s", (int)pid, kind);
	else
		snprintf(p, sizeof(p), "/proc/self/ns/%s", kind);
	return stat(p, &st) ? 0 : (uint64_t)st.st_ino;
}

struct nsfile_priv {
	NsfileEntry e;
};

static int dump_nsfile(struct dump_ctx *c, struct fd_src *f, void **state, FileEntry *fe, struct cr_err *e)
{
	uint64_t ino = 0;
	int k = parse(f->link, &ino);
	if (k < 0)
		return 1;
	const char *kind = kinds[k];
	bool net = !strcmp(kind, "net"); /* another of the tree's (ns/net-multi.c saved it), not crshim's */
	if (net && ns_ino(c->pid, kind) != ino && ino == ns_ino(0, kind))
		return cr_fail(
		    e,
		    "fd %d is the namespace file %s of crshim's own network namespace, outside the "
		    "tree: not supported",
		    f->fd, f->link);
	if (!net && ns_ino(c->pid, kind) != ino)
		return cr_fail(
		    e, "fd %d is the namespace file %s, not the task's own %s namespace: not supported",
		    f->fd, f->link, kind);
	if ((!strcmp(kind, "user") || !strcmp(kind, "time")) && ino != ns_ino(0, kind))
		return cr_fail(
		    e, "fd %d is the namespace file %s of the tree's own %s namespace: not supported yet",
		    f->fd, f->link, kind);
	struct nsfile_priv *p = calloc(1, sizeof(*p));
	if (!p)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	nsfile_entry__init(&p->e);
	p->e.kind = (char *)kind;
	p->e.ino = ino, p->e.has_ino = 1;
	p->e.flags = f->fi.flags, p->e.has_flags = 1;
	f->priv = p;
	fe->kind = FILE_KIND__FILE_NSFILE, fe->has_kind = 1;
	fe->nsfile = &p->e;
	pr_debug("fd %d of task %d: its own %s namespace (%s)\n", f->fd, c->pid, kind, f->link);
	return 0;
}

static void release_nsfile(FileEntry *fe, struct fd_src *f)
{
	free(f->priv);
	f->priv = NULL;
	fe->nsfile = NULL;
}

static int check_nsfile(const struct rst_task *t, const FileEntry *f, const FdinfoEntry *fi, struct cr_err *e)
{
	for (size_t i = 0; f->nsfile && f->nsfile->kind && i < NR_KINDS; i++)
		if (!strcmp(f->nsfile->kind, kinds[i]))
			return 0;
	return cr_fail_errno(e, EBADMSG, "fd %d: a namespace file of kind %s", fi->fd,
			     f->nsfile && f->nsfile->kind ? f->nsfile->kind : "(none)");
}

static int open_nsfile(struct rst_task *t, int lo, const FileEntry *f, const FdinfoEntry *fi, char *msg,
		       size_t len)
{
	char p[64]; /* (through crshim's /proc in a mount tree without one: files/ghost.h) */
	snprintf(p, sizeof(p), "ns/%s", f->nsfile->kind);
	int fd = rst_self_proc_open(p, (int)(f->nsfile->flags & (O_ACCMODE | O_NONBLOCK)) | O_CLOEXEC);
	if (fd < 0)
		snprintf(msg, len, "open /proc/self/%s: %s", p, strerror(errno));
	return rst_fd_made_at(fd, fi->fd, "namespace file", msg, len);
}

int rst_nsfile_prepare(struct rst_task *ts, size_t n, struct cr_err *e)
{
	for (size_t k = 0; k < n; k++)
		for (size_t i = 0; i < ts[k].nr_files; i++) {
			FileEntry *f = ts[k].files[i];
			if (f->kind != FILE_KIND__FILE_NSFILE || !f->nsfile || !f->nsfile->kind ||
			    strcmp(f->nsfile->kind, "net") || !f->nsfile->has_ino)
				continue;
			int fd = ns_rst_net_fd(ts[0].ns, f->nsfile->ino);
			char desc[48];
			snprintf(desc, sizeof(desc), "net:[%" PRIu64 "]", f->nsfile->ino);
			if (fd >= 0 && rst_file_inherit(&ts[k], f, fd, desc, e))
				return -1;
			if (fd >= 0)
				pr_debug("task %d: %s is the restored network namespace at crshim's fd %d\n",
					 ts[k].pid, desc, fd);
		}
	return 0;
}

FD_KIND(fdk_nsfile) = {
    .name = "nsfile",
    .kind = FILE_KIND__FILE_NSFILE,
    .prio = 75,
    .is = is_nsfile,
    .dump = dump_nsfile,
    .release = release_nsfile,
    .check = check_nsfile,
    .open = open_nsfile,
};
