/* x86_64: ptrace access to registers and the remote-syscall helpers (see arch/arch.h). */
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

#ifndef NT_X86_XSTATE
#define NT_X86_XSTATE 0x202
#endif

/* Kernel-internal restart codes, visible in rax of a task stopped inside an interrupted syscall. */
#define X_ERESTARTSYS 512
#define X_ERESTARTNOINTR 513
#define X_ERESTARTNOHAND 514
#define X_ERESTART_RESTARTBLOCK 516

const char *arch_name(void)
{
	return "x86_64";
}

int arch_get_fpstate(pid_t tid, void **buf, size_t *len, struct cr_err *e)
{
	size_t cap = 64 * 1024; /* larger than any xsave area (AMX included) */
	void *b = calloc(1, cap);
	if (!b)
		return cr_fail_errno(e, ENOMEM, "task %d: xstate: out of memory", tid);
	size_t got = cap;
	if (arch_regset(get, tid, NT_X86_XSTATE, b, &got, e)) {
		free(b);
		return -1;
	}
	void *s = realloc(b, got); /* shrink to what the kernel wrote; on failure keep b */
	if (s)
		b = s;
	*buf = b;
	*len = got;
	return 0;
}

int arch_set_fpstate(pid_t tid, const void *buf, size_t len, struct cr_err *e)
{
	return arch_regset(set, tid, NT_X86_XSTATE, buf, len, e);
}

uint64_t arch_regs_ip(const void *regs)
{
	return ((const struct user_regs_struct *)regs)->rip;
}

void arch_regs_set_ip(void *regs, uint64_t ip)
{
	((struct user_regs_struct *)regs)->rip = ip;
}

uint64_t arch_regs_sp(const void *regs)
{
	return ((const struct user_regs_struct *)regs)->rsp;
}

int arch_fixup_syscall_restart(void *resume, void *image)
{
	struct user_regs_struct *r = resume, *i = image;
	long ax = (long)r->rax;
	int eintr = 0;

	if ((long)r->orig_rax < 0)
		return 0;
	switch (-ax) {
	case X_ERESTARTSYS:
	case X_ERESTARTNOINTR:
	case X_ERESTARTNOHAND:
		r->rax = r->orig_rax;
		r->rip -= 2;
		i->rax = i->orig_rax;
		i->rip -= 2;
		break;
	case X_ERESTART_RESTARTBLOCK:
		r->rax = __NR_restart_syscall;
		r->rip -= 2;
		/* The kernel's restart block does not survive a restore. A relative sleep that was given a
		 * "remaining" buffer has just written the time left there: sleep that again. Else EINTR. */
		if (i->orig_rax == __NR_nanosleep && i->rsi) {
			i->rax = i->orig_rax;
			i->rdi = i->rsi;
			i->rip -= 2;
		} else if (i->orig_rax == __NR_clock_nanosleep && i->r10 &&
			   !(i->rsi & 1 /* TIMER_ABSTIME */)) {
			i->rax = i->orig_rax;
			i->rdx = i->r10;
			i->rip -= 2;
		} else {
			i->rax = (unsigned long long)-EINTR;
			eintr = 1;
		}
		break;
	default:
		break;
	}
	/* Never let the kernel's own restart logic act on these registers again. */
	r->orig_rax = (unsigned long long)-1;
	i->orig_rax = (unsigned long long)-1;
	return eintr;
}

void arch_prep_syscall(void *regs, uint64_t ip, long nr, const unsigned long args[6])
{
	struct user_regs_struct *r = regs;
	r->rax = (unsigned long long)nr;
	r->orig_rax = (unsigned long long)-1;
	r->rdi = args[0];
	r->rsi = args[1];
	r->rdx = args[2];
	r->r10 = args[3];
	r->r8 = args[4];
	r->r9 = args[5];
	r->rip = ip;
}

long arch_syscall_result(const void *regs)
{
	return (long)((const struct user_regs_struct *)regs)->rax;
}

const uint8_t *arch_syscall_insn(size_t *len)
{
	static const uint8_t insn[] = {0x0f, 0x05};
	*len = sizeof(insn);
	return insn;
}

/* The table at %r12:
 *   1: mov (%r12),%rax; cmp $-1,%rax; je 2f
 *      mov 8(%r12),%rdi; mov 16(%r12),%rsi; mov 24(%r12),%rdx; mov 32(%r12),%r10; mov 40(%r12),%r8
 *      mov 48(%r12),%r9; syscall; mov %rax,56(%r12); add $64,%r12; jmp 1b
 *   2: int3
 *   3: jmp 3b */
const uint8_t *arch_batch_code(size_t *len, size_t *trap_ip)
{
	static const uint8_t code[] = {0x49, 0x8b, 0x04, 0x24, 0x48, 0x83, 0xf8, 0xff, 0x74, 0x2b, 0x49, 0x8b,
				       0x7c, 0x24, 0x08, 0x49, 0x8b, 0x74, 0x24, 0x10, 0x49, 0x8b, 0x54, 0x24,
				       0x18, 0x4d, 0x8b, 0x54, 0x24, 0x20, 0x4d, 0x8b, 0x44, 0x24, 0x28, 0x4d,
				       0x8b, 0x4c, 0x24, 0x30, 0x0f, 0x05, 0x49, 0x89, 0x44, 0x24, 0x38, 0x49,
				       0x83, 0xc4, 0x40, 0xeb, 0xcb, 0xcc, 0xeb, 0xfe};
	*len = sizeof(code);
	*trap_ip = 0x36; /* right after the int3 */
	return code;
}

void arch_prep_batch(void *regs, uint64_t ip, uint64_t table)
{
	struct user_regs_struct *r = regs;
	r->r12 = table;
	r->orig_rax = (unsigned long long)-1;
	r->rip = ip;
}

long arch_cpuid_get_call(unsigned long *a0, unsigned long *a1)
{
	*a0 = 0x1011; /* ARCH_GET_CPUID (asm/prctl.h) */
	*a1 = 0;
	return __NR_arch_prctl;
}
