/* TLS: __thread variables (initialised and zero), the fs base (ARCH_GET_FS),
 * the TCB self pointer and errno's location survive. */
#include <asm/prctl.h>
#include <pthread.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "zdtmtst.h"

static __thread uint64_t tdata[64] = {1, 2, 3};
static __thread char tbss[4096];

int main(int argc, char **argv)
{
	unsigned long fs0 = 0, fs1 = 0;
	void *self0, *self1;
	uint64_t seed = 4242;
	int *err0;
	size_t bad;

	test_init(argc, argv);
	datagen(tdata, sizeof(tdata), seed);
	datagen(tbss, sizeof(tbss), seed + 1);
	syscall(SYS_arch_prctl, ARCH_GET_FS, &fs0);
	asm volatile("mov %%fs:0, %0" : "=r"(self0));
	err0 = &errno;
	if ((unsigned long)self0 != fs0 || (void *)pthread_self() != self0)
		fail("TCB self pointer before dump");
	test_daemon();
	test_waitsig();

	syscall(SYS_arch_prctl, ARCH_GET_FS, &fs1);
	asm volatile("mov %%fs:0, %0" : "=r"(self1));
	if (fs1 != fs0)
		fail("fs base %#lx, want %#lx", fs1, fs0);
	if (self1 != self0 || (void *)pthread_self() != self0)
		fail("%%fs:0 %p, want %p", self1, self0);
	if (&errno != err0)
		fail("errno location moved");
	if (datachk(tdata, sizeof(tdata), seed, &bad))
		fail("__thread data differs at %zu", bad);
	if (datachk(tbss, sizeof(tbss), seed + 1, &bad))
		fail("__thread bss differs at %zu", bad);
	pass();
	return 0;
}
