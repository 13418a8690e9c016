/* Pipes and FIFOs (engine-internal): dump-pipes.c (dump side) and restore-pipes.c (restore side).
 *
 * Dump: every fd that is an end of a pipe (or an open of a FIFO by path) becomes a file_entry of kind
 * FILE_PIPE (FILE_FIFO) with a pipe_entry: the pipe's identity (inode), the open flags (the access mode
 * says which end), the pipe size and, on the first entry of each pipe, the data in flight. The data is
 * peeked without consuming it: a copy of a read end (pidfd_getfd, else an open of /proc/PID/fd/N) is
 * tee()d into a pipe of ours, which we read; in a packet-mode pipe (O_DIRECT writer) each read of it is one
 * message, whose sizes are saved (pipe_entry.packets) and written back one by one. A pipe the task holds
 * only the write end of is stored without data: the data could be read (through a read-only open of
 * /proc/PID/fd/N) but has no use: its reader is another process of the tree (which saves it), or outside
 * the tree (it stays in the old pipe for that reader), or there is none (nobody can ever read it).
 *
 * Restore: one new pipe per identity, its size set, the data written back, each end dup'ed to every fd
 * that had it. An end the task did not hold is closed once all fds are in place: a pipe whose other end
 * was outside the task ("external": a leaked fd, a harness's stdout without --shell-job) reads EOF after
 * its data, or gives EPIPE/SIGPIPE on write. `--inherit-fd fd[N]:pipe:[INODE]` gives the restoring
 * crshim's fd N to the task in place of (the matching end of) that pipe instead. FIFOs are reopened by
 * path, with a helper O_RDWR open of the FIFO as the peer so that no open blocks; an unlinked FIFO is made
 * again at its old path (or "PATH.crshim-PID" if that is taken), opened and unlinked. A FIFO's open file
 * description held by several processes (fork) is opened once (restore-fdshare.c, rst_fifo_open_desc) and
 * inherited by each; every description of an unlinked FIFO several processes hold is opened from one FIFO
 * made again, also when they are opened in different mount namespaces (rst_fifo_opener); a description in
 * flight (SCM_RIGHTS) is opened once by crshim and handed over, an unlinked FIFO's from that one FIFO too
 * (rst_fifo_flight). */
#ifndef CRSHIM_PIPES_H
#define CRSHIM_PIPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "crshim.h"
#include "image/image.h"

/* ---- dump-pipes.c ---- */
struct dump_pipes;
/* State for one task's pipes (a pidfd for pidfd_getfd; peeked data kept until the images are written). */
int dump_pipes_init(pid_t pid, struct dump_pipes **out, struct cr_err *e);
void dump_pipes_free(struct dump_pipes *dp);
/* Fill pe for the task's fd (a pipe end or FIFO, flags from fdinfo). read_fd: an fd of the task that is
 * a read end (or O_RDWR open) of the same pipe, -1 if none: the data is peeked through it, once per pipe
 * (pe->data points into dp until dump_pipes_free). */
int dump_pipe_fill(struct dump_pipes *dp, int fd, const struct stat *st, uint32_t flags, int read_fd,
		   PipeEntry *pe, struct cr_err *e);

/* ---- restore-pipes.c ---- */
struct rst_task;
/* Parent, before anything is created: apply --inherit-fd fd[N]:pipe:[INODE] (the matching entries become
 * FILE_INHERIT from crshim's fd N) and check the pipe and FIFO entries (FIFO paths present and FIFOs). */
int rst_pipes_prepare(const struct cr_opts *o, struct rst_task *t, struct cr_err *e);
/* Parent, once every process of the tree is loaded: a pipe held by several processes is made once in
 * crshim (size, data, flags) and becomes FILE_INHERIT in each, inherited through clone3; a FIFO held by
 * several keeps its data in one of them only (or in the description that rst_fdshare_prepare, called after
 * this, opens once; an entry of a FIFO it must leave to its process loses its tree_desc here).
 * rst_pipes_share_done closes crshim's copies (after the tree is created, before anyone waits for it). A dry
 * run (ts[0].dry, restore-check.c) makes no pipe: the descriptions of each end are counted and the entries
 * become FILE_INHERIT of fd -1. */
int rst_pipes_share(struct rst_task *ts, size_t n, struct cr_err *e);
void rst_pipes_share_done(void);
/* The bytes in flight that crshim writes into the pipes and FIFOs rst_pipes_share and rst_fdshare_prepare
 * make once for the tree (those several processes hold): the room they take in the tree's memory cgroup. */
uint64_t rst_pipes_share_bytes(const struct rst_task *ts, size_t n);
/* The pipe of pe made once in crshim as above (a pipe end in flight, restore-sk-scm.c): every entry of it
 * becomes FILE_INHERIT. */
int rst_pipes_share_one(struct rst_task *ts, size_t n, const PipeEntry *pe, struct cr_err *e);
/* A FIFO's description in flight (restore-sk-scm.c): opened once by crshim and handed over; an unlinked
 * one's FIFO is then made again once for every description of it (as for one several processes hold). */
int rst_fifo_flight(struct rst_task *ts, size_t n, FileEntry *f, struct cr_err *e);
/* A new open file description of the FIFO of f as the caller sees its path (an unlinked one: made again,
 * opened and unlinked) with open flags flags, status flags as in the image but O_ASYNC (its holder sets
 * that, files/fown.c), its pipe size, and the data in flight if rst_pipes_share left it to the description
 * of f (held by several processes, opened once: restore-fdshare.c). opener: who opens it, as given to
 * rst_fifo_opener (-1: none of those). Never blocks but for an unlinked FIFO that another of its openers
 * makes again (30 s at most). fd, or -1 with errno. */
int rst_fifo_open_desc(const FileEntry *f, int flags, pid_t opener);
/* f is an entry of an unlinked FIFO held by several processes: each of its descriptions is opened once by
 * rst_fifo_open_desc (restore-fdshare.c), also one that a single process holds, from one FIFO made again
 * (kept open in each opener until rst_fifo_helpers_close, after the last of its descriptions there). */
bool rst_fifo_all_once(const FileEntry *f);
/* Parent, from rst_fdshare_prepare before any description is opened: the description of f (an entry of
 * rst_fifo_all_once) is opened by opener, 0 for crshim or the root task (the root's mount namespace), else
 * the owner of a nested mount namespace (its pid). A FIFO with two openers or more is made again by the
 * first of them to come, which hands it to the others (through a channel the tree inherits). */
int rst_fifo_opener(const FileEntry *f, pid_t opener, struct cr_err *e);
void rst_fifo_helpers_close(void);
/* Child: put the pipe end or FIFO open of file f at fi->fd (creating the pipe on its first fd). Helper
 * fds are made >= lo. Errors as text, like rst_child_files. */
int rst_pipe_open(struct rst_task *t, int lo, const FileEntry *f, const FdinfoEntry *fi, char *msg,
		  size_t len);
/* Child, once every fd is in place: close the helper ends (an end the task did not hold is closed now). */
void rst_pipes_done(void);

#endif
