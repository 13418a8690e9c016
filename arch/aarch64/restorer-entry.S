/* aarch64 restorer blob: entry point, the remote-syscall instruction at a fixed offset, raw syscalls.
 * Offsets must match RST_OFF_ENTRY / RST_OFF_SYSCALL in engine/restorer/restorer-args.h.
 * Mirrors arch/x86_64/restorer-entry.S (same symbols). */
#include <asm/unistd.h>
#include "restorer-args.h"

	.section .text.entry, "ax", %progbits
	.globl	__blob_entry
	.hidden	__blob_entry
/* offset 0: x0 = struct rst_args *, sp = top of the blob stack */
__blob_entry:
	b	1f

	.org	RST_OFF_SYSCALL
	.globl	rst_syscall_insn
	.hidden	rst_syscall_insn
rst_syscall_insn:
	svc	#0
	brk	#0

	.balign	16
1:	mov	x9, sp
	and	x9, x9, #~15
	mov	sp, x9
	mov	x29, xzr
	mov	x30, xzr
	bl	rst_main
	/* rst_main returns only on success: stop for the tracer (SIGTRAP), forever. */
2:	brk	#0
	b	2b

	.text
/* long rst_sys(long nr, long a1, long a2, long a3, long a4, long a5, long a6) */
	.globl	rst_sys
	.hidden	rst_sys
	.type	rst_sys, %function
	.balign	4
rst_sys:
	mov	x8, x0
	mov	x0, x1
	mov	x1, x2
	mov	x2, x3
	mov	x3, x4
	mov	x4, x5
	mov	x5, x6
	svc	#0
	ret
	.size	rst_sys, .-rst_sys

/* long rst_clone_thread(unsigned long flags, void *stack, int32_t *ctid, void (*fn)(void *), void *arg)
 * clone(2) a thread that runs fn(arg) on stack and exits; returns its tid (or -errno) in the caller.
 * arm64's clone takes (flags, newsp, parent_tid, tls, child_tid). */
	.globl	rst_clone_thread
	.hidden	rst_clone_thread
	.type	rst_clone_thread, %function
	.balign	4
rst_clone_thread:
	and	x1, x1, #~15
	sub	x1, x1, #16
	stp	x3, x4, [x1]		/* fn, arg: popped by the child from its new stack */
	mov	x4, x2			/* child_tid */
	mov	x2, xzr			/* parent_tid */
	mov	x3, xzr			/* tls */
	mov	x8, #__NR_clone
	svc	#0
	cbnz	x0, 1f
	ldp	x9, x0, [sp], #16
	mov	x29, xzr
	mov	x30, xzr
	blr	x9
	mov	x0, xzr
	mov	x8, #__NR_exit
	svc	#0
	brk	#0
1:	ret
	.size	rst_clone_thread, .-rst_clone_thread

/* long rst_clone3_thread(struct clone_args *ca, unsigned long size, void (*fn)(void *), void *arg)
 * clone3(2) a thread (its stack is in ca) that runs fn(arg) and then stops with a trap for the tracer,
 * forever; returns its tid (or -errno) in the caller. */
	.globl	rst_clone3_thread
	.hidden	rst_clone3_thread
	.type	rst_clone3_thread, %function
	.balign	4
rst_clone3_thread:
	mov	x9, x2
	mov	x10, x3
	mov	x8, #__NR_clone3
	svc	#0
	cbnz	x0, 1f
	mov	x11, sp			/* the child runs on ca->stack: keep sp 16-byte aligned like x86's andq */
	and	x11, x11, #~15
	mov	sp, x11
	mov	x0, x10
	mov	x29, xzr
	mov	x30, xzr
	blr	x9
2:	brk	#0
	b	2b
1:	ret
	.size	rst_clone3_thread, .-rst_clone3_thread

	.section .note.GNU-stack, "", %progbits
