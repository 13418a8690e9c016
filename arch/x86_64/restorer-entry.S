/* x86_64 restorer blob: entry point, the remote-syscall instruction at a fixed offset, raw syscalls.
 * Offsets must match RST_OFF_ENTRY / RST_OFF_SYSCALL in engine/restorer/restorer-args.h. */
#include <asm/unistd.h>
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

/* long rst_clone_thread(unsigned long flags, void *stack, int32_t *ctid, void (*fn)(void *), void *arg)
 * clone(2) a thread that runs fn(arg) on stack and exits; returns its tid (or -errno) in the caller. */
	.globl	rst_clone_thread
	.hidden	rst_clone_thread
	.type	rst_clone_thread, @function
rst_clone_thread:
	andq	$-16, %rsi
	subq	$16, %rsi
	movq	%rcx, 0(%rsi)
	movq	%r8, 8(%rsi)
	movq	%rdx, %r10
	xorl	%edx, %edx
	xorl	%r8d, %r8d
	movl	$__NR_clone, %eax
	syscall
	testq	%rax, %rax
	jnz	1f
	popq	%rax
	popq	%rdi
	call	*%rax
	movl	$__NR_exit, %eax
	xorl	%edi, %edi
	syscall
	ud2
1:	ret
	.size	rst_clone_thread, .-rst_clone_thread

/* long rst_clone3_thread(struct clone_args *ca, unsigned long size, void (*fn)(void *), void *arg)
 * clone3(2) a thread (its stack is in ca) that runs fn(arg) and then stops with a trap for the tracer,
 * forever; returns its tid (or -errno) in the caller. */
	.globl	rst_clone3_thread
	.hidden	rst_clone3_thread
	.type	rst_clone3_thread, @function
rst_clone3_thread:
	pushq	%r12
	pushq	%r13
	movq	%rdx, %r12
	movq	%rcx, %r13
	movl	$__NR_clone3, %eax
	syscall
	testq	%rax, %rax
	jnz	1f
	xorl	%ebp, %ebp
	andq	$-16, %rsp
	movq	%r13, %rdi
	call	*%r12
2:	int3
	jmp	2b
1:	popq	%r13
	popq	%r12
	ret
	.size	rst_clone3_thread, .-rst_clone3_thread

	.section .note.GNU-stack, "", @progbits
