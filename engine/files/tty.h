/* Terminals (engine-internal): dump-tty.c (dump side) and restore-tty.c (restore side).
 *
 * Dump: an fd on a pty master (/dev/ptmx) or slave (/dev/pts/N) becomes a file_entry of kind FILE_TTY
 * with a tty_entry: the pty index, the side, the open flags, and the pair's state read on a pidfd_getfd
 * copy: termios (of the slave), window size, packet mode, lock and exclusive mode. A slave whose master
 * no process of the tree holds is the caller's terminal ("external"): only with --shell-job. A session
 * leader whose controlling terminal it is marks its entries ctty, with the foreground process group.
 * Data queued in a pty pair, both ways, is taken out and put back at once (tty-queue.c), and saved on the
 * master's entries (the pair's files held with O_ASYNC have it off for the time: the put-back wakes their
 * readers, which would send them a SIGIO; what may owe one is refused first, see dump-tty.c refuse_early);
 * where that cannot be exact it is left in place and the dump warns (one line). Whether
 * either side's output is stopped (tcflow(TCOOFF), or the slave's VSTOP char with IXON) is read there too
 * and set again after the queues at restore (tty-queue.c tells how).
 *
 * Each entry names its devpts instance (pts_dev): crshim's /dev/pts, or a devpts of the tree's saved mount
 * tree (ns mode, containers). With --orphan-pts-master a slave whose master is outside the tree (a
 * container's console) is saved as an orphan pair.
 *
 * Restore (in crshim, before the tree is created): one new pty pair per (instance, index), in crshim's
 * /dev/ptmx or in the tree's devpts that ns_rst_devpts makes (the old index is asked for by opening masters
 * until it comes, bounded), unlocked, state set, and one open file description per (index, side, flags) as
 * after a fork; each entry becomes FILE_INHERIT of crshim's fd, like a pipe shared by processes; the queued
 * data goes back in before the tree exists. An orphan pair's master goes to the caller (notify
 * orphan-pts-master, SCM_RIGHTS). An external terminal becomes a new open of crshim's controlling terminal
 * (its termios set from the image; its window size is the new terminal's). A session leader takes its
 * terminal with TIOCSCTTY after setsid; the leader of the foreground group makes it the foreground
 * (tcsetpgrp). */
#ifndef CRSHIM_TTY_H
#define CRSHIM_TTY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <termios.h>

#include "crshim.h"
#include "image/image.h"

/* ---- dump-tty.c ---- */
struct dump_ctx;

/* The messages of one tty entry (kept until the entry is written). */
struct dump_tty_ent {
	TtyEntry t;
	TermiosEntry tio;
	WinsizeEntry ws;
	uint8_t cc[NCCS];
	char path[64];
};

/* A pty master or slave (by its device number). */
bool dump_tty_is_pty(const struct stat *st);
/* A pty slave whose master some process of the dumped tree holds. */
bool dump_tty_internal(const struct dump_ctx *c, const struct stat *st);
/* Fill fe (kind FILE_TTY) for the task's fd (a pty master or slave; flags from fdinfo). */
int dump_tty_fill(struct dump_ctx *c, int fd, const char *link, const struct stat *st, uint32_t flags,
		  FileEntry *fe, struct dump_tty_ent *te, struct cr_err *e);
/* A session leader's controlling pty (index, foreground group) into its pstree entry. */
void dump_tty_pstree(const struct dump_ctx *c, PstreeEntry *pe);
/* A terminal dumped as external (--external tty[..], inherit-fd.c): fe->tty gets only its path, rdev, dev and
 * whether it is the controlling terminal of the session this process leads (then the restore, having it from
 * --inherit-fd, takes it again); no index, so that it is no pty of the tree. */
void dump_tty_ext(struct dump_ctx *c, const char *link, const struct stat *st, FileEntry *fe,
		  struct dump_tty_ent *te);

/* ---- tty-queue.c: the data queued in a pty pair (the method is described there) ---- */
struct tty_qbuf {
	uint8_t *p;
	size_t len, cap;
};
struct tty_queue {
	struct tty_qbuf in; /* what the slave had not read: complete lines, then the partial one */
	uint32_t *lines;    /* canonical mode: the length of each complete line, as read(2) gives it */
	size_t nr_lines;
	uint32_t *eof; /* indexes into lines of the lines ended by VEOF (ascending) */
	size_t nr_eof;
	struct tty_qbuf out;	  /* what the master had not read */
	bool in_taken, out_taken; /* the direction was taken (and must be put back) */
	uint8_t status;		  /* packet mode: the status the master had not read (TIOCPKT_*) */
	struct tty_qbuf echo;	  /* echoes the stopped slave held back (as they would come out) */
};
/* Output flow control of a pair (tcflow, IXON): how it is read and set again is described in tty-queue.c. */
enum { TTY_FLOW_RUN = 0, TTY_FLOW_STOP_CHAR = 1, TTY_FLOW_TCOOFF = 2 };
struct tty_flow {
	uint32_t slave; /* the slave's output: TTY_FLOW_* */
	bool master;	/* the master's output stopped by TCOOFF */
};
/* fd polls writable (POLLOUT): its side has room and its output runs. */
bool tty_writable(int fd);
/* A read that leaves at most this many bytes in a pty's line discipline wakes the other side's writers, and
 * sends the SIGIO the kernel owes an O_ASYNC holder of that side whose write found no room (n_tty's
 * TTY_THRESHOLD_UNTHROTTLE; starting a stopped output does too). */
#define TTY_WAKE_CHARS 128
/* Dump: the flow state of the pair (master, slave: our nonblocking open), once its queues are taken out. A
 * slave stopped by TCOOFF is started and stopped again to tell it from a VSTOP stop (see tty-queue.c). */
void tty_flow_read(int master, int slave, struct tty_flow *f);
/* A running pair stopped as f says (t: the slave's termios now). */
int tty_flow_stop(int master, int slave, const struct termios *t, const struct tty_flow *f, struct cr_err *e);
/* Take the queues of a pair out: master is the master's description (O_NONBLOCK), slave a nonblocking open of
 * the slave, t the slave's termios; input: take the slave's input too; packet: the master is in packet mode.
 * What was taken is in q even when it fails: put it back. */
int tty_queue_take(int master, int slave, const struct termios *t, bool input, bool packet,
		   struct tty_queue *q, struct cr_err *e);
/* Put q into the pair (the slave's termios is t again at the end). fl: the pair is stopped so (NULL:
 * running); it is started for the time and stopped so again. A packet mode status is left behind: set it
 * with tty_pkt_status_put. */
int tty_queue_put(int master, int slave, const struct termios *t, const struct tty_queue *q,
		  const struct tty_flow *fl, struct cr_err *e);
/* The master (packet mode) of a pair that holds its queues (in_empty: no input for the slave; out_len: bytes
 * for the master) and is stopped as fl says gets exactly the status want pending (tty-queue.c tells how);
 * *lost: the bits of want that could not be set (or that would come with an extra one). */
int tty_pkt_status_put(int master, int slave, const struct termios *t, bool in_empty, size_t out_len,
		       const struct tty_flow *fl, uint8_t want, uint8_t *lost, struct cr_err *e);
/* Dump, once the queues are out and the flow read: the echoes the slave holds back (its output stopped, or
 * found no room) into q->echo (stopped: the slave is stopped as fl says again) or the end of q->out. */
int tty_echo_take(int master, int slave, bool packet, const struct tty_flow *fl, struct tty_queue *q,
		  struct cr_err *e);
/* Whether held echoes of a slave with termios t can be made again exactly (its output processing). */
bool tty_echo_exact(const struct termios *t);
void tty_queue_free(struct tty_queue *q);

/* ---- restore-tty.c ---- */
struct rst_task;
/* Parent, once every process is loaded: make the ptys (and the opens of crshim's terminal for external
 * ones); every FILE_TTY entry becomes FILE_INHERIT of crshim's fd. rst_tty_done closes crshim's fds. */
int rst_tty_prepare(const struct cr_opts *o, struct rst_task *ts, size_t n, struct cr_err *e);
/* Parent, before the tree runs: with --shell-job, a root leading its own process group in crshim's session
 * gets the foreground of crshim's terminal when crshim has it (as a shell's `fg`; so that its first read of
 * the terminal is not stopped by SIGTTIN). The caller of eng_restore takes it back when the root ends. */
void rst_tty_foreground(const struct cr_opts *o, const struct rst_task *root);
/* Close crshim's fds; a failed restore (failed != 0) gives the foreground back to crshim. */
void rst_tty_done(int failed);
/* Child, in its session and group: a session leader takes its controlling terminal, the leader of the
 * terminal's foreground group makes it the foreground. Errors as text. */
int rst_tty_child_session(const struct rst_task *t, char *msg, size_t len);

#endif
