/* Busy loop keeping 8 values on the x87 register stack with a non-default
 * control word; FXSAVE (non-destructive) is compared continuously in asm. */
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include "xregs.h"

int main(int argc, char **argv)
{
	static long double vals[8] __attribute__((aligned(16)));
	static unsigned char ref[512] __attribute__((aligned(64)));
	static unsigned char buf[512] __attribute__((aligned(64)));
	uint16_t cw = 0x0f7f; /* all masked, 64-bit precision, round toward zero */
	uint64_t iters = 0, seed[8];
	int res;

	test_init(argc, argv);
	datagen(seed, sizeof(seed), getpid() * 31ULL + 5);
	for (int i = 0; i < 8; i++)
		vals[i] =
		    (long double)(seed[i] >> 11) / (long double)(i * 3 + 7) * (i & 1 ? -1e100L : 1e-100L);
	test_daemon();

	asm volatile(
	    "fninit\n"
	    "fldcw %[cw]\n"
	    ".irp i," R8 "\n fldt \\i*16(%[vals])\n .endr\n"
	    "fxsave (%[ref])\n"
	    "1:\n"
	    "fxsave (%[buf])\n"
	    "mov (%[buf]), %%rdx\n"
	    "xor (%[ref]), %%rdx\n"
	    "shl $24, %%rdx\n" /* FCW, FSW, FTW only */
	    "jnz 3f\n"
	    ".irp i," R8 "\n"
	    " mov 32+\\i*16(%[buf]), %%rdx\n cmp 32+\\i*16(%[ref]), %%rdx\n jne 3f\n"
	    " movzwl 40+\\i*16(%[buf]), %%edx\n cmpw 40+\\i*16(%[ref]), %%dx\n jne 3f\n"
	    ".endr\n" XREGS_LOOP_END "5:\n"
	    "fninit\n"
	    : "=&a"(res), [it] "+m"(iters)
	    : [vals] "r"(vals), [ref] "r"(ref), [buf] "r"(buf), [cw] "m"(cw), [flag] "m"(zdtm_sigterm)
	    : "rdx", "memory", "cc", X87_CLOBBERS);

	/* ref must hold what was loaded: ST(i) = vals[7 - i], FCW = cw. */
	for (int i = 0; i < 8; i++)
		if (memcmp(ref + 32 + 16 * i, &vals[7 - i], 10))
			fail("reference ST(%d) does not match loaded value", i);
	if (memcmp(ref, &cw, 2))
		fail("reference FCW");
	if (res == 1) {
		uint16_t fcw, fsw;
		memcpy(&fcw, buf, 2);
		memcpy(&fsw, buf + 2, 2);
		fail("x87 state changed after %lu loops: FCW %#x FSW %#x FTW %#x", (unsigned long)iters, fcw,
		     fsw, buf[4]);
		for (int i = 0; i < 8; i++)
			if (memcmp(buf + 32 + 16 * i, ref + 32 + 16 * i, 10))
				test_msg("ST(%d) differs", i);
		// cppcheck-suppress knownConditionTrueFalse ; iters is an output of the asm loop above
	} else if (iters == 0) {
		fail("loop never ran");
	}
	test_msg("%lu loops", (unsigned long)iters);
	pass();
	return 0;
}
