/* A session leader of the tree whose controlling terminal no process of the tree holds an fd of (the
 * terminal's holder is outside the tree) would come back without a controlling terminal: the dump refuses it
 * with one line, before anything is written. A pty counts as held when any fd of the tree is its slave or its
 * master (the restore makes the pair and gives the leader a slave of it). */
#define LOG_PREFIX "dump-ctty: "
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "base/cleanup.h"
#include "base/log.h"
#include "dump.h"

#define PTY_SLAVE_MAJOR_FIRST 136
#define PTY_SLAVE_MAJORS 8
#define TTYAUX_MAJOR 5
#define PTMX_MINOR 2

static bool pty_slave(dev_t d)
{
	return major(d) >= PTY_SLAVE_MAJOR_FIRST && major(d) < PTY_SLAVE_MAJOR_FIRST + PTY_SLAVE_MAJORS;
}

static long pty_index(dev_t slave)
{
	return ((long)major(slave) - PTY_SLAVE_MAJOR_FIRST) * 256 + (long)minor(slave);
}

/* The pty index of a ptmx fd (fdinfo tty-index), -1 if none. */
static long ptmx_index(pid_t pid, const char *fd)
{
	char path[320], buf[512];
	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%s", pid, fd);
	if (proc_read_small(path, buf, sizeof(buf)) < 0)
		return -1;
	const char *p = strstr(buf, "tty-index:");
	return p ? strtol(p + 10, NULL, 10) : -1;
}

/* Does task pid hold an fd of tty (a pty slave: also its master)? */
static bool holds_tty(pid_t pid, dev_t tty)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/fd", pid);
	__cleanup_closedir DIR *d = opendir(path);
	if (!d)
		return false;
	struct dirent *de;
	while ((de = readdir(d))) {
		struct stat st;
		if (de->d_name[0] == '.' || fstatat(dirfd(d), de->d_name, &st, 0) || !S_ISCHR(st.st_mode))
			continue;
		if (st.st_rdev == tty)
			return true;
		if (pty_slave(tty) && major(st.st_rdev) == TTYAUX_MAJOR && minor(st.st_rdev) == PTMX_MINOR &&
		    ptmx_index(pid, de->d_name) == pty_index(tty))
			return true;
	}
	return false;
}

int dump_ctty_check(const struct dump_ctx *cs, size_t n, struct cr_err *e)
{
	if (cs[0].o->shell_job)
		return 0; /* the terminal is the shell's, given back by the restore */
	for (size_t i = 0; i < n; i++) {
		const struct dump_ctx *c = &cs[i];
		const struct proc_stat *st = &c->stat; /* (read once the tree was stopped: seize-tree.c) */
		if (c->zombie)
			continue;
		int64_t nr = st->f[7];
		if (!nr || st->f[6] != c->pid)
			continue;
		dev_t tty =
		    makedev((unsigned)((nr >> 8) & 0xfff), (unsigned)((nr & 0xff) | ((nr >> 12) & 0xfff00)));
		bool held = false;
		for (size_t k = 0; k < n && !held; k++)
			held = !cs[k].zombie && holds_tty(cs[k].pid, tty);
		if (held)
			continue;
		char name[32];
		if (pty_slave(tty))
			snprintf(name, sizeof(name), "/dev/pts/%ld", pty_index(tty));
		else
			snprintf(name, sizeof(name), "tty %u:%u", major(tty), minor(tty));
		return cr_fail_errno(
		    e, ENOTSUP,
		    "task %d leads a session whose controlling terminal (%s) is outside the "
		    "tree (no process of the tree holds an fd of it): it would be restored without "
		    "it; not supported",
		    c->pid, name);
	}
	return 0;
}
