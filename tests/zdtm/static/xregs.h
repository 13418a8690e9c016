/* Helpers of the x86 register tests (fpu_regs, sse_regs, avx_regs, fpu_sleep): asm pieces and the verdict. */
#ifndef ZDTM_XREGS_H
#define ZDTM_XREGS_H
#include <stddef.h>
#include <stdint.h>
#include "zdtmtst.h"

#define R16 "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15"
#define R8 "0,1,2,3,4,5,6,7"
#define XMM_CLOBBERS                                                                                         \
	"xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11",    \
	    "xmm12", "xmm13", "xmm14", "xmm15"
#define X87_CLOBBERS "st", "st(1)", "st(2)", "st(3)", "st(4)", "st(5)", "st(6)", "st(7)"

/* The end of a compare loop that starts at label 1: count a round in %[it], go again until SIGTERM
 * (%[flag]), then eax = 0 and on to label 5; label 3 (a mismatch) sets eax = 1 and falls through. */
#define XREGS_LOOP_END                                                                                       \
	"incq %[it]\n"                                                                                       \
	"cmpl $0, %[flag]\n"                                                                                 \
	"je 1b\n"                                                                                            \
	"xor %%eax, %%eax\n"                                                                                 \
	"jmp 5f\n"                                                                                           \
	"3: mov $1, %%eax\n"

/* fail() for the first of the n qwords of buf that is not exp's: register reg<k / per>, qword k % per. */
static inline void xregs_mismatch(const uint64_t *buf, const uint64_t *exp, size_t n, const char *reg,
				  size_t per, unsigned long iters)
{
	for (size_t k = 0; k < n; k++)
		if (buf[k] != exp[k]) {
			fail("%s%zu qword %zu: %#lx, want %#lx (after %lu loops)", reg, k / per, k % per,
			     (unsigned long)buf[k], (unsigned long)exp[k], iters);
			return;
		}
}
#endif
