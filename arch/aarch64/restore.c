/* aarch64: the restore-side arch helpers (see arch/arch.h). */
#include <stddef.h>
#include <stdint.h>
#include "arch.h"

__attribute__((noreturn)) void arch_jump_to_blob(void *entry, void *arg, void *stack)
{
	register void *x0 __asm__("x0") = arg;
	__asm__ volatile("mov sp, %1\n\t"
			 "mov x29, xzr\n\t"
			 "mov x30, xzr\n\t"
			 "br %2\n\t"
			 :
			 : "r"(x0), "r"(stack), "r"(entry)
			 : "memory");
	__builtin_unreachable();
}

/* The signature glibc registers rseq with on aarch64 (RSEQ_SIG: a `brk #0x45e0` encoding). */
uint32_t arch_rseq_sig(void)
{
	return 0xd428bc00;
}

/* arm64 (6.x, generic vDSO data store): one [vvar] (data pages, time namespace page included) and [vdso].
 * There is no [vvar_vclock] (that one is x86's pvclock/hvclock page) and no [vsyscall]. */
const char *const arch_vdso_names[] = {"[vvar]", "[vdso]", NULL};
