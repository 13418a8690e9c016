/* Remote syscalls in a seized task: one `syscall` instruction at a time, no injected code. */
#ifndef CRSHIM_INFECT_H
#define CRSHIM_INFECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "base/err.h"
#include "task/seize.h"

#define INFECT_REGS_MAX 1024

struct infect {
	struct seized *s;
	pid_t pid;
	uint8_t base[INFECT_REGS_MAX]; /* registers restored after every remote call */
	uint64_t sys_ip;	       /* address of a syscall instruction in the task */
	bool poked;		       /* we wrote the instruction at poke_addr */
	uint64_t poke_addr;
	long poke_orig;
	uint64_t scratch; /* remote scratch page, 0 if none */
	size_t scratch_len;
};

/* Prepare remote calls; base_regs are the registers to put back after each call. no_vdso: do not look for a
 * syscall instruction in the vDSO, patch one at the ip (the fallback; fault point no-vdso-syscall). */
int infect_start(struct infect *in, struct seized *s, const void *base_regs, bool no_vdso, struct cr_err *e);
/* Run one syscall in the task. *ret gets the raw result (-errno on failure). */
int infect_syscall(struct infect *in, long nr, const unsigned long args[6], long *ret, struct cr_err *e);
#define infect_sys(in, ret, e, nr, ...)                                                                      \
	infect_syscall((in), (nr), (const unsigned long[6]){__VA_ARGS__}, (ret), (e))
/* Map one anonymous scratch page in the task (in->scratch). */
int infect_map_scratch(struct infect *in, struct cr_err *e);
/* Read remote memory (process_vm_readv). */
int infect_read(struct infect *in, uint64_t addr, void *buf, size_t len, struct cr_err *e);
/* Undo everything: unmap the scratch page, restore poked bytes and the base registers. */
int infect_stop(struct infect *in, struct cr_err *e);

#endif
