/* x86_64 restorer blob: entry point, the remote-syscall instruction at a fixed offset, raw syscalls.
 * Offsets must match RST_OFF_ENTRY / RST_OFF_SYSCALL in engine/restorer/restorer-args.h. */
#include "restorer-args.h"

	.section .text.entry, "ax", @progbits
	.globl __blob_entry
	.hidden __blob_entry
/* offset 0: rdi = struct rst_args *, rsp = top of the blob stack */
__blob_entry:
	jmp	1f

	.org	RST_OFF_SYSCALL
	.globl	rst_syscall_insn
	.hidden	rst_syscall_insn
rst_syscall_insn:
	syscall
	int3

	.balign	16
1:	andq	$-16, %rsp
	xorl	%ebp, %ebp
	call	rst_main
	/* rst_main returns only on success: stop for the tracer (SIGTRAP), forever. */
2:	int3
	jmp	2b

	.text
/* long rst_sys(long nr, long a1, long a2, long a3, long a4, long a5, long a6) */
	.globl	rst_sys
	.hidden	rst_sys
	.type	rst_sys, @function
rst_sys:
	movq	%rdi, %rax
	movq	%rsi, %rdi
	movq	%rdx, %rsi
	movq	%rcx, %rdx
	movq	%r8, %r10
	movq	%r9, %r8
	movq	8(%rsp), %r9
	syscall
	ret
	.size	rst_sys, .-rst_sys

	.section .note.GNU-stack, "", @progbits
