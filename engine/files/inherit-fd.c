/* --inherit-fd and --external (see inherit-fd.h): key syntax, external files at dump, inherited fds at
 * restore. */
#define LOG_PREFIX "inherit-fd: "
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "files/inherit-fd.h"
#include "base/log.h"
#include "restore.h"

enum ikey_kind { IKEY_PIPE, IKEY_SOCKET, IKEY_FILE, IKEY_TTY, IKEY_PATH };

struct ikey {
	enum ikey_kind kind;
	uint64_t a, b; /* pipe/socket: inode; file: mnt_id, inode; tty: rdev, dev */
	const char *s; /* path: without its leading slash */
};

/* A number in base at *p (digits only, no sign), *p moved past it. */
static int parse_num(const char **p, int base, uint64_t *v)
{
	const char *s = *p;
	char *end;
	if (!((*s >= '0' && *s <= '9') ||
	      (base == 16 && ((*s >= 'a' && *s <= 'f') || (*s >= 'A' && *s <= 'F')))))
		return -1;
	errno = 0;
	unsigned long long n = strtoull(s, &end, base);
	if (errno || end == s)
		return -1;
	*v = n;
	*p = end;
	return 0;
}

/* "[A]" or "[A:B]" (two = true) at p, to the end of the string; base of the numbers. */
static int parse_id(const char *p, int base, bool two, uint64_t *a, uint64_t *b)
{
	if (*p++ != '[' || parse_num(&p, base, a))
		return -1;
	if (two && (*p++ != ':' || parse_num(&p, base, b)))
		return -1;
	return *p == ']' && p[1] == '\0' ? 0 : -1;
}

static bool prefix(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

/* KEY of --inherit-fd; -1 if malformed. */
static int parse_key(const char *k, struct ikey *out)
{
	*out = (struct ikey){IKEY_PATH, 0, 0, NULL};
	if (prefix(k, "pipe:[") || prefix(k, "pipe[")) {
		out->kind = IKEY_PIPE;
		return parse_id(k + (k[4] == ':' ? 5 : 4), 10, false, &out->a, NULL);
	}
	if (prefix(k, "socket:[") || prefix(k, "socket[")) {
		out->kind = IKEY_SOCKET;
		return parse_id(k + (k[6] == ':' ? 7 : 6), 10, false, &out->a, NULL);
	}
	if (prefix(k, "file[")) {
		out->kind = IKEY_FILE;
		return parse_id(k + 4, 16, true, &out->a, &out->b);
	}
	if (prefix(k, "tty[")) {
		out->kind = IKEY_TTY;
		return parse_id(k + 3, 16, true, &out->a, &out->b);
	}
	while (*k == '/')
		k++;
	out->s = k;
	return *k ? 0 : -1;
}

/* "fd[N]:KEY" -> N, KEY; -1 if malformed. */
static int parse_inherit(const char *arg, int *fd, struct ikey *k)
{
	const char *p = arg;
	uint64_t n;
	if (!prefix(p, "fd[") || (p += 3, parse_num(&p, 10, &n)) || n > 0x7fffffff || strncmp(p, "]:", 2))
		return -1;
	*fd = (int)n;
	return parse_key(p + 2, k);
}

/* The CRIU types of --external that name no open file: accepted, nothing to do here. */
static bool ext_other(const char *type, size_t len)
{
	static const char *const other[] = {"mnt", "dev", "net", "pid", "veth", "netdev", "macvlan"};
	for (size_t i = 0; i < sizeof(other) / sizeof(other[0]); i++)
		if (strlen(other[i]) == len && !strncmp(type, other[i], len))
			return true;
	return false;
}

/* "TYPE[ID]": file[MNT_ID:INODE], tty[RDEV:DEV] (hex), unix[INO]; k->kind IKEY_PATH for the other types.
 * -1 malformed, -2 unknown type. */
static int parse_external(const char *arg, struct ikey *k)
{
	const char *br = strchr(arg, '[');
	*k = (struct ikey){IKEY_PATH, 0, 0, NULL};
	if (!br || br == arg || !strchr(br, ']'))
		return -1;
	if (prefix(arg, "file["))
		return k->kind = IKEY_FILE, parse_id(br, 16, true, &k->a, &k->b);
	if (prefix(arg, "tty["))
		return k->kind = IKEY_TTY, parse_id(br, 16, true, &k->a, &k->b);
	if (prefix(arg, "unix["))
		return k->kind = IKEY_SOCKET, parse_id(br, 10, false, &k->a, NULL);
	return ext_other(arg, (size_t)(br - arg)) ? 0 : -2;
}

int eng_ext_check(const struct cr_opts *o, struct cr_err *e)
{
	struct ikey k;
	int fd;
	for (int i = 0; i < o->n_inherit_fd; i++)
		if (parse_inherit(o->inherit_fd[i], &fd, &k))
			return cr_fail(
			    e,
			    "--inherit-fd %s: malformed (want fd[N]:KEY, KEY one of pipe:[INO], "
			    "socket:[INO], file[MNT_ID:INODE], tty[RDEV:DEV] or a path without its "
			    "leading slash)",
			    o->inherit_fd[i]);
	for (int i = 0; i < o->n_external; i++) {
		int r = parse_external(o->external[i], &k);
		if (r == -2)
			return cr_fail(e,
				       "--external %s: unknown type (file[MNT_ID:INODE], unix[INO], "
				       "tty[RDEV:DEV], mnt[..], dev[..], net[..], pid[..], veth[..], "
				       "netdev[..], macvlan[..])",
				       o->external[i]);
		if (r)
			return cr_fail(
			    e,
			    "--external %s: malformed (want file[MNT_ID:INODE] or tty[RDEV:DEV] in "
			    "hex, unix[INO] in decimal)",
			    o->external[i]);
		if (k.kind == IKEY_PATH)
			pr_info("--external %s: not a file, no effect on the files\n", o->external[i]);
	}
	return 0;
}

/* ---------------------------------------------------------------- dump */

/* The --external key of kind kind matching a, b; NULL if none. */
static const char *ext_find(const struct cr_opts *o, enum ikey_kind kind, uint64_t a, uint64_t b)
{
	struct ikey k;
	for (int i = 0; i < o->n_external; i++)
		if (!parse_external(o->external[i], &k) && k.kind == kind && k.a == a &&
		    (kind == IKEY_SOCKET || k.b == b))
			return o->external[i];
	return NULL;
}

int dump_ext_file(const struct cr_opts *o, int fd, const struct stat *st, int mnt_id, const char *link,
		  FileEntry *fe, char *buf, size_t len)
{
	bool tty = S_ISCHR(st->st_mode) && ext_find(o, IKEY_TTY, (uint64_t)st->st_rdev, (uint64_t)st->st_dev);
	if (tty)
		snprintf(buf, len, "tty[%" PRIx64 ":%" PRIx64 "]", (uint64_t)st->st_rdev,
			 (uint64_t)st->st_dev);
	else if (mnt_id >= 0 && ext_find(o, IKEY_FILE, (uint64_t)mnt_id, (uint64_t)st->st_ino))
		snprintf(buf, len, "file[%x:%" PRIx64 "]", (unsigned)mnt_id, (uint64_t)st->st_ino);
	else
		return 1;
	fe->kind = FILE_KIND__FILE_INHERIT, fe->has_kind = 1;
	fe->ext_key = buf;
	fe->inherit_desc = (char *)link;
	pr_info("fd %d (%s) is external (%s): not saved, restore it with --inherit-fd fd[N]:%s\n", fd, link,
		tty ? "a terminal" : "a file", buf);
	return 0;
}

bool dump_ext_unix(const struct cr_opts *o, uint32_t ino)
{
	return ext_find(o, IKEY_SOCKET, ino, 0) != NULL;
}

/* The kind of key entry f can be named by (its own fields, not ext_key), or -1 if none. */
static int keyable(const FileEntry *f)
{
	switch (f->kind) {
	case FILE_KIND__FILE_PIPE:
		return f->pipe ? IKEY_PIPE : -1;
	case FILE_KIND__FILE_UNIXSK:
		return f->unix_sk ? IKEY_SOCKET : -1;
	case FILE_KIND__FILE_TTY:
		return f->tty && !f->tty->master && f->tty->has_dev ? IKEY_TTY : -1;
	case FILE_KIND__FILE_REG:
	case FILE_KIND__FILE_FIFO:
	case FILE_KIND__FILE_CHR:
		return f->reg && f->reg->path ? IKEY_PATH : -1;
	default:
		return -1;
	}
}

/* The key of entry f in buf ("" if it has none). */
static void key_of(const FileEntry *f, char *buf, size_t len)
{
	buf[0] = '\0';
	if (f->ext_key) {
		snprintf(buf, len, "%s", f->ext_key);
		return;
	}
	switch (keyable(f)) {
	case IKEY_PIPE:
		snprintf(buf, len, "pipe:[%" PRIu64 "]", f->pipe->pipe_id);
		break;
	case IKEY_SOCKET:
		snprintf(buf, len, "socket:[%u]", f->unix_sk->ino);
		break;
	case IKEY_TTY:
		snprintf(buf, len, "tty[%" PRIx64 ":%" PRIx64 "]", f->tty->rdev, f->tty->dev);
		break;
	case IKEY_PATH:
		snprintf(buf, len, "%s", f->reg->path + (f->reg->path[0] == '/'));
		break;
	default:
		break;
	}
}

void dump_key_log(pid_t pid, int fd, const FileEntry *fe)
{
	char key[4200];
	key_of(fe, key, sizeof(key));
	if (key[0])
		pr_info("task %d fd %d: key for --inherit-fd: %s\n", pid, fd, key);
}

/* ---------------------------------------------------------------- restore */

static bool entry_matches(const FileEntry *f, const struct ikey *k)
{
	struct ikey x;
	if (f->ext_key && !f->has_inherit_fd)
		return !parse_key(f->ext_key, &x) && x.kind == k->kind && x.a == k->a && x.b == k->b &&
		       k->kind != IKEY_PATH;
	if (keyable(f) != (int)k->kind)
		return false;
	switch (k->kind) {
	case IKEY_PIPE:
		return f->pipe->pipe_id == k->a;
	case IKEY_SOCKET:
		return f->unix_sk->ino == k->a;
	case IKEY_TTY:
		return f->tty->rdev == k->a && f->tty->dev == k->b;
	case IKEY_PATH:
		return !strcmp(f->reg->path + (f->reg->path[0] == '/'), k->s);
	case IKEY_FILE:
		break;
	}
	return false;
}

/* A pipe key and crshim's fd of access mode acc: only the entries of the same end, if the task had one. */
static bool end_ok(const FileEntry *f, int acc, bool ends)
{
	if (!ends || acc == O_RDWR || f->kind != FILE_KIND__FILE_PIPE)
		return true;
	return (int)(f->pipe->flags & O_ACCMODE) == acc;
}

int rst_file_inherit(const struct rst_task *t, FileEntry *f, int fd, const char *desc, struct cr_err *e)
{
	char *d = img_arena_strdup(t->farena, desc); /* (the old one stays there) */
	if (!d)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	if (!t->farena)
		free(f->inherit_desc);
	f->inherit_desc = d;
	f->kind = FILE_KIND__FILE_INHERIT, f->has_kind = 1;
	f->inherit_fd = fd, f->has_inherit_fd = 1;
	return 0;
}

static int inherit_one(struct rst_task *t, const char *arg, struct cr_err *e)
{
	struct ikey k;
	int fd;
	if (parse_inherit(arg, &fd, &k))
		return cr_fail(e, "--inherit-fd %s: malformed", arg);
	const char *key = strchr(arg, ':') + 1;
	size_t any = 0, ends = 0;
	int fl = fcntl(fd, F_GETFL), acc = fl & O_ACCMODE;
	for (size_t i = 0; i < t->nr_files; i++)
		if (entry_matches(t->files[i], &k)) {
			any++;
			ends += end_ok(t->files[i], acc, true);
		}
	if (!any)
		return 0;
	if (fl < 0)
		return cr_fail_errno(e, EBADF, "--inherit-fd %s: crshim's fd %d is not open", arg, fd);
	if (k.kind == IKEY_PIPE && !ends)
		pr_warn(
		    "--inherit-fd %s: crshim's fd %d is not open for the %s end the task held: used anyway\n",
		    arg, fd, acc == O_RDONLY ? "write" : "read");
	for (size_t i = 0; i < t->nr_files; i++) {
		FileEntry *f = t->files[i];
		if (!entry_matches(f, &k) || !end_ok(f, acc, ends != 0))
			continue;
		if (rst_file_inherit(t, f, fd, key, e))
			return -1;
		pr_info("task %d: file id %u (%s) is inherited from crshim's fd %d\n", t->pid, f->id, key,
			fd);
	}
	return 0;
}

/* The first fd of task t on file id (-1 if none), for messages. */
static int fd_of(const struct rst_task *t, uint32_t id)
{
	for (size_t i = 0; i < t->nr_fdinfo; i++)
		if (t->fdinfo[i]->id == id)
			return t->fdinfo[i]->fd;
	return -1;
}

/* External entries that no --inherit-fd gave back. */
static int check_external(struct rst_task *t, struct cr_err *e)
{
	for (size_t i = 0; i < t->nr_files; i++) {
		const FileEntry *f = t->files[i];
		if (f->ext_key && f->kind == FILE_KIND__FILE_INHERIT && !f->has_inherit_fd)
			return cr_fail(e,
				       "fd %d of task %d (was %s) was dumped as external %s: restore with "
				       "--inherit-fd fd[N]:%s",
				       fd_of(t, f->id), t->pid, f->inherit_desc ? f->inherit_desc : "?",
				       f->ext_key, f->ext_key);
		if (f->kind == FILE_KIND__FILE_UNIXSK && f->unix_sk && f->unix_sk->external &&
		    !f->unix_sk->ext_peer)
			return cr_fail(
			    e,
			    "fd %d of task %d was dumped with --external unix[%u] and its peer has "
			    "no name to reconnect to: restore with --inherit-fd fd[N]:socket:[%u]",
			    fd_of(t, f->id), t->pid, f->unix_sk->ino, f->unix_sk->ino);
	}
	return 0;
}

int rst_inherit_prepare(const struct cr_opts *o, struct rst_task *t, struct cr_err *e)
{
	for (int i = 0; i < o->n_inherit_fd; i++)
		if (inherit_one(t, o->inherit_fd[i], e))
			return -1;
	return check_external(t, e);
}
