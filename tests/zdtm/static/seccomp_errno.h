/* A seccomp filter for the seccomp tests: syscall nr fails with errno err, all else is allowed. */
#ifndef ZDTM_SECCOMP_ERRNO_H
#define ZDTM_SECCOMP_ERRNO_H

#include <stddef.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/syscall.h>
#include <unistd.h>

static inline int seccomp_errno_filter(int nr, int err, unsigned flags)
{
	struct sock_filter f[] = {
	    BPF_STMT(BPF_LD + BPF_W + BPF_ABS, offsetof(struct seccomp_data, nr)),
	    BPF_JUMP(BPF_JMP + BPF_JEQ + BPF_K, (unsigned)nr, 0, 1),
	    BPF_STMT(BPF_RET + BPF_K, SECCOMP_RET_ERRNO | (unsigned)err),
	    BPF_STMT(BPF_RET + BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog p = {.len = 4, .filter = f};
	return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &p);
}

#endif
