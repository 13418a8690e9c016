/* FPU state of a sleeping task (it lives in the kernel, not in live registers,
 * while dumped): ymm0-15 (or xmm0-15 without AVX), MXCSR and the x87 control
 * word and stack are loaded in asm, then the task sleeps in raw pause()
 * syscalls (which do not touch them) until SIGTERM; then all are compared. */
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "xregs.h"

int main(int argc, char **argv)
{
	static uint64_t exp[64] __attribute__((aligned(64))), buf[64] __attribute__((aligned(64)));
	static unsigned char fx0[512] __attribute__((aligned(64))), fx1[512] __attribute__((aligned(64)));
	static long double vals[8] __attribute__((aligned(16)));
	uint32_t mxcsr = 0x1f80 | 0x4000 | 0x0040, mx1 = 0; /* round down, DAZ */
	uint16_t cw = 0x0e7f;				    /* round up, 64-bit precision */
	uint64_t seed[8];
	int avx, wakeups = 0, i;

	test_init(argc, argv);
	__builtin_cpu_init();
	avx = __builtin_cpu_supports("avx");
	datagen(exp, sizeof(exp), getpid() * 7ULL + 11);
	datagen(seed, sizeof(seed), getpid() * 5ULL);
	for (i = 0; i < 8; i++)
		vals[i] = (long double)(seed[i] >> 12) * (i + 1) / 7.0L;
	test_daemon();

#define SLEEP_LOOP                                                                                           \
	"1:\n"                                                                                               \
	"incl %[wk]\n"                                                                                       \
	"mov %[nr], %%eax\n"                                                                                 \
	"syscall\n"                                                                                          \
	"cmpl $0, %[flag]\n"                                                                                 \
	"je 1b\n"
/* x87 state loaded and saved to fx0, MXCSR loaded; in, out, clobbers */
#define SLEEP_PRE                                                                                            \
	"ldmxcsr %[mx]\n fninit\n fldcw %[cw]\n"                                                             \
	".irp i," R8 "\n fldt \\i*16(%[vals])\n .endr\n"                                                     \
	"fxsave (%[fx0])\n"
#define SLEEP_IO                                                                                             \
	: [wk] "+m"(wakeups), [mx1] "=m"(mx1)                                                                \
	: [exp] "r"(exp), [buf] "r"(buf), [fx0] "r"(fx0), [fx1] "r"(fx1), [vals] "r"(vals), [mx] "m"(mxcsr), \
	  [cw] "m"(cw), [nr] "i"(SYS_pause), [flag] "m"(zdtm_sigterm)                                        \
	: "rax", "rcx", "r11", "memory", "cc", XMM_CLOBBERS, X87_CLOBBERS
	if (avx) {
		asm volatile(SLEEP_PRE ".irp i," R16
				       "\n vmovdqu \\i*32(%[exp]), %%ymm\\i\n .endr\n" SLEEP_LOOP
				       ".irp i," R16 "\n vmovdqu %%ymm\\i, \\i*32(%[buf])\n .endr\n"
				       "fxsave (%[fx1])\n stmxcsr %[mx1]\n fninit\n vzeroupper\n" SLEEP_IO);
	} else {
		asm volatile(SLEEP_PRE ".irp i," R16 "\n movdqu \\i*16(%[exp]), %%xmm\\i\n .endr\n" SLEEP_LOOP
				       ".irp i," R16 "\n movdqu %%xmm\\i, \\i*16(%[buf])\n .endr\n"
				       "fxsave (%[fx1])\n stmxcsr %[mx1]\n fninit\n" SLEEP_IO);
		for (i = 0; i < 64; i++) /* only xmm stored: compare halves */
			if (i >= 32)
				buf[i] = exp[i] = 0;
	}
	size_t n = avx ? 64 : 32;
	for (size_t k = 0; k < n; k++)
		if (buf[k] != exp[k]) {
			fail("%s%zu qword %zu: %#lx, want %#lx", avx ? "ymm" : "xmm", avx ? k / 4 : k / 2,
			     avx ? k % 4 : k % 2, (unsigned long)buf[k], (unsigned long)exp[k]);
			break;
		}
	// cppcheck-suppress knownConditionTrueFalse ; mx1 is an output of the asm above (stmxcsr)
	if (mx1 != mxcsr)
		fail("MXCSR %#x, want %#x", mx1, mxcsr);
	if (memcmp(fx0, fx1, 2))
		fail("x87 control word changed");
	for (i = 0; i < 8; i++)
		if (memcmp(fx0 + 32 + 16 * i, fx1 + 32 + 16 * i, 10))
			fail("x87 ST(%d) changed", i);
	test_msg("%d wakeups, avx %d", wakeups, avx);
	pass();
	return 0;
}
