/* Restore of terminals (see tty.h). Parent side: the pty pairs and crshim's terminal, made once before the
 * tree is created and inherited by every process (FILE_INHERIT). Child side: the controlling terminal and
 * the foreground process group. */
#define LOG_PREFIX "restore-tty: "
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/sysmacros.h>
#include <termios.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/log.h"
#include "base/proc.h"
#include "restore.h"
#include "files/tty.h"
#include "ns.h"

#ifndef TIOCGPTPEER
#define TIOCGPTPEER _IO('T', 0x41)
#endif

/* How many masters we open at most to get a pty's old index back (the kernel gives the lowest free). */
#define MASTER_TRIES 64

struct rtty_pair {
	uint64_t dev;	/* pts_dev of the images: a devpts of the tree's mount tree; 0 crshim's /dev/pts */
	uint32_t index; /* in the images */
	uint32_t now;	/* the new pty's index */
	int master, slave;
};

/* One open file description made for the entries with this key. */
struct rtty_desc {
	uint64_t dev;
	uint32_t index, flags, occ;
	uint32_t tree_desc; /* file_entry.tree_desc (kcmp at dump), 0 if the image has none */
	bool master, external;
	int fd; /* owned unless master (then the pair's master) */
};

static struct rtty_pair *pairs;
static size_t nr_pairs;
static struct rtty_desc *descs;
static size_t nr_descs;
static int own_tty = -1; /* crshim's controlling terminal (O_NOCTTY open), for external entries */
static char own_path[64];

/* A tty entry (still FILE_TTY, or already made FILE_INHERIT by rst_tty_prepare). */
static bool is_tty_entry(const FileEntry *f)
{
	return f->tty && f->tty->has_index &&
	       (f->kind == FILE_KIND__FILE_TTY || f->kind == FILE_KIND__FILE_INHERIT);
}

static int set_termios(int fd, const TermiosEntry *te, struct cr_err *e)
{
	struct termios t;
	if (!te)
		return 0;
	if (tcgetattr(fd, &t))
		return cr_fail_sys(e, "tcgetattr");
	t.c_iflag = te->iflag, t.c_oflag = te->oflag, t.c_cflag = te->cflag, t.c_lflag = te->lflag;
	t.c_line = (cc_t)te->line;
	if (te->has_cc)
		memcpy(t.c_cc, te->cc.data, te->cc.len < NCCS ? te->cc.len : NCCS);
	if ((te->has_ispeed && cfsetispeed(&t, te->ispeed)) ||
	    (te->has_ospeed && cfsetospeed(&t, te->ospeed)))
		return cr_fail_sys(e, "termios speed");
	if (tcsetattr(fd, TCSANOW, &t))
		return cr_fail_sys(e, "tcsetattr");
	return 0;
}

/* The devpts instance of an entry's pair (0: crshim's /dev/pts). */
static uint64_t ent_dev(const TtyEntry *t)
{
	return t->has_pts_dev ? t->pts_dev : 0;
}

/* An entry of pty index (master: 1 the master's, 0 a slave's, -1 any). */
static const TtyEntry *find_entry(const struct rst_task *ts, size_t n, uint64_t dev, uint32_t index,
				  int master)
{
	for (size_t k = 0; k < n; k++)
		for (size_t i = 0; i < ts[k].nr_files; i++) {
			const FileEntry *f = ts[k].files[i];
			if (is_tty_entry(f) && !f->tty->external && f->tty->index == index &&
			    ent_dev(f->tty) == dev && (master < 0 || f->tty->master == (master == 1)))
				return f->tty;
		}
	return NULL;
}

/* A new master, with the old index if it is free (bounded); dirfd: the devpts it is made in (-1: crshim's
 * /dev/ptmx). */
static int open_master(int dirfd, uint32_t want, uint32_t *got, struct cr_err *e)
{
	int extra[MASTER_TRIES];
	size_t n = 0;
	int fd, err = 0;
	unsigned idx = 0;
	for (;;) {
		fd = dirfd >= 0 ? openat(dirfd, "ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
				: open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC);
		if (fd < 0 || ioctl(fd, TIOCGPTN, &idx)) {
			err = errno;
			if (fd >= 0)
				close(fd);
			fd = -1;
			break;
		}
		if (idx >= want || n == MASTER_TRIES)
			break;
		extra[n++] = fd;
	}
	for (size_t i = 0; i < n; i++)
		close(extra[i]);
	if (fd < 0)
		return cr_fail_errno(e, err, "open %s",
				     dirfd >= 0 ? "ptmx of the tree's devpts" : "/dev/ptmx");
	*got = idx;
	return fd;
}

/* The data queued in the pair at dump (on the master's entry), before packet mode (no status to clear). */
static int put_queues(const struct rtty_pair *p, const TtyEntry *m, const struct tty_flow *fl,
		      struct cr_err *e)
{
	struct termios t;
	struct tty_queue q = {.in_taken = m->has_in_data || m->n_in_lines, .out_taken = m->has_out_data};
	if (m->has_in_data)
		q.in = (struct tty_qbuf){.p = m->in_data.data, .len = m->in_data.len};
	if (m->has_out_data)
		q.out = (struct tty_qbuf){.p = m->out_data.data, .len = m->out_data.len};
	q.lines = m->in_lines, q.nr_lines = m->n_in_lines;
	q.eof = m->in_eof, q.nr_eof = m->n_in_eof;
	if (m->has_echo_data)
		q.echo = (struct tty_qbuf){.p = m->echo_data.data, .len = m->echo_data.len};
	if (tcgetattr(p->slave, &t) || tty_queue_put(p->master, p->slave, &t, &q, fl, e))
		return cr_wrap(e, "queued data");
	pr_info(
	    "pty %u: %zu bytes queued for the slave (%zu lines), %zu for the master, %zu of echoes held: put "
	    "back\n",
	    p->index, q.in.len, q.nr_lines, q.out.len, q.echo.len);
	return 0;
}

/* Output stopped at dump (tcflow, IXON), once the queues are in (put_queues did when it had some: again is
 * nothing), before packet mode (no status). */
static int flow_stop(const struct rtty_pair *p, const TtyEntry *m, struct cr_err *e)
{
	struct termios t;
	struct tty_flow fl = {.slave = m->slave_stopped, .master = m->master_stopped};
	if (tcgetattr(p->slave, &t) || tty_flow_stop(p->master, p->slave, &t, &fl, e))
		return cr_wrap(e, "output flow");
	pr_info("pty %u: output stopped again (slave: %s, master: %s)\n", p->index,
		fl.slave == TTY_FLOW_TCOOFF	 ? "TCOOFF"
		: fl.slave == TTY_FLOW_STOP_CHAR ? "VSTOP"
						 : "no",
		fl.master ? "TCOOFF" : "no");
	return 0;
}

/* The packet mode status the master had not read, pending again (after the queues and the flow stop). */
static int put_status(const struct rtty_pair *p, const TtyEntry *m, struct cr_err *e)
{
	struct termios t;
	struct tty_flow fl = {.slave = m->slave_stopped, .master = m->master_stopped};
	uint8_t lost = 0;
	bool in_empty = !m->has_in_data && !m->n_in_lines;
	if (m->pkt_status > 0xff)
		return cr_fail_errno(e, EBADMSG, "files.img: pty %u: bad pkt_status %#x", p->index,
				     m->pkt_status);
	if (tcgetattr(p->slave, &t) || tty_pkt_status_put(p->master, p->slave, &t, in_empty, m->out_data.len,
							  &fl, (uint8_t)m->pkt_status, &lost, e))
		return cr_wrap(e, "packet mode status");
	if (lost)
		pr_warn("pty %u: packet mode status %#x: %#x not set again\n", p->index, m->pkt_status, lost);
	return 0;
}

static int pair_state(struct rtty_pair *p, const struct rst_task *ts, size_t n, struct cr_err *e)
{
	const TtyEntry *any = find_entry(ts, n, p->dev, p->index, -1),
		       *m = find_entry(ts, n, p->dev, p->index, 1);
	int one = 1, zero = 0;
	if (ioctl(p->master, TIOCSPTLCK, &zero))
		return cr_fail_sys(e, "unlock");
	p->slave = ioctl(p->master, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (p->slave < 0)
		return cr_fail_sys(e, "open the slave (TIOCGPTPEER)");
	if (set_termios(p->slave, any->termios, e))
		return -1;
	if (any->has_slave_uid && any->has_slave_gid && fchown(p->slave, any->slave_uid, any->slave_gid))
		return cr_fail_sys(e, "fchown the slave to %u:%u", any->slave_uid, any->slave_gid);
	if (any->has_slave_mode && fchmod(p->slave, (mode_t)any->slave_mode))
		return cr_fail_sys(e, "fchmod the slave to %o", any->slave_mode);
	if (any->winsize) {
		struct winsize ws = {.ws_row = (unsigned short)any->winsize->rows,
				     .ws_col = (unsigned short)any->winsize->cols,
				     .ws_xpixel = (unsigned short)any->winsize->xpixel,
				     .ws_ypixel = (unsigned short)any->winsize->ypixel};
		if (ioctl(p->slave, TIOCSWINSZ, &ws))
			return cr_fail_sys(e, "TIOCSWINSZ");
	}
	struct tty_flow fl = {.slave = m ? m->slave_stopped : 0, .master = m && m->master_stopped};
	if (fl.slave > TTY_FLOW_TCOOFF)
		return cr_fail_errno(e, EBADMSG, "files.img: pty %u: bad slave_stopped %u", p->index,
				     fl.slave);
	if (m && put_queues(p, m, &fl, e)) /* (started for the time, stopped as fl says: held echoes) */
		return -1;
	if (m && (m->slave_stopped || m->master_stopped) && flow_stop(p, m, e))
		return -1;
	if (m && m->packet && ioctl(p->master, TIOCPKT, &one))
		return cr_fail_sys(e, "TIOCPKT");
	if (m && m->packet && m->pkt_status && put_status(p, m, e))
		return -1;
	return 0;
}

static struct rtty_pair *find_pair(uint64_t dev, uint32_t index)
{
	for (size_t i = 0; i < nr_pairs; i++)
		if (pairs[i].index == index && pairs[i].dev == dev)
			return &pairs[i];
	return NULL;
}

/* The master of an orphan pair (its master was outside the tree: a console) goes to the caller. */
static int hand_orphan(const struct cr_opts *o, const struct rtty_pair *p, struct cr_err *e)
{
	if (!o->notify)
		return cr_fail_errno(
		    e, ENOTSUP,
		    "pty %u: its master was outside the tree (dumped with --orphan-pts-master): "
		    "only a restore through the RPC (orphan_pts_master) can hand the new master "
		    "to its caller",
		    p->index);
	if (o->notify(o->notify_arg, "orphan-pts-master", 0, p->master))
		return cr_fail_errno(
		    e, ECANCELED, "pty %u: the caller refused the orphan-pts-master notification", p->index);
	pr_info("pty %u: its new master (/dev/pts/%u) handed to the caller (orphan-pts-master)\n", p->index,
		p->now);
	return 0;
}

static int make_pair(const struct cr_opts *o, const struct rst_task *ts, size_t n, uint64_t dev,
		     uint32_t index, struct cr_err *e)
{
	int dirfd = -1;
	if (dev) {
		dirfd = ns_rst_devpts(ts[0].ns, dev, e);
		if (dirfd == -1)
			return cr_wrap(e, "pty %u", index);
		if (dirfd == -2)
			return cr_fail_errno(e, ENOENT,
					     "pty %u: its devpts (device %#" PRIx64
					     ") is not in the images' mount tree",
					     index, dev);
	}
	struct rtty_pair *np = realloc(pairs, (nr_pairs + 1) * sizeof(*np));
	if (!np)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	pairs = np;
	struct rtty_pair *p = &pairs[nr_pairs];
	*p = (struct rtty_pair){.dev = dev, .index = index, .master = -1, .slave = -1};
	p->master = open_master(dirfd, index, &p->now, e);
	if (p->master < 0)
		return cr_wrap(e, "pty %u", index);
	nr_pairs++;
	const TtyEntry *orphan = find_entry(ts, n, dev, index, 0);
	if (!find_entry(ts, n, dev, index, 1) && orphan && orphan->hung_up)
		pr_info("pty %u: its master was closed at dump: the new pty's master is closed (hung up)\n",
			index);
	else if (!find_entry(ts, n, dev, index, 1) && !(orphan && orphan->orphan))
		pr_warn("pty %u: its master was not in the tree: the new pty's master is closed\n", index);
	if (p->now != index)
		pr_warn("pty %u is taken: restored as /dev/pts/%u\n", index, p->now);
	if (pair_state(p, ts, n, e))
		return cr_wrap(e, "pty %u (now %u)", index, p->now);
	pr_info("pty %u: restored as /dev/pts/%u%s (master fd %d)\n", index, p->now,
		dirfd >= 0 ? " of the tree's devpts" : "", p->master);
	return orphan && orphan->orphan && !find_entry(ts, n, dev, index, 1) ? hand_orphan(o, p, e) : 0;
}

/* Exclusive mode and the lock come last: both refuse further opens of the slave. */
static int pairs_finish(const struct rst_task *ts, size_t n, struct cr_err *e)
{
	int one = 1;
	for (size_t i = 0; i < nr_pairs; i++) {
		struct rtty_pair *p = &pairs[i];
		const TtyEntry *m = find_entry(ts, n, p->dev, p->index, 1),
			       *s = find_entry(ts, n, p->dev, p->index, 0);
		if (s && s->exclusive && ioctl(p->slave, TIOCEXCL))
			return cr_fail_sys(e, "pty %u: TIOCEXCL", p->index);
		if (m && m->locked && ioctl(p->master, TIOCSPTLCK, &one))
			return cr_fail_sys(e, "pty %u: lock", p->index);
		close(p->slave);
		p->slave = -1;
	}
	return 0;
}

/* crshim's controlling terminal, for the caller's terminal of a shell job; its termios from the image. */
static int open_own_tty(const FileEntry *f, struct cr_err *e)
{
	struct proc_stat st;
	if (own_tty >= 0)
		return 0;
	if (proc_parse_stat(getpid(), &st, e))
		return -1;
	int64_t nr = st.f[7];
	unsigned maj = (unsigned)((nr >> 8) & 0xfff), min = (unsigned)((nr & 0xff) | ((nr >> 12) & 0xfff00));
	if (!nr)
		return cr_fail_errno(e, ENOTTY,
				     "file id %u was the caller's terminal %s, and crshim has no controlling "
				     "terminal to give it: restore from a terminal",
				     f->id, f->tty->path ? f->tty->path : "?");
	if (maj >= 136 && maj <= 143)
		snprintf(own_path, sizeof(own_path), "/dev/pts/%u", (maj - 136) * 256 + min);
	else
		snprintf(own_path, sizeof(own_path), "/dev/tty");
	own_tty = open(own_path, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (own_tty < 0)
		return cr_fail_sys(e, "open crshim's terminal %s", own_path);
	if (set_termios(own_tty, f->tty->termios, e))
		return cr_wrap(e, "crshim's terminal %s", own_path);
	pr_info("the caller's terminal %s is now %s\n", f->tty->path ? f->tty->path : "?", own_path);
	return 0;
}

static int new_desc(const TtyEntry *t, uint32_t occ, uint32_t tree_desc, struct cr_err *e)
{
	/* (O_ASYNC is set by the process that holds it, rst_fown_apply: through its own fd number, the
	 * signal's si_fd, and after its owner. Given here it would reach no signal to anyone: an open does
	 * not arm it, and F_SETFL arms it for crshim, at crshim's number, so that the process's own F_SETFL
	 * changes nothing.) */
	int acc = (int)(t->flags & O_ACCMODE),
	    st = (int)(t->flags & ~(uint32_t)(O_ACCMODE | O_CREAT | O_EXCL | O_TRUNC | O_ASYNC));
	int fd;
	if (t->external)
		fd = open(own_path, acc | O_NOCTTY | O_CLOEXEC);
	else if (t->master)
		fd = find_pair(ent_dev(t), t->index)->master;
	else /* the flags as given stay in the description (no O_CLOEXEC there; O_LARGEFILE as open() adds) */
		fd = ioctl(find_pair(ent_dev(t), t->index)->master, TIOCGPTPEER,
			   acc | st | O_NOCTTY | O_LARGEFILE);
	if (fd < 0)
		return cr_fail_sys(e, "open %s", t->path ? t->path : "pty");
	if (fcntl(fd, F_SETFD, FD_CLOEXEC) || fcntl(fd, F_SETFL, st) < 0) {
		int err = errno;
		if (!t->master)
			close(fd);
		return cr_fail_errno(e, err, "set flags %#o", st);
	}
	struct rtty_desc *nd = realloc(descs, (nr_descs + 1) * sizeof(*nd));
	if (!nd) {
		if (!t->master)
			close(fd);
		return cr_fail_errno(e, ENOMEM, "out of memory");
	}
	descs = nd;
	descs[nr_descs++] =
	    (struct rtty_desc){ent_dev(t), t->index, t->flags, occ, tree_desc, t->master, t->external, fd};
	return fd;
}

/* The description for entry i of task k: the one of the same tree_desc (the dump saw one description with
 * kcmp), else one per (index, side, flags, n-th such entry of the task); a master has one. */
static int desc_for(const struct rst_task *tk, size_t i, struct cr_err *e)
{
	const TtyEntry *t = tk->files[i]->tty;
	uint32_t occ = 0, td = tk->files[i]->has_tree_desc ? tk->files[i]->tree_desc : 0;
	for (size_t d = 0; d < nr_descs && td && !t->master; d++)
		if (descs[d].tree_desc == td)
			return descs[d].fd;
	if (td && !t->master)
		return new_desc(t, 0, td, e);
	for (size_t j = 0; j < i && !t->master; j++) {
		const FileEntry *g = tk->files[j];
		occ += is_tty_entry(g) && g->tty->index == t->index && ent_dev(g->tty) == ent_dev(t) &&
		       g->tty->master == t->master && g->tty->external == t->external &&
		       g->tty->flags == t->flags;
	}
	for (size_t d = 0; d < nr_descs; d++) {
		const struct rtty_desc *r = &descs[d];
		if (!r->tree_desc && r->external == t->external && r->master == t->master &&
		    (t->external || (r->index == t->index && r->dev == ent_dev(t))) &&
		    (t->master || (r->flags == t->flags && r->occ == occ)))
			return r->fd;
	}
	return new_desc(t, occ, 0, e);
}

static int inherit(const struct rst_task *t, FileEntry *f, int fd, struct cr_err *e)
{
	char desc[96];
	if (f->tty->external)
		snprintf(desc, sizeof(desc), "%s (was %s)", own_path, f->tty->path ? f->tty->path : "?");
	else
		snprintf(desc, sizeof(desc), "pty %u %s", f->tty->index, f->tty->master ? "master" : "slave");
	return rst_file_inherit(t, f, fd, desc, e);
}

static int check_entry(const struct cr_opts *o, const FileEntry *f, struct cr_err *e)
{
	if (!is_tty_entry(f) || !f->tty->has_master || !f->tty->has_flags)
		return cr_fail_errno(e, EBADMSG, "files.img: tty file id %u has no index, side or flags",
				     f->id);
	if (f->tty->external && !o->shell_job)
		return cr_fail_errno(e, EINVAL,
				     "file id %u was the caller's terminal %s: restore with --shell-job (-j)",
				     f->id, f->tty->path ? f->tty->path : "?");
	return 0;
}

int rst_tty_prepare(const struct cr_opts *o, struct rst_task *ts, size_t n, struct cr_err *e)
{
	for (size_t k = 0; k < n; k++)
		for (size_t i = 0; i < ts[k].nr_files; i++) {
			const FileEntry *f = ts[k].files[i];
			if (f->kind != FILE_KIND__FILE_TTY)
				continue;
			if (check_entry(o, f, e))
				return cr_wrap(e, "task %d", ts[k].pid);
			if (f->tty->external ? open_own_tty(f, e)
					     : !find_pair(ent_dev(f->tty), f->tty->index) &&
						   make_pair(o, ts, n, ent_dev(f->tty), f->tty->index, e))
				return cr_wrap(e, "task %d", ts[k].pid);
		}
	for (size_t k = 0; k < n; k++)
		for (size_t i = 0; i < ts[k].nr_files; i++) {
			FileEntry *f = ts[k].files[i];
			if (f->kind != FILE_KIND__FILE_TTY)
				continue;
			int fd = desc_for(&ts[k], i, e);
			if (fd < 0 || inherit(&ts[k], f, fd, e))
				return cr_wrap(e, "task %d: %s", ts[k].pid,
					       f->tty->path ? f->tty->path : "tty");
		}
	return pairs_finish(ts, n, e);
}

static int fg_tty = -1; /* crshim's terminal, whose foreground rst_tty_foreground gave away */

void rst_tty_foreground(const struct cr_opts *o, const struct rst_task *root)
{
	if (!o->shell_job || root->pst->pgid != rst_ipid(root) || root->pst->sid == rst_ipid(root) ||
	    getpgid(root->pid) != root->pid)
		return;
	int fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return; /* no controlling terminal */
	if (tcgetpgrp(fd) != getpgrp() || tcsetpgrp(fd, root->pid)) {
		close(fd);
		return; /* crshim is not in the foreground itself: neither is the job */
	}
	pr_info("shell job: process group %d has the terminal's foreground\n", root->pid);
	fg_tty = fd;
}

void rst_tty_done(int failed)
{
	if (fg_tty >= 0 && failed) {
		sigset_t ttou, old;
		sigemptyset(&ttou);
		sigaddset(&ttou, SIGTTOU);
		sigprocmask(SIG_BLOCK, &ttou, &old);
		tcsetpgrp(fg_tty, getpgrp());
		sigprocmask(SIG_SETMASK, &old, NULL);
	}
	if (fg_tty >= 0)
		close(fg_tty);
	fg_tty = -1;
	for (size_t i = 0; i < nr_descs; i++)
		if (!descs[i].master)
			close(descs[i].fd);
	for (size_t i = 0; i < nr_pairs; i++) {
		close(pairs[i].master);
		if (pairs[i].slave >= 0)
			close(pairs[i].slave);
	}
	if (own_tty >= 0)
		close(own_tty);
	own_tty = -1;
	free(descs);
	free(pairs);
	descs = NULL;
	pairs = NULL;
	nr_descs = nr_pairs = 0;
}

/* ---------------------------------------------------------------- child */

static int cmsg(char *msg, size_t len, const char *what, pid_t pid)
{
	snprintf(msg, len, "task %d: %s: %s", pid, what, strerror(errno));
	return -1;
}

/* The leader's entry of its controlling terminal (a pty of the tree), NULL if none. */
static const FileEntry *ctty_entry(const struct rst_task *l)
{
	for (size_t i = 0; i < l->nr_files; i++) {
		const FileEntry *f = l->files[i];
		if (f->tty && f->tty->ctty && !f->tty->external && f->kind == FILE_KIND__FILE_INHERIT)
			return f;
	}
	return NULL;
}

/* An fd of the session's controlling terminal: the leader's own entry, else (the leader held no fd of it) a
 * new slave fd from the pair's master crshim made (inherited, still open here); -1 if there is none. */
static int ctty_fd(const struct rst_task *l, const TtyEntry **tty, int32_t *fg, bool *own)
{
	const FileEntry *f = ctty_entry(l);
	*own = false;
	if (f) {
		*tty = f->tty;
		*fg = f->tty->has_fg_pgrp ? f->tty->fg_pgrp : 0;
		return f->inherit_fd;
	}
	const struct rtty_pair *p = NULL;
	for (size_t i = 0; i < nr_pairs && l->pst->has_ctty_index && !p; i++)
		if (pairs[i].index == l->pst->ctty_index)
			p = &pairs[i];
	if (!p)
		return -1;
	*tty = NULL;
	*fg = l->pst->has_ctty_fg_pgrp ? l->pst->ctty_fg_pgrp : 0;
	*own = true;
	return ioctl(p->master, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC);
}

int rst_tty_child_session(const struct rst_task *t, char *msg, size_t len)
{
	const PstreeEntry *p = t->pst;
	const struct rst_task *l = NULL;
	for (size_t i = 0; i < t->ntree && !l; i++)
		if (rst_ipid(&t->tree[i]) == p->sid)
			l = &t->tree[i];
	const TtyEntry *tty = NULL;
	int32_t fg = 0;
	bool own = false;
	int fd = l ? ctty_fd(l, &tty, &fg, &own) : -1;
	if (fd < 0)
		return own ? cmsg(msg, len, "open its controlling terminal (TIOCGPTPEER)", t->pid) : 0;
	int r = 0;
	if (l == t && ioctl(fd, TIOCSCTTY, 0))
		r = cmsg(msg, len, "take the controlling terminal (TIOCSCTTY)", t->pid);
	/* every signal is blocked here: no SIGTTOU for a background group */
	else if (fg && fg == t->pid && p->pgid == t->pid && tcsetpgrp(fd, rst_pidns_vid(t, t->pid)))
		r = cmsg(msg, len, "make its group the terminal's foreground (tcsetpgrp)", t->pid);
	if (own)
		close(fd);
	return r;
}
