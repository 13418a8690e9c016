/* Unix sockets (engine-internal): dump-sk-unix.c (dump side) and restore-sk-unix.c (restore side).
 *
 * Dump: every fd that is a unix socket (found by inode in the sock_diag table of ns/sock-diag.c) becomes a
 * file_entry FILE_UNIXSK with a unix_sk_entry: type, state, name, peer, pending connections of a listener,
 * shutdown state, options, file status flags and the receive queue, peeked without consuming it (a
 * pidfd_getfd copy, SO_PEEK_OFF + MSG_PEEK; dgram and seqpacket messages one by one). A peer outside the
 * dumped tree needs --ext-unix-sk (the socket is reconnected to the peer's name on restore); file
 * descriptors in flight (SCM_RIGHTS) fail the dump with one line.
 *
 * Restore: every unix socket of the tree is made once, in crshim, before the tree is created (like shared
 * pipes): pairs by socketpair(), accepted connections by connect() + accept() on the restored listener,
 * pending connections by connect() to it, names bound, queued data written from the peer's side, then
 * shutdown and flags. Each entry becomes FILE_INHERIT of crshim's socket; the processes inherit them
 * through clone3. */
#ifndef CRSHIM_SK_UNIX_H
#define CRSHIM_SK_UNIX_H

#include <stdint.h>
#include <sys/stat.h>

#include "crshim.h"
#include "image.h"

struct dump_ctx;
struct dump_unix;
/* Fill fe for fd (a socket): 0 done, 1 not a unix socket (fe untouched), < 0 error. *du is made on first
 * use (the socket table of the namespace, the tree's sockets) and owns what fe points to. */
int dump_sk_unix_fill(struct dump_ctx *c, struct dump_unix **du, int fd, const struct stat *st,
		      uint32_t flags, FileEntry *fe, struct cr_err *e);
void dump_sk_unix_free(struct dump_unix *du);

struct rst_task;
/* Parent, once every process of the tree is loaded: make every unix socket; entries become FILE_INHERIT. */
int rst_sk_unix_prepare(struct rst_task *ts, size_t n, struct cr_err *e);
/* Close crshim's sockets (after the tree is created, or after a failure). */
void rst_sk_unix_done(void);

#endif
