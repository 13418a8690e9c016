/* ptrace register-set access shared by every arch (arch/arch.h): the general registers are NT_PRSTATUS
 * with the arch's struct user_regs_struct (from <sys/user.h> of the arch built), and the arch files use
 * arch_regset_get/set for their own sets (NT_X86_XSTATE, NT_PRFPREG, ...). */
#include <elf.h>
#include <errno.h>
#include <stdint.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>

#include "arch.h"
#include "base/err.h"

int arch_regset_get(pid_t tid, unsigned int note, const char *name, void *buf, size_t *len, struct cr_err *e)
{
	struct iovec iov = {buf, *len};
	if (ptrace(PTRACE_GETREGSET, tid, (void *)(uintptr_t)note, &iov))
		return cr_fail_sys(e, "task %d: PTRACE_GETREGSET(%s)", tid, name);
	*len = iov.iov_len;
	return 0;
}

int arch_regset_set(pid_t tid, unsigned int note, const char *name, const void *buf, size_t len,
		    struct cr_err *e)
{
	struct iovec iov = {(void *)buf, len};
	if (ptrace(PTRACE_SETREGSET, tid, (void *)(uintptr_t)note, &iov))
		return cr_fail_sys(e, "task %d: PTRACE_SETREGSET(%s)", tid, name);
	return 0;
}

size_t arch_gpregs_size(void)
{
	return sizeof(struct user_regs_struct);
}

int arch_get_gpregs(pid_t tid, void *regs, struct cr_err *e)
{
	size_t len = sizeof(struct user_regs_struct);
	if (arch_regset(get, tid, NT_PRSTATUS, regs, &len, e))
		return -1;
	if (len != sizeof(struct user_regs_struct))
		return cr_fail_errno(e, EINVAL, "task %d: unexpected gpregs size %zu (32-bit task?)", tid,
				     len);
	return 0;
}

int arch_set_gpregs(pid_t tid, const void *regs, struct cr_err *e)
{
	return arch_regset(set, tid, NT_PRSTATUS, regs, sizeof(struct user_regs_struct), e);
}
