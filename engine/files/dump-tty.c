/* Dump of terminals (see tty.h): pty masters and slaves, their state, the controlling terminal. */
#define LOG_PREFIX "dump-tty: "
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sys/sysmacros.h>
#include <termios.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "dump.h"
#include "base/log.h"
#include "files/fd-kind.h"
#include "files/tty.h"

#ifndef TIOCGPTPEER
#define TIOCGPTPEER _IO('T', 0x41)
#endif

#ifndef DEVPTS_SUPER_MAGIC
#define DEVPTS_SUPER_MAGIC 0x1cd1
#endif
#define PTY_SLAVE_MAJOR_FIRST 136
#define PTY_SLAVE_MAJOR_LAST 143

static bool is_master(const struct stat *st)
{
	return S_ISCHR(st->st_mode) && major(st->st_rdev) == 5 && minor(st->st_rdev) == 2;
}

static bool is_slave(const struct stat *st)
{
	unsigned maj = major(st->st_rdev);
	return S_ISCHR(st->st_mode) && maj >= PTY_SLAVE_MAJOR_FIRST && maj <= PTY_SLAVE_MAJOR_LAST;
}

bool dump_tty_is_pty(const struct stat *st)
{
	return is_master(st) || is_slave(st);
}

static unsigned slave_index(dev_t rdev)
{
	return (major(rdev) - PTY_SLAVE_MAJOR_FIRST) * 256 + minor(rdev);
}

/* "tty-index:" of a /dev/ptmx open in /proc/PID/fdinfo/FD, -1 if none. */
static long fdinfo_tty_index(pid_t pid, const char *fd)
{
	char path[320], line[128];
	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%s", pid, fd);
	__cleanup_fclose FILE *f = fopen(path, "re");
	long idx = -1;
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "tty-index: %ld", &idx) == 1)
			break;
	return idx;
}

/* Does process pid hold the master of pty index of the devpts instance dev? A master opened through a
 * devpts's own ptmx node is in that instance; one opened through a /dev/ptmx device node elsewhere is taken
 * to be. */
static bool holds_master(pid_t pid, unsigned index, dev_t dev)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/fd", pid);
	__cleanup_closedir DIR *d = opendir(path);
	struct dirent *de;
	while (d && (de = readdir(d))) {
		char link[64], fpath[320];
		if (de->d_name[0] == '.')
			continue;
		snprintf(fpath, sizeof(fpath), "/proc/%d/fd/%s", pid, de->d_name);
		ssize_t n = readlink(fpath, link, sizeof(link) - 1);
		if (n <= 0)
			continue;
		link[n] = '\0';
		const char *base = strrchr(link, '/');
		struct stat st;
		struct statfs sf;
		if (!base || strcmp(base, "/ptmx") || fdinfo_tty_index(pid, de->d_name) != (long)index ||
		    stat(fpath, &st) || statfs(fpath, &sf))
			continue;
		if (sf.f_type != DEVPTS_SUPER_MAGIC || st.st_dev == dev)
			return true;
	}
	return false;
}

/* Search the tree under pid (frozen while we dump) for a holder of the master. */
static bool tree_holds_master(pid_t pid, unsigned index, dev_t dev, int depth)
{
	if (holds_master(pid, index, dev))
		return true;
	if (depth > 64)
		return false;
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	__cleanup_closedir DIR *d = opendir(path);
	struct dirent *de;
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char cpath[320];
		snprintf(cpath, sizeof(cpath), "/proc/%d/task/%s/children", pid, de->d_name);
		__cleanup_fclose FILE *f = fopen(cpath, "re");
		int child;
		while (f && fscanf(f, "%d", &child) == 1)
			if (tree_holds_master(child, index, dev, depth + 1))
				return true;
	}
	return false;
}

bool dump_tty_internal(const struct dump_ctx *c, const struct stat *st)
{
	if (is_master(st))
		return true;
	return is_slave(st) && tree_holds_master(c->o->pid, slave_index(st->st_rdev), st->st_dev, 0);
}

static int take_fd(pid_t pid, int fd, struct cr_err *e)
{
	__cleanup_close int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (pidfd < 0)
		return cr_fail_sys(e, "pidfd_open %d", pid);
	int cfd = (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0);
	if (cfd < 0)
		return cr_fail_sys(e, "pidfd_getfd %d fd %d", pid, fd);
	return cfd;
}

static void fill_termios(struct dump_tty_ent *te, const struct termios *t)
{
	TermiosEntry *o = &te->tio;
	o->iflag = t->c_iflag, o->has_iflag = 1;
	o->oflag = t->c_oflag, o->has_oflag = 1;
	o->cflag = t->c_cflag, o->has_cflag = 1;
	o->lflag = t->c_lflag, o->has_lflag = 1;
	o->line = t->c_line, o->has_line = 1;
	memcpy(te->cc, t->c_cc, NCCS);
	o->cc.data = te->cc, o->cc.len = NCCS, o->has_cc = 1;
	o->ispeed = (uint32_t)cfgetispeed(t), o->has_ispeed = 1;
	o->ospeed = (uint32_t)cfgetospeed(t), o->has_ospeed = 1;
	te->t.termios = o;
}

/* The state of the pair, through the copy cfd (either side: termios and window size are the slave's). */
static int fill_state(int cfd, bool master, struct dump_tty_ent *te, struct cr_err *e)
{
	TtyEntry *t = &te->t;
	struct termios tio;
	struct winsize ws;
	int v = 0;
	if (tcgetattr(cfd, &tio))
		return cr_fail_sys(e, "tcgetattr");
	fill_termios(te, &tio);
	if (ioctl(cfd, TIOCGWINSZ, &ws))
		return cr_fail_sys(e, "TIOCGWINSZ");
	te->ws = (WinsizeEntry)WINSIZE_ENTRY__INIT;
	te->ws.rows = ws.ws_row, te->ws.has_rows = 1;
	te->ws.cols = ws.ws_col, te->ws.has_cols = 1;
	te->ws.xpixel = ws.ws_xpixel, te->ws.has_xpixel = 1;
	te->ws.ypixel = ws.ws_ypixel, te->ws.has_ypixel = 1;
	t->winsize = &te->ws;
	if (master) {
		if (ioctl(cfd, TIOCGPKT, &v))
			return cr_fail_sys(e, "TIOCGPKT");
		t->packet = v != 0, t->has_packet = 1;
		if (ioctl(cfd, TIOCGPTLCK, &v))
			return cr_fail_sys(e, "TIOCGPTLCK");
		t->locked = v != 0, t->has_locked = 1;
	} else {
		if (ioctl(cfd, TIOCGEXCL, &v))
			return cr_fail_sys(e, "TIOCGEXCL");
		t->exclusive = v != 0, t->has_exclusive = 1;
	}
	return 0;
}

/* The queues of the entry being dumped: its bytes are in the entry until it is written (one at a time). */
static struct tty_queue dq;

static bool has_sys_admin(void)
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct d[2];
	if (syscall(SYS_capget, &h, d))
		return false;
	return d[CAP_SYS_ADMIN / 32].effective & (1u << (CAP_SYS_ADMIN % 32));
}

/* Each file of the pty s (our open) with O_ASYNC, in any process, to fn(arg, pid, fd) until it returns true.
 */
static void async_walk(int s, bool (*fn)(void *arg, int pid, int fd), void *arg)
{
	struct stat ss, st;
	char path[300], line[128];
	bool stop = false;
	__cleanup_closedir DIR *proc = opendir("/proc");
	struct dirent *p, *f;
	if (fstat(s, &ss) || !proc)
		return;
	while (!stop && (p = readdir(proc))) {
		int n = atoi(p->d_name);
		snprintf(path, sizeof(path), "/proc/%d/fd", n);
		__cleanup_closedir DIR *fds = n > 0 ? opendir(path) : NULL;
		while (fds && !stop && (f = readdir(fds))) {
			snprintf(path, sizeof(path), "/proc/%d/fd/%s", n, f->d_name);
			if (stat(path, &st) || st.st_rdev != ss.st_rdev || st.st_dev != ss.st_dev)
				continue;
			snprintf(path, sizeof(path), "/proc/%d/fdinfo/%s", n, f->d_name);
			__cleanup_fclose FILE *fi = fopen(path, "re");
			unsigned flags = 0;
			while (fi && !stop && fgets(line, sizeof(line), fi))
				if (sscanf(line, "flags: %o", &flags) == 1 && (flags & O_ASYNC))
					stop = fn(arg, n, atoi(f->d_name));
		}
	}
}

static bool first_holder(void *arg, int pid, int fd)
{
	int *h = arg;
	h[0] = pid, h[1] = fd;
	return true;
}

/* A file of the pty s (our open) with O_ASYNC, in any process: *pid and *fd name it (0: none). */
static void async_holder(int s, int *pid, int *fd)
{
	int h[2] = {0, 0};
	async_walk(s, first_holder, h);
	*pid = h[0], *fd = h[1];
}

/* The files of a pty pair held with O_ASYNC and an owner, quiet (O_ASYNC off) while the dump moves the
 * queues: putting them back wakes the readers, which would send each such owner a SIGIO (POLL_IN) it did not
 * have before. Set again after: the kernel keeps the owner; the signal's si_fd (F_SETSIG) is the number
 * O_ASYNC is set through, so with a signal of its own it is set through the holder's number, in a child. */
#define QUIET_MAX 32
struct tty_quiet {
	struct {
		int copy, fd,
		    sig; /* our copy of the file (the same description), the holder's number, F_GETSIG */
	} q[QUIET_MAX];
	size_t n;
	int err; /* errno of a failure */
};

/* Make copy (ours: taken) quiet if it has O_ASYNC and an owner; fd: the holder's number. */
static void quiet_one(struct tty_quiet *qs, int copy, int fd)
{
	struct f_owner_ex own = {0};
	int fl = fcntl(copy, F_GETFL);
	if (fl < 0 || !(fl & O_ASYNC) || fcntl(copy, F_GETOWN_EX, &own) || !own.pid) {
		close(copy); /* (no owner: its SIGIO goes nowhere) */
		return;
	}
	if (qs->n == QUIET_MAX || fcntl(copy, F_SETFL, fl & ~O_ASYNC)) {
		qs->err = qs->n == QUIET_MAX ? EMFILE : errno;
		close(copy);
		return;
	}
	qs->q[qs->n].copy = copy, qs->q[qs->n].fd = fd, qs->q[qs->n].sig = fcntl(copy, F_GETSIG);
	qs->n++;
}

static bool quiet_holder(void *arg, int pid, int fd)
{
	struct tty_quiet *qs = arg;
	struct cr_err e = {0};
	int copy = take_fd(pid, fd, &e);
	if (copy < 0)
		qs->err = e.errnum ? e.errnum : EBADF;
	else
		quiet_one(qs, copy, fd);
	return qs->err != 0;
}

/* O_ASYNC on copy again, through the number fd when the file has a signal of its own. */
static int async_on(int copy, int fd, int sig)
{
	int fl, st;
	if (!sig)
		return (fl = fcntl(copy, F_GETFL)) < 0 || fcntl(copy, F_SETFL, fl | O_ASYNC) ? -1 : 0;
	pid_t p = fork();
	if (p == 0)
		_exit(dup2(copy, fd) < 0 || (fl = fcntl(fd, F_GETFL)) < 0 ||
		      fcntl(fd, F_SETFL, fl | O_ASYNC));
	return p < 0 || waitpid(p, &st, 0) != p || !WIFEXITED(st) || WEXITSTATUS(st) ? -1 : 0;
}

static int quiet_end(struct tty_quiet *qs, struct cr_err *e)
{
	int r = 0;
	for (size_t i = 0; i < qs->n; i++) {
		if (async_on(qs->q[i].copy, qs->q[i].fd, qs->q[i].sig) && !r)
			r = cr_fail_sys(e, "O_ASYNC on again (fd %d)", qs->q[i].fd);
		close(qs->q[i].copy);
	}
	qs->n = 0;
	return r;
}

/* The master cfd (the holder's fd) and every file of its slave s quiet. */
static int quiet_begin(struct tty_quiet *qs, int cfd, int fd, int s, struct cr_err *e)
{
	int m = fcntl(cfd, F_DUPFD_CLOEXEC, 0);
	*qs = (struct tty_quiet){0};
	if (m < 0)
		return cr_fail_sys(e, "dup");
	quiet_one(qs, m, fd);
	if (!qs->err)
		async_walk(s, quiet_holder, qs);
	if (!qs->err)
		return 0;
	int err = qs->err;
	quiet_end(qs, e);
	return cr_fail_errno(e, err, "O_ASYNC off for the time");
}

/* A direction left in place: a warning for the user (eng_notice). */
static void warn_left(const struct dump_ctx *c, int fd, const char *link, const char *what, int bytes,
		      const char *why)
{
	if (bytes <= 0)
		return;
	eng_notice(c->o, "pid %d fd %d (%s): %d bytes queued %s are not saved (%s)", c->pid, fd, link, bytes,
		   what, why);
}

/* Our own open of the slave of the master cfd (nonblocking; a locked pty is unlocked for the time). */
static int open_peer(int cfd)
{
	int locked = 0, zero = 0, one = 1;
	if (ioctl(cfd, TIOCGPTLCK, &locked) || (locked && ioctl(cfd, TIOCSPTLCK, &zero)))
		return -1;
	int s = ioctl(cfd, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (locked && ioctl(cfd, TIOCSPTLCK, &one)) {
		if (s >= 0)
			close(s);
		return -1;
	}
	return s;
}

static void fill_queues(TtyEntry *t)
{
	if (dq.in_taken && dq.in.len) {
		t->in_data.data = dq.in.p, t->in_data.len = dq.in.len, t->has_in_data = 1;
		t->queued_in = (uint32_t)dq.in.len, t->has_queued_in = 1;
	}
	t->in_lines = dq.lines, t->n_in_lines = dq.nr_lines;
	t->in_eof = dq.eof, t->n_in_eof = dq.nr_eof;
	if (dq.echo.len)
		t->echo_data.data = dq.echo.p, t->echo_data.len = dq.echo.len, t->has_echo_data = 1;
	if (dq.out_taken && dq.out.len) {
		t->out_data.data = dq.out.p, t->out_data.len = dq.out.len, t->has_out_data = 1;
		t->queued_out = (uint32_t)dq.out.len, t->has_queued_out = 1;
	}
}

static void fill_flow(TtyEntry *t, const struct tty_flow *fl)
{
	if (fl->slave)
		t->slave_stopped = fl->slave, t->has_slave_stopped = 1;
	if (fl->master)
		t->master_stopped = true, t->has_master_stopped = 1;
}

/* The packet mode status the master had not read (taken out with the queues) pending again, exactly. */
static int put_status(struct dump_ctx *c, int fd, const char *link, int cfd, int s, const struct termios *tio,
		      const struct tty_flow *fl, struct cr_err *e)
{
	uint8_t lost = 0;
	bool in_empty = dq.in_taken && !dq.in.len && !dq.nr_lines;
	if (tty_pkt_status_put(cfd, s, tio, in_empty, dq.out.len, fl, dq.status, &lost, e))
		return cr_wrap(e, "packet mode status");
	if (lost)
		eng_notice(c->o,
			   "pid %d fd %d (%s): the packet mode status %#x of the master is not saved exactly "
			   "(%#x cannot be set again with the queues there)",
			   c->pid, fd, link, dq.status, lost);
	return 0;
}

/* What the dump cannot read without changing the tree is refused (one line) before a byte moves. A side held
 * with O_ASYNC whose write may have found no room (its output stopped or the other side full, or more than
 * TTY_WAKE_CHARS bytes queued for the other side, left by a read) may be owed a SIGIO (the kernel sends it
 * once that queue is read down or the output started, and nothing tells whether it is owed): taking the
 * queue out, or the flow probe, would send it. A stopped (or full) slave with ECHO whose held echoes could
 * not be made again (tty_echo_exact): put back, the output would send them ahead of itself. reads_in: the
 * slave's input is to be read (no EXTPROC; without CAP_SYS_ADMIN the dump refuses it after this). */
static int refuse_early(int cfd, int s, const struct termios *tio, bool reads_in, struct cr_err *e)
{
	int in = 0, out = 0, apid, afd, mfl = fcntl(cfd, F_GETFL);
	bool s_run = tty_writable(s);
	ioctl(s, FIONREAD, &in);
	ioctl(cfd, FIONREAD, &out);
	if ((!s_run || out > TTY_WAKE_CHARS) && (async_holder(s, &apid, &afd), apid))
		return cr_fail_errno(
		    e, ENOTSUP,
		    "its slave's output is stopped (or full, or %d bytes wait for the master) "
		    "and pid %d fd %d holds the slave with O_ASYNC: reading them (or the stop) "
		    "would send it the SIGIO the kernel may owe it",
		    out, apid, afd);
	bool wake = tty_writable(cfd) ? reads_in && in > TTY_WAKE_CHARS : (reads_in && in > 0) || out > 0;
	if (mfl >= 0 && (mfl & O_ASYNC) && wake)
		return cr_fail_errno(
		    e, ENOTSUP,
		    "the master with O_ASYNC may wait for room (it is full or stopped, or %d bytes "
		    "are queued for the slave): reading them (or starting it) would send its owner "
		    "the SIGIO the kernel may owe it",
		    in);
	if (!s_run && (tio->c_lflag & (ECHO | ECHONL)) && !tty_echo_exact(tio))
		return cr_fail_errno(
		    e, ENOTSUP,
		    "its output is stopped (or full), with ECHO and output processing (OCRNL, ONOCR, "
		    "ONLRET or XTABS) that echoes held back cannot be made again with");
	return 0;
}

/* The data queued both ways in the pair of the master cfd: taken and put back at once (tty-queue.c), with a
 * packet mode status; and whether its output is stopped (tcflow, IXON). */
static int dump_queues(struct dump_ctx *c, int fd, const char *link, int cfd, TtyEntry *t, struct cr_err *e)
{
	struct termios tio;
	struct tty_flow fl;
	int out = 0, in = 0;
	tty_queue_free(&dq);
	ioctl(cfd, FIONREAD, &out);
	__cleanup_close int s = open_peer(cfd);
	if (s < 0 || tcgetattr(s, &tio)) {
		warn_left(c, fd, link, "for the master", out, "the slave cannot be opened");
		return 0;
	}
	ioctl(s, FIONREAD, &in);
	bool input = !(tio.c_lflag & EXTPROC) && has_sys_admin();
	if (refuse_early(cfd, s, &tio, !(tio.c_lflag & EXTPROC), e))
		return -1;
	if (!input && !(tio.c_lflag & EXTPROC) && in > 0) /* an unprivileged crshim: not lost with a notice */
		return cr_fail_errno(e, EPERM,
				     "%d bytes queued for the slave: putting them back (TIOCSTI) needs "
				     "CAP_SYS_ADMIN, which crshim lacks",
				     in);
	if (!input)
		warn_left(c, fd, link, "for the slave", in,
			  (tio.c_lflag & EXTPROC) ? "EXTPROC" : "TIOCSTI needs CAP_SYS_ADMIN");
	struct tty_quiet qs = {0}; /* (nothing to move, nothing held back: nothing wakes a reader) */
	bool busy = in > 0 || out > 0 || !tty_writable(s) || !tty_writable(cfd);
	if (busy && quiet_begin(&qs, cfd, fd, s, e))
		return cr_wrap(e, "queued data");
	int fl_flags = fcntl(cfd, F_GETFL);
	if (fl_flags < 0 || fcntl(cfd, F_SETFL, fl_flags | O_NONBLOCK)) {
		struct cr_err e2 = {0};
		quiet_end(&qs, &e2);
		return cr_fail_sys(e, "set O_NONBLOCK");
	}
	int r = tty_queue_take(cfd, s, &tio, input, t->packet, &dq, e);
	tty_flow_read(cfd, s, &fl); /* (the queues out: a full buffer is no stop) */
	if (!r && input && tty_echo_take(cfd, s, t->packet, &fl, &dq, e))
		r = cr_wrap(e, "held echoes");
	struct cr_err e2 = {0};
	if (tty_queue_put(cfd, s, &tio, &dq, &fl, r ? &e2 : e) && !r)
		r = -1;
	if (t->packet && put_status(c, fd, link, cfd, s, &tio, &fl, r ? &e2 : e) && !r)
		r = -1;
	if (fcntl(cfd, F_SETFL, fl_flags) && !r)
		r = cr_fail_sys(e, "restore the file flags");
	if (quiet_end(&qs, r ? &e2 : e) && !r)
		r = -1;
	if (r)
		return cr_wrap(e, "queued data");
	fill_queues(t);
	fill_flow(t, &fl);
	if (t->packet && dq.status)
		t->pkt_status = dq.status, t->has_pkt_status = 1;
	pr_info("fd %d (%s): %zu bytes queued for the slave (%zu lines), %zu for the master: saved\n", fd,
		link, dq.in.len, dq.nr_lines, dq.out.len);
	return 0;
}

/* Where the devpts instance dev is: 0 crshim's /dev/pts (the restore makes the pty there), 1 a devpts of the
 * tree's own mount tree (saved in mnt.img: the restore makes that instance again, the pty in it), -1 neither.
 */
static int devpts_kind(const struct dump_ctx *c, dev_t dev)
{
	struct stat pts, rs, own;
	char path[64], line[4096];
	if (!stat("/dev/pts", &pts) && pts.st_dev == dev)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/root", c->o->pid);
	if (stat(path, &rs) || stat("/", &own) || (rs.st_dev == own.st_dev && rs.st_ino == own.st_ino))
		return -1; /* the tree has crshim's root: its mounts are not saved */
	snprintf(path, sizeof(path), "/proc/%d/mountinfo", c->o->pid);
	__cleanup_fclose FILE *f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f)) {
		unsigned ma, mi;
		const char *sep = strstr(line, " - ");
		if (sep && sscanf(line, "%*u %*u %u:%u", &ma, &mi) == 2 && makedev(ma, mi) == dev &&
		    !strncmp(sep, " - devpts ", 10))
			return 1;
	}
	return -1;
}

/* This process leads the session whose controlling terminal the pty (slave rdev) is. */
static void fill_ctty(struct dump_ctx *c, dev_t slave, TtyEntry *t)
{
	int64_t nr = c->stat.f[7];
	dev_t ctty = makedev((unsigned)((nr >> 8) & 0xfff), (unsigned)((nr & 0xff) | ((nr >> 12) & 0xfff00)));
	if (!nr || c->stat.f[6] != c->pid || ctty != slave)
		return;
	t->ctty = true, t->has_ctty = 1;
	t->fg_pgrp = (int32_t)c->stat.f[8], t->has_fg_pgrp = 1;
}

/* A session leader whose controlling terminal is a pty: its index and foreground group go into its pstree
 * entry, so that the restore gives it back even when the leader holds no fd of it (the pair is made if the
 * tree has it). */
void dump_tty_pstree(const struct dump_ctx *c, PstreeEntry *pe)
{
	int64_t nr = c->stat.f[7];
	unsigned maj = (unsigned)((nr >> 8) & 0xfff), min = (unsigned)((nr & 0xff) | ((nr >> 12) & 0xfff00));
	if (!nr || c->stat.f[6] != c->pid || maj < PTY_SLAVE_MAJOR_FIRST || maj >= PTY_SLAVE_MAJOR_FIRST + 8)
		return;
	pe->ctty_index = (maj - PTY_SLAVE_MAJOR_FIRST) * 256 + min, pe->has_ctty_index = 1;
	pe->ctty_fg_pgrp = (int32_t)c->stat.f[8], pe->has_ctty_fg_pgrp = 1;
}

void dump_tty_ext(struct dump_ctx *c, const char *link, const struct stat *st, FileEntry *fe,
		  struct dump_tty_ent *te)
{
	*te = (struct dump_tty_ent){.t = TTY_ENTRY__INIT};
	snprintf(te->path, sizeof(te->path), "%s", link);
	te->t.path = te->path;
	te->t.rdev = st->st_rdev, te->t.has_rdev = 1;
	te->t.dev = st->st_dev, te->t.has_dev = 1;
	fill_ctty(c, st->st_rdev, &te->t);
	fe->tty = &te->t;
}

/* The caller's terminal (its master is outside the tree): with --shell-job only. */
static int fill_external(struct dump_ctx *c, int fd, const char *link, struct dump_tty_ent *te,
			 struct cr_err *e)
{
	size_t n = strlen(link), d = strlen(" (deleted)");
	if (n > d && !strcmp(link + n - d, " (deleted)")) {  /* devpts removed the node with the master */
		te->t.hung_up = true, te->t.has_hung_up = 1; /* made again, its master closed */
		return 0;
	}
	if (!c->o->shell_job && c->o->orphan_pts) {
		te->t.orphan = true, te->t.has_orphan = 1;
		return 0;
	}
	if (!c->o->shell_job)
		return cr_fail(e,
			       "fd %d is a terminal (%s) whose master is not in the dumped tree: dump with "
			       "--shell-job (-j) to give it the restoring crshim's terminal, or with "
			       "--orphan-pts-master to make a new pair whose master goes to the caller",
			       fd, link);
	te->t.external = true, te->t.has_external = 1;
	return 0;
}

int dump_tty_fill(struct dump_ctx *c, int fd, const char *link, const struct stat *st, uint32_t flags,
		  FileEntry *fe, struct dump_tty_ent *te, struct cr_err *e)
{
	TtyEntry *t = &te->t;
	bool master = is_master(st);
	*te = (struct dump_tty_ent){
	    .t = TTY_ENTRY__INIT, .tio = TERMIOS_ENTRY__INIT, .ws = WINSIZE_ENTRY__INIT};
	snprintf(te->path, sizeof(te->path), "%s", link);
	t->path = te->path;
	t->master = master, t->has_master = 1;
	t->flags = flags & ~(uint32_t)O_CLOEXEC, t->has_flags = 1;
	fe->kind = FILE_KIND__FILE_TTY, fe->has_kind = 1;
	fe->tty = t;
	__cleanup_close int cfd = take_fd(c->pid, fd, e);
	if (cfd < 0)
		return cr_wrap(e, "fd %d (%s)", fd, link);
	unsigned index;
	struct stat sst = *st; /* the slave's inode: its owner, mode and devpts instance */
	bool have_slave = !master;
	if (master) {
		if (ioctl(cfd, TIOCGPTN, &index))
			return cr_fail_sys(e, "fd %d (%s): TIOCGPTN", fd, link);
		__cleanup_close int s = open_peer(cfd);
		have_slave = s >= 0 && !fstat(s, &sst);
	} else {
		index = slave_index(st->st_rdev);
		t->dev = st->st_dev, t->has_dev = 1; /* for its key tty[RDEV:DEV] (inherit-fd.c) */
	}
	t->index = index, t->has_index = 1;
	t->rdev = makedev(PTY_SLAVE_MAJOR_FIRST + index / 256, index % 256), t->has_rdev = 1;
	fill_ctty(c, (dev_t)t->rdev, t);
	if (!master && !dump_tty_internal(c, st) && fill_external(c, fd, link, te, e))
		return -1;
	if (!t->external && have_slave) {
		int k = devpts_kind(c, sst.st_dev);
		if (k < 0)
			return cr_fail(e,
				       "fd %d is a terminal (%s) of a devpts instance mounted neither in the "
				       "tree's mount tree nor at crshim's /dev/pts: not supported",
				       fd, link);
		if (k == 1)
			t->pts_dev = sst.st_dev, t->has_pts_dev = 1;
		t->slave_uid = sst.st_uid, t->has_slave_uid = 1;
		t->slave_gid = sst.st_gid, t->has_slave_gid = 1;
		t->slave_mode = sst.st_mode & 07777, t->has_slave_mode = 1;
	}
	if (!t->hung_up && fill_state(cfd, master, te, e)) /* hung up: tcgetattr gives EIO */
		return cr_wrap(e, "fd %d (%s)", fd, link);
	int v = 0;
	if (master && dump_queues(c, fd, link, cfd, t, e))
		return cr_wrap(e, "fd %d (%s)", fd, link);
	struct termios tio;
	if (t->external && !ioctl(cfd, FIONREAD, &v) && !tcgetattr(cfd, &tio))
		warn_left(c, fd, link,
			  (tio.c_lflag & ICANON) ? "for the slave (in complete lines)" : "for the slave", v,
			  "its master is outside the tree");
	pr_debug("fd %d: pty %u %s%s%s\n", fd, index, master ? "master" : "slave", t->ctty ? ", ctty" : "",
		 t->packet ? ", packet mode" : "");
	return 0;
}

/* ---------------------------------------------------------------- the kind */

static bool is_pty(const struct dump_ctx *c, const struct fd_src *f)
{
	return dump_tty_is_pty(&f->st) && !(f->fi.flags & O_PATH);
}

static int dump_pty(struct dump_ctx *c, struct fd_src *f, void **state, FileEntry *fe, struct cr_err *e)
{
	struct dump_tty_ent *te = malloc(sizeof(*te));
	if (!te)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	f->priv = te;
	return dump_tty_fill(c, f->fd, f->link, &f->st, f->fi.flags, fe, te, e);
}

static void release_pty(FileEntry *fe, struct fd_src *f)
{
	fe->tty = NULL;
	free(f->priv);
	f->priv = NULL;
}

/* (made by rst_tty_prepare in crshim; the entries become FILE_INHERIT of its fds) */
FD_KIND(fdk_tty) = {
    .name = "pty",
    .kind = FILE_KIND__FILE_TTY,
    .prio = 40,
    .is = is_pty,
    .dump = dump_pty,
    .release = release_pty,
    .tree_desc = true,
};
