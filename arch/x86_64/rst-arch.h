/* Architecture steps of the restorer blob (engine/restorer/restorer.c). */
#ifndef CRSHIM_RST_ARCH_H
#define CRSHIM_RST_ARCH_H

#include "rst-sys.h"

/* cpuid faulting on for the calling thread (arch_prctl(ARCH_SET_CPUID, 0)): the blob runs no cpuid after. */
static inline long rst_arch_cpuid_fault(void)
{
	return sys2(__NR_arch_prctl, 0x1012 /* ARCH_SET_CPUID */, 0);
}

#endif
