/* A socket's classic BPF filter (SO_ATTACH_FILTER): its instructions read at dump with SO_GET_FILTER
 * (through a pidfd_getfd copy: the filter belongs to the socket) and its lock (SO_LOCK_FILTER), into
 * file_entry.sk_filter; attached again by the task once its fd table is in place, then locked again.
 * Any socket kind: the fd table code applies it, not the kind. */
#ifndef CRSHIM_SK_FILTER_H
#define CRSHIM_SK_FILTER_H

#include <stddef.h>
#include <sys/socket.h>

#include "base/err.h"
#include "image/image.h"

/* fe->sk_filter from socket sk (a copy of the task's), which has n instructions (SO_GET_FILTER count). */
int dump_sk_filter(int sk, socklen_t n, FileEntry *fe, struct cr_err *e);
void dump_sk_filter_free(FileEntry *fe);
/* child: f's filter on fd (if it has one); a description shared with another process that attached it
 * already (the same instructions there) is left as it is. Errors as text. */
int rst_sk_filter(const FileEntry *f, int fd, char *msg, size_t len);

#endif
