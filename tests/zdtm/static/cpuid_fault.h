/* For cpuid_fault.c and cpuid_fault_vm.c: x86_64 cpuid faulting (arch_prctl ARCH_SET_CPUID). */
#include <errno.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "zdtmtst.h"

#ifdef __x86_64__
#include <asm/prctl.h>

/* test_init, then cpuid faulting on (a CPU without it: the test skips) */
static void cpuid_fault_init(int argc, char **argv)
{
	test_init(argc, argv);
	if (!syscall(SYS_arch_prctl, ARCH_SET_CPUID, 0))
		return;
	if (errno == ENODEV)
		test_skip("no cpuid faulting on this CPU");
	fail("ARCH_SET_CPUID 0");
	exit(1);
}
#else
int main(int argc, char **argv)
{
	test_init(argc, argv);
	test_skip("x86_64 only");
}
#endif
