/* Architecture steps of the restorer blob (engine/restorer/restorer.c). */
#ifndef CRSHIM_RST_ARCH_H
#define CRSHIM_RST_ARCH_H

/* No cpuid faulting here (never in an image of this architecture). */
static inline long rst_arch_cpuid_fault(void)
{
	return 0;
}

#endif
