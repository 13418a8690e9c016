/* x86_64: the restore-side arch helpers (see arch/arch.h). */
#include <stddef.h>
#include <stdint.h>
#include "arch.h"

__attribute__((noreturn)) void arch_jump_to_blob(void *entry, void *arg, void *stack)
{
	__asm__ volatile("movq %0, %%rsp\n\t"
			 "xorl %%ebp, %%ebp\n\t"
			 "jmpq *%1\n\t"
			 :
			 : "c"(stack), "a"(entry), "D"(arg)
			 : "memory");
	__builtin_unreachable();
}

/* The signature glibc registers rseq with on x86_64 (RSEQ_SIG). */
uint32_t arch_rseq_sig(void)
{
	return 0x53053053;
}

const char *const arch_vdso_names[] = {"[vvar]", "[vvar_vclock]", "[vdso]", NULL};
