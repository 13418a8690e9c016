/* Remote syscalls in a seized task: one `syscall` instruction at a time (two syscall stops, or one
 * single-step trap), or a batch of them run by a few bytes of code (arch_batch_code) copied into the scratch
 * mapping, in one stop. */
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
	uint64_t scratch; /* remote scratch mapping (INFECT_SCRATCH_USER bytes for the caller), 0 if none */
	size_t scratch_len;
	bool trap_ok;	/* SIGTRAP may end a remote call: a single step over the syscall, one stop */
	uint64_t batch; /* remote address of the batch code in the scratch mapping, 0: none */
	size_t batch_len;
	char *maps; /* /proc/PID/maps as infect_start read it (no scratch yet; NULL: not read), until
		       infect_stop */
	/* Between remote calls the task keeps the registers and the signal mask (all but SIGTRAP) of the
	 * last one: each call sets its own; infect_stop puts base and the full mask back (two ptrace
	 * calls per task, not two per remote run). */
	bool regs_dirty, mask_trap;
};

/* The caller's part of the scratch mapping, at in->scratch (the dump: its first DUMP_SCR_CORE bytes for the
 * core's remote reads, the rest for the VMAs' memory policies asked in the same batch). */
#define INFECT_SCRATCH_USER 8192

/* One syscall of a batch: nr and arguments in, the raw result (-errno on failure) out. The layout is the
 * table that arch_batch_code reads (8 words). */
struct infect_call {
	long nr;
	unsigned long a[6];
	long ret;
};

/* Prepare remote calls; base_regs are the registers to put back after each call. no_vdso: do not look for a
 * syscall instruction in the vDSO, patch one at the ip (the fallback; fault point no-vdso-syscall). */
int infect_start(struct infect *in, struct seized *s, const void *base_regs, bool no_vdso, struct cr_err *e);
/* The same for another thread of the process whose remote syscalls lead runs (one address space): at the
 * syscall instruction lead found in the vDSO, without reading the maps again. */
int infect_start_thread(struct infect *in, const struct infect *lead, struct seized *s, const void *base_regs,
			bool no_vdso, struct cr_err *e);
/* Run one syscall in the task. *ret gets the raw result (-errno on failure). */
int infect_syscall(struct infect *in, long nr, const unsigned long args[6], long *ret, struct cr_err *e);
#define infect_sys(in, ret, e, nr, ...)                                                                      \
	infect_syscall((in), (nr), (const unsigned long[6]){__VA_ARGS__}, (ret), (e))
/* Map the scratch memory in the task (in->scratch). When SIGTRAP is neither ignored nor pending in the task
 * and the arch has the batch code (trap_ok), a remote syscall is a single step over the instruction (one
 * stop, not two), and the scratch holds the batch code when the task may map memory that is both writable
 * and executable. */
int infect_map_scratch(struct infect *in, struct cr_err *e);
/* Run the n syscalls in the task, in order; calls[i].ret gets each result. With the batch code, one stop for
 * them all; else one remote syscall each. */
int infect_batch(struct infect *in, struct infect_call *calls, size_t n, struct cr_err *e);
/* Bytes of table room beside code of code_len bytes in the batch area (0: no remote code). */
size_t infect_code_room(const struct infect *in, size_t code_len);
/* Read remote memory (process_vm_readv). */
int infect_read(struct infect *in, uint64_t addr, void *buf, size_t len, struct cr_err *e);
/* Undo everything: unmap the scratch page, restore poked bytes, the base registers and the full signal mask;
 * in->maps freed. */
int infect_stop(struct infect *in, struct cr_err *e);

#endif
