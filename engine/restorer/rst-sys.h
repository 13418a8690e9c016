/* Raw syscalls for the restorer blob (no libc). rst_sys is in arch/<ARCH>/restorer-entry.S;
 * the numbers come from the kernel's <asm/unistd.h>. Results are -errno on failure. */
#ifndef CRSHIM_RST_SYS_H
#define CRSHIM_RST_SYS_H

#include <stdint.h>
#include <asm/unistd.h>

#ifndef __NR_mseal
#define __NR_mseal 462 /* Linux 6.10, one number on every architecture; older headers lack it */
#endif

long rst_sys(long nr, long a1, long a2, long a3, long a4, long a5, long a6);

/* A thread running fn(arg) on stack, then exit(0); *ctid is cleared (futex-woken) when it ends. */
long rst_clone_thread(unsigned long flags, void *stack, int32_t *ctid, void (*fn)(void *), void *arg);

/* A thread from clone3(ca) running fn(arg), then stopping with a trap (for the tracer) forever. */
long rst_clone3_thread(void *ca, unsigned long size, void (*fn)(void *), void *arg);

#define RST_ISERR(r) ((unsigned long)(r) > -4096ul)

static inline long sys6(long nr, long a, long b, long c, long d, long e, long f)
{
	return rst_sys(nr, a, b, c, d, e, f);
}
#define sys0(nr) sys6((nr), 0, 0, 0, 0, 0, 0)
#define sys1(nr, a) sys6((nr), (long)(a), 0, 0, 0, 0, 0)
#define sys2(nr, a, b) sys6((nr), (long)(a), (long)(b), 0, 0, 0, 0)
#define sys3(nr, a, b, c) sys6((nr), (long)(a), (long)(b), (long)(c), 0, 0, 0)
#define sys4(nr, a, b, c, d) sys6((nr), (long)(a), (long)(b), (long)(c), (long)(d), 0, 0)
#define sys5(nr, a, b, c, d, e) sys6((nr), (long)(a), (long)(b), (long)(c), (long)(d), (long)(e), 0)

#endif
