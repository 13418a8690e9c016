/* Busy loop keeping random values in ymm0-ymm15 (both 128-bit halves); the
 * registers are stored and compared continuously (in asm) until SIGTERM. */
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include "zdtmtst.h"

#define R16 "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15"

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
		     "jb 2b\n"
		     "incq %[it]\n"
		     "cmpl $0, %[flag]\n"
		     "je 1b\n"
		     "xor %%eax, %%eax\n"
		     "jmp 5f\n"
		     "3: mov $1, %%eax\n"
		     "5:\n"
		     "vzeroupper\n"
		     : "=&a"(res), [it] "+m"(iters)
		     : [exp] "r"(exp), [buf] "r"(buf), [flag] "m"(zdtm_sigterm)
		     : "rcx", "rdx", "memory", "cc", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6",
		       "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15");

	if (res == 1) {
		for (int i = 0; i < 64; i++)
			if (buf[i] != exp[i]) {
				fail("ymm%d qword %d: %#lx, want %#lx (after %lu loops)", i / 4, i % 4,
				     (unsigned long)buf[i], (unsigned long)exp[i], (unsigned long)iters);
				break;
			}
	} else if (iters == 0) {
		fail("loop never ran");
	}
	test_msg("%lu loops", (unsigned long)iters);
	pass();
	return 0;
}
