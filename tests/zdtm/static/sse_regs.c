/* Busy loop keeping random values in xmm0-xmm15 and a non-default MXCSR; the
 * registers are stored and compared continuously (in asm) until SIGTERM. */
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include "xregs.h"

int main(int argc, char **argv)
{
	static uint64_t exp[32] __attribute__((aligned(64)));
	static uint64_t buf[36] __attribute__((aligned(64)));
	uint32_t mxcsr = 0x1f80 | 0x6000 | 0x8000; /* masks, round toward zero, FTZ */
	uint64_t iters = 0;
	int res;

	test_init(argc, argv);
	if (!__builtin_cpu_supports("sse2"))
		test_skip("no SSE2");
	datagen(exp, sizeof(exp), getpid() * 7919ULL + 1);
	test_daemon();

	asm volatile("ldmxcsr %[mx]\n"
		     ".irp i," R16 "\n movdqu \\i*16(%[exp]), %%xmm\\i\n .endr\n"
		     "1:\n"
		     ".irp i," R16 "\n movdqu %%xmm\\i, \\i*16(%[buf])\n .endr\n"
		     "stmxcsr 256(%[buf])\n"
		     "xor %%ecx, %%ecx\n"
		     "2: mov (%[buf],%%rcx,8), %%rdx\n"
		     "cmp (%[exp],%%rcx,8), %%rdx\n"
		     "jne 3f\n"
		     "inc %%ecx\n"
		     "cmp $32, %%ecx\n"
		     "jb 2b\n"
		     "mov 256(%[buf]), %%edx\n"
		     "cmp %[mx], %%edx\n"
		     "jne 4f\n" XREGS_LOOP_END "jmp 5f\n"
		     "4: mov $2, %%eax\n"
		     "5:\n"
		     "mov $0x1f80, %%edx\n"
		     "mov %%edx, 264(%[buf])\n"
		     "ldmxcsr 264(%[buf])\n"
		     : "=&a"(res), [it] "+m"(iters)
		     : [exp] "r"(exp), [buf] "r"(buf), [mx] "m"(mxcsr), [flag] "m"(zdtm_sigterm)
		     : "rcx", "rdx", "memory", "cc", XMM_CLOBBERS);

	if (res == 1) {
		xregs_mismatch(buf, exp, 32, "xmm", 2, (unsigned long)iters);
	} else if (res == 2) {
		fail("MXCSR %#x, want %#x", (unsigned)buf[32] & 0xffffffff, mxcsr);
		// cppcheck-suppress knownConditionTrueFalse ; iters is an output of the asm loop above
	} else if (iters == 0) {
		fail("loop never ran");
	}
	test_msg("%lu loops", (unsigned long)iters);
	pass();
	return 0;
}
