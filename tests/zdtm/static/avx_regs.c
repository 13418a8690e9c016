/* Busy loop keeping random values in ymm0-ymm15 (both 128-bit halves); the
 * registers are stored and compared continuously (in asm) until SIGTERM. */
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include "xregs.h"

int main(int argc, char **argv)
{
	static uint64_t exp[64] __attribute__((aligned(64)));
	static uint64_t buf[64] __attribute__((aligned(64)));
	uint64_t iters = 0;
	int res;

	test_init(argc, argv);
	__builtin_cpu_init();
	if (!__builtin_cpu_supports("avx"))
		test_skip("no AVX (CPU or OS)");
	datagen(exp, sizeof(exp), getpid() * 104729ULL + 3);
	test_daemon();

	asm volatile(".irp i," R16 "\n vmovdqu \\i*32(%[exp]), %%ymm\\i\n .endr\n"
		     "1:\n"
		     ".irp i," R16 "\n vmovdqu %%ymm\\i, \\i*32(%[buf])\n .endr\n"
		     "xor %%ecx, %%ecx\n"
		     "2: mov (%[buf],%%rcx,8), %%rdx\n"
		     "cmp (%[exp],%%rcx,8), %%rdx\n"
		     "jne 3f\n"
		     "inc %%ecx\n"
		     "cmp $64, %%ecx\n"
		     "jb 2b\n" XREGS_LOOP_END "5:\n"
		     "vzeroupper\n"
		     : "=&a"(res), [it] "+m"(iters)
		     : [exp] "r"(exp), [buf] "r"(buf), [flag] "m"(zdtm_sigterm)
		     : "rcx", "rdx", "memory", "cc", XMM_CLOBBERS);

	if (res == 1) {
		xregs_mismatch(buf, exp, 64, "ymm", 4, (unsigned long)iters);
		// cppcheck-suppress knownConditionTrueFalse ; iters is an output of the asm loop above
	} else if (iters == 0) {
		fail("loop never ran");
	}
	test_msg("%lu loops", (unsigned long)iters);
	pass();
	return 0;
}
