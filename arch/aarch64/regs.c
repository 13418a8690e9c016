/* aarch64: ptrace access to registers and the remote-syscall helpers (see arch/arch.h).
 * General registers: NT_PRSTATUS (struct user_regs_struct: x0..x30, sp, pc, pstate).
 * FP/SIMD: NT_PRFPREG (struct user_fpsimd_struct: v0..v31, fpsr, fpcr); if the task has live SVE state,
 * NT_ARM_SVE is what a restore needs (not done yet: tasks using SVE are refused at dump, see
 * arch_get_fpstate). */
#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/syscall.h>

#include "arch.h"
#include "base/err.h"

#ifndef NT_ARM_SVE
#define NT_ARM_SVE 0x405
#endif
/* struct user_sve_header (asm/ptrace.h): u32 size, u32 max_size, u16 vl, u16 max_vl, u16 flags, u16 reserved
 */
#define SVE_HDR_SIZE 16
#define SVE_PT_REGS_SVE                                                                                      \
	1 /* flags & 1: the registers are in SVE format (the task used SVE since its last syscall) */

const char *arch_name(void)
{
	return "aarch64";
}

/* 1 if the task's vector state is live in SVE format (then NT_PRFPREG alone would lose the upper bits). */
static int sve_live(pid_t tid)
{
	uint8_t hdr[SVE_HDR_SIZE];
	uint16_t flags;
	struct iovec iov = {hdr, sizeof(hdr)};
	if (ptrace(PTRACE_GETREGSET, tid, (void *)NT_ARM_SVE, &iov) || iov.iov_len < sizeof(hdr))
		return 0; /* no SVE on this CPU or kernel */
	memcpy(&flags, hdr + 12, sizeof(flags));
	return flags & SVE_PT_REGS_SVE;
}

int arch_get_fpstate(pid_t tid, void **buf, size_t *len, struct cr_err *e)
{
	struct user_fpsimd_struct *fp = calloc(1, sizeof(*fp));
	if (!fp)
		return cr_fail_errno(e, ENOMEM, "task %d: fpsimd: out of memory", tid);
	size_t got = sizeof(*fp);
	if (arch_regset(get, tid, NT_PRFPREG, fp, &got, e)) {
		free(fp);
		return -1;
	}
	if (sve_live(tid)) {
		free(fp);
		return cr_fail_errno(e, ENOTSUP, "task %d: live SVE register state is not supported yet",
				     tid);
	}
	*buf = fp;
	*len = got;
	return 0;
}

int arch_set_fpstate(pid_t tid, const void *buf, size_t len, struct cr_err *e)
{
	if (len != sizeof(struct user_fpsimd_struct))
		return cr_fail_errno(e, EINVAL, "task %d: fpsimd state of %zu bytes (expected %zu)", tid, len,
				     sizeof(struct user_fpsimd_struct));
	return arch_regset(set, tid, NT_PRFPREG, buf, len, e);
}

uint64_t arch_regs_ip(const void *regs)
{
	return ((const struct user_regs_struct *)regs)->pc;
}

void arch_regs_set_ip(void *regs, uint64_t ip)
{
	((struct user_regs_struct *)regs)->pc = ip;
}

uint64_t arch_regs_sp(const void *regs)
{
	return ((const struct user_regs_struct *)regs)->sp;
}

/* On arm64 the kernel prepares a syscall restart before the task can stop for the tracer (do_signal: "so that
 * a debugger will see the already changed PC"): at a PTRACE_INTERRUPT stop inside an interrupted syscall, x0
 * is already back to orig_x0, pc points at the `svc #0` again and x8 still holds the syscall number, while
 * the kernel has forgotten the syscall (NT_ARM_SYSTEM_CALL reads -1). Both the resume and the image variant
 * are therefore "re-execute the syscall" already, and there is nothing to change. The one case the registers
 * cannot show is -ERESTART_RESTARTBLOCK (the kernel would switch x8 to restart_syscall only on its way back):
 * the restored task re-executes the original call (e.g. a relative nanosleep starts over), as CRIU does on
 * arm64. A task stopped with a raw -ERESTART* code still in x0 (no rewind happened) is rewound here as far as
 * the registers allow: pc back to the svc; x0 cannot be recovered (orig_x0 is not in NT_PRSTATUS), so it
 * becomes -EINTR for the image, which userspace handles. */
#define A_ERESTARTSYS 512
#define A_ERESTARTNOINTR 513
#define A_ERESTARTNOHAND 514
#define A_ERESTART_RESTARTBLOCK 516

int arch_fixup_syscall_restart(void *resume, void *image)
{
	struct user_regs_struct *i = image;
	(void)resume; /* the kernel rewinds the live task itself when it resumes */
	switch (-(long)i->regs[0]) {
	case A_ERESTARTSYS:
	case A_ERESTARTNOINTR:
	case A_ERESTARTNOHAND:
	case A_ERESTART_RESTARTBLOCK:
		i->regs[0] = (unsigned long long)-EINTR;
		return 1;
	default:
		return 0;
	}
}

void arch_prep_syscall(void *regs, uint64_t ip, long nr, const unsigned long args[6])
{
	struct user_regs_struct *r = regs;
	r->regs[8] = (unsigned long long)nr;
	for (int i = 0; i < 6; i++)
		r->regs[i] = args[i];
	r->pc = ip;
}

long arch_syscall_result(const void *regs)
{
	return (long)((const struct user_regs_struct *)regs)->regs[0];
}

const uint8_t *arch_syscall_insn(size_t *len)
{
	static const uint8_t insn[] = {0x01, 0x00, 0x00, 0xd4}; /* svc #0 */
	*len = sizeof(insn);
	return insn;
}

/* No batch code on aarch64 yet: one remote syscall at a time. */
const uint8_t *arch_batch_code(size_t *len, size_t *trap_ip)
{
	*len = 0;
	*trap_ip = 0;
	return NULL;
}

void arch_prep_batch(void *regs, uint64_t ip, uint64_t table)
{
	(void)regs, (void)ip, (void)table;
}

long arch_cpuid_get_call(unsigned long *a0, unsigned long *a1)
{
	*a0 = *a1 = 0;
	return -1;
}
