/* The arch interface: everything register- or instruction-specific lives behind it (arch/<ARCH>/).
 * Register buffers are opaque byte arrays of arch_gpregs_size() bytes, stored as-is in core images. */
#ifndef CRSHIM_ARCH_H
#define CRSHIM_ARCH_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "base/err.h"

const char *arch_name(void);   /* "x86_64" */
size_t arch_gpregs_size(void); /* sizeof(struct user_regs_struct) */

/* ---- ptrace access to a stopped tracee (arch/regset.c: general registers; arch/<ARCH>/regs.c: the rest)
 * ---- */
int arch_get_gpregs(pid_t tid, void *regs, struct cr_err *e);
int arch_set_gpregs(pid_t tid, const void *regs, struct cr_err *e);
/* PTRACE_GETREGSET / PTRACE_SETREGSET of one register set (NT_*), name for the error; get: *len in/out. */
int arch_regset_get(pid_t tid, unsigned int note, const char *name, void *buf, size_t *len, struct cr_err *e);
int arch_regset_set(pid_t tid, unsigned int note, const char *name, const void *buf, size_t len,
		    struct cr_err *e);
/* arch_regset(get|set, tid, NT_X, ...): the set named in errors as written. */
#define arch_regset(op, tid, note, ...) arch_regset_##op(tid, note, #note, __VA_ARGS__)
/* Full FPU/vector state (x86_64: NT_X86_XSTATE). *buf is malloc'ed. */
int arch_get_fpstate(pid_t tid, void **buf, size_t *len, struct cr_err *e);
int arch_set_fpstate(pid_t tid, const void *buf, size_t len, struct cr_err *e);

/* CRC32C by the CPU's instruction: the register update (no pre/post inversion, reflected polynomial
 * 0x82F63B78) of crc by len bytes at p, any alignment. NULL when this CPU (or arch) has none: the caller
 * uses tables. Safe from several threads once it returned. */
typedef uint32_t (*arch_crc32c_fn)(uint32_t crc, const void *p, size_t len);
arch_crc32c_fn arch_crc32c_hw(void);
/* a * b mod the CRC32C polynomial, reflected (bit 31 is x^0): x * x^(8n) is what n zero bytes do to the
 * register, which combines the CRCs of pieces (arch/crc32c-mul.c). */
uint32_t arch_crc32c_mul(uint32_t a, uint32_t b);

uint64_t arch_regs_ip(const void *regs);
void arch_regs_set_ip(void *regs, uint64_t ip);
uint64_t arch_regs_sp(const void *regs);

/* A task stopped by PTRACE_INTERRUPT may sit inside an interrupted syscall. Fix the registers up:
 * `resume` becomes what to set when the task is let go again on the dump side (syscall re-executed);
 * `image` becomes what the image stores (re-executed, or -EINTR for restart_syscall cases).
 * Returns 1 if the image variant returns EINTR, 0 otherwise. */
int arch_fixup_syscall_restart(void *resume, void *image);

/* Remote syscalls: set regs so that, executed at ip (which holds arch_syscall_insn), the task runs
 * syscall nr with args. Returns the result from the regs after the syscall-exit stop. */
void arch_prep_syscall(void *regs, uint64_t ip, long nr, const unsigned long args[6]);
long arch_syscall_result(const void *regs);
const uint8_t *arch_syscall_insn(size_t *len);
/* Batched remote syscalls: position-independent code that runs each syscall of a table in turn, then traps
 * (SIGTRAP, the ip at *trap_ip bytes from its start). A table entry is 8 words: nr, 6 arguments, then the
 * raw result written back; an entry with nr -1 ends the table. NULL: no such code for this arch (one
 * remote syscall at a time). */
const uint8_t *arch_batch_code(size_t *len, size_t *trap_ip);
/* Set regs so that the task runs that code at ip with the table at table. */
void arch_prep_batch(void *regs, uint64_t ip, uint64_t table);

/* The remote syscall that reads a thread's cpuid faulting (x86_64: arch_prctl(ARCH_GET_CPUID), which
 * returns 0 when cpuid faults): its number, -1 where an architecture has none (its error: not faulting). */
long arch_cpuid_get_call(unsigned long *a0, unsigned long *a1);

/* ---- restore side (arch/<ARCH>/restore.c) ---- */
/* Switch to stack and jump into the restorer blob entry with arg as its first argument. */
__attribute__((noreturn)) void arch_jump_to_blob(void *entry, void *arg, void *stack);
uint32_t arch_rseq_sig(void);
/* Names of the vDSO-related mappings in /proc/pid/maps that move together. */
extern const char *const arch_vdso_names[];

#endif
