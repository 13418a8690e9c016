/* Bits of vma_entry.madv: the VmFlags facts of /proc/pid/smaps that a restore re-applies. */
#ifndef CRSHIM_VMA_FLAGS_H
#define CRSHIM_VMA_FLAGS_H

#define VMA_F_DONTFORK (1u << 0)    /* dc: MADV_DONTFORK */
#define VMA_F_DONTDUMP (1u << 1)    /* dd: MADV_DONTDUMP */
#define VMA_F_HUGEPAGE (1u << 2)    /* hg: MADV_HUGEPAGE */
#define VMA_F_NOHUGEPAGE (1u << 3)  /* nh: MADV_NOHUGEPAGE */
#define VMA_F_MERGEABLE (1u << 4)   /* mg: MADV_MERGEABLE */
#define VMA_F_WIPEONFORK (1u << 5)  /* wf: MADV_WIPEONFORK */
#define VMA_F_LOCKED (1u << 6)	    /* lo: mlock */
#define VMA_F_SEQ_READ (1u << 7)    /* sr: MADV_SEQUENTIAL */
#define VMA_F_RAND_READ (1u << 8)   /* rr: MADV_RANDOM */
#define VMA_F_LOCKONFAULT (1u << 9) /* lf: mlock2(MLOCK_ONFAULT), mlockall(MCL_ONFAULT) */
#define VMA_F_SEALED (1u << 10)	    /* sl: mseal */

#endif
