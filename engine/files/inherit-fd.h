/* --inherit-fd fd[N]:KEY and --external TYPE[ID] (engine-internal; engine/inherit-fd.c).
 *
 * Keys name a file as CRIU does: pipe:[INO] (or pipe[INO]), socket:[INO] (socket[INO]) for a unix socket,
 * file[MNT_ID:INODE] (hex) for a file declared external at dump, tty[RDEV:DEV] (hex st_rdev and st_dev of the
 * terminal), or a path as dumped without its leading slash ("tmp/x" for /tmp/x: a file, FIFO or device).
 *
 * Dump: `--external file[MNT_ID:INODE]` and `--external tty[RDEV:DEV]` make every fd on that file an external
 * entry (FILE_INHERIT with ext_key and no inherit_fd): nothing of it is saved, a restore needs
 * `--inherit-fd fd[N]:KEY`. `--external unix[INO]`: that unix socket's peer is outside the tree; it is dumped
 * without its queue and, at restore, given back with --inherit-fd or reconnected to its peer's name (like
 * --ext-unix-sk), else the restore fails. The key of every fd is logged (-v3) so that users can find it.
 * Other CRIU types (mnt, dev, net, pid, veth, macvlan) are accepted and have no effect here.
 *
 * Restore: the entries of every task whose file matches a key become FILE_INHERIT of crshim's fd N (dup'ed
 * to each fd that had it, with its fd flags); an external entry no key matches fails the restore before
 * anything is created, with one line naming the key. */
#ifndef CRSHIM_INHERIT_FD_H
#define CRSHIM_INHERIT_FD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "crshim.h"
#include "image/image.h"

struct rst_task;

/* Dump: if the fd (its stat and mnt_id) is declared external (--external file[...] or tty[...]), fill fe as
 * an external entry (key written into buf, which fe->ext_key then points to; fe->inherit_desc = link) and
 * return 0; 1 if it is not external. */
int dump_ext_file(const struct cr_opts *o, int fd, const struct stat *st, int mnt_id, const char *link,
		  FileEntry *fe, char *buf, size_t len);
/* Dump: is the unix socket INO declared external (--external unix[INO])? */
bool dump_ext_unix(const struct cr_opts *o, uint32_t ino);
/* Dump: log the --inherit-fd key of a written entry (-v3). */
void dump_key_log(pid_t pid, int fd, const FileEntry *fe);

/* Restore: the --inherit-fd keys applied to task t's entries (per task, before the fds are checked). */
int rst_inherit_prepare(const struct cr_opts *o, struct rst_task *t, struct cr_err *e);

#endif
