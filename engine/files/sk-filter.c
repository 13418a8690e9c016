/* Socket filters (see sk-filter.h). */
#define LOG_PREFIX "sk-filter: "
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/filter.h>

#include "base/log.h"
#include "files/sk-filter.h"
#include "base/err.h"

#ifndef SO_LOCK_FILTER
#define SO_LOCK_FILTER 44
#endif

int dump_sk_filter(int sk, socklen_t n, FileEntry *fe, struct cr_err *e)
{
	struct sock_filter *code = calloc(n, sizeof(*code));
	socklen_t got = n; /* SO_GET_FILTER counts instructions, not bytes */
	int locked = 0;
	socklen_t ll = sizeof(locked);
	if (!code)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	if (getsockopt(sk, SOL_SOCKET, SO_GET_FILTER, code, &got) || got != n) {
		int err = errno;
		free(code);
		return cr_fail_errno(e, got != n ? EAGAIN : err,
				     "read its socket filter (SO_GET_FILTER, %u instructions, got %u)",
				     (unsigned)n, (unsigned)got);
	}
	if (getsockopt(sk, SOL_SOCKET, SO_LOCK_FILTER, &locked, &ll))
		locked = 0;
	fe->sk_filter.data = (uint8_t *)code;
	fe->sk_filter.len = n * sizeof(*code);
	fe->has_sk_filter = 1;
	fe->sk_filter_locked = locked != 0, fe->has_sk_filter_locked = locked != 0;
	pr_debug("socket filter of %u instructions%s\n", (unsigned)n, locked ? ", locked" : "");
	return 0;
}

void dump_sk_filter_free(FileEntry *fe)
{
	free(fe->sk_filter.data);
	fe->sk_filter.data = NULL;
	fe->sk_filter.len = 0;
	fe->has_sk_filter = fe->has_sk_filter_locked = 0;
}

int rst_sk_filter(const FileEntry *f, int fd, char *msg, size_t len)
{
	if (!f->has_sk_filter)
		return 0;
	size_t n = f->sk_filter.len / sizeof(struct sock_filter);
	if (!n || n > BPF_MAXINSNS || f->sk_filter.len % sizeof(struct sock_filter)) {
		errno = EBADMSG;
		return rst_errmsg(msg, len, "fd %d: a socket filter of %zu bytes", fd, f->sk_filter.len);
	}
	struct sock_filter have[BPF_MAXINSNS];
	socklen_t hn = BPF_MAXINSNS;
	if (!getsockopt(fd, SOL_SOCKET, SO_GET_FILTER, have, &hn) && hn == n &&
	    !memcmp(have, f->sk_filter.data, f->sk_filter.len))
		return 0; /* one description of several processes: attached by the first */
	struct sock_fprog p = {.len = (unsigned short)n, .filter = (struct sock_filter *)f->sk_filter.data};
	if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &p, sizeof(p)))
		return rst_errmsg(msg, len, "fd %d: attach its socket filter (SO_ATTACH_FILTER)", fd);
	int one = 1;
	if (f->sk_filter_locked && setsockopt(fd, SOL_SOCKET, SO_LOCK_FILTER, &one, sizeof(one)))
		return rst_errmsg(msg, len, "fd %d: lock its socket filter (SO_LOCK_FILTER)", fd);
	return 0;
}
