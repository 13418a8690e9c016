/* The dump's page code for x86_64 (arch/arch-pages.h). The table at %r12; per record: the SSE4.2 crc32
 * instruction over three streams of the block at once (its latency is three cycles, its throughput one)
 * and its tail, combined by crshim (arch_pages_csum), then vmsplice of the block until all is in the pipe.
 * Registers are the dumped task's own, put back by infect afterwards. */
#include <cpuid.h>
#include "arch-pages.h"

_Static_assert(sizeof(struct arch_pages_head) == 32 && sizeof(struct arch_pages_rec) == 32,
	       "the offsets of the code below");

__asm__(".section .rodata\n"
	".balign 64\n"
	"pages_code:\n"
	"	mov 8(%r12), %r13\n"  /* records left */
	"	lea 32(%r12), %r14\n" /* the record */
	"	movq $0, 16(%r12)\n"
	"	movq $0, 24(%r12)\n"
	"1:	test %r13, %r13\n"
	"	jz 9f\n"
	"	mov (%r14), %rsi\n" /* p */
	"	mov 8(%r14), %rax\n"
	"	xor %edx, %edx\n"
	"	mov $24, %ecx\n"
	"	div %rcx\n" /* words per stream, tail bytes */
	"	mov %rax, %rcx\n"
	"	lea (,%rax,8), %r8\n" /* n */
	"	mov %rdx, %r9\n"
	"	mov $0xffffffff, %eax\n"
	"	xor %ebx, %ebx\n"
	"	xor %edi, %edi\n"
	"	jrcxz 3f\n"
	"2:	crc32q (%rsi), %rax\n"
	"	crc32q (%rsi,%r8), %rbx\n"
	"	crc32q (%rsi,%r8,2), %rdi\n"
	"	add $8, %rsi\n"
	"	dec %rcx\n"
	"	jnz 2b\n"
	"3:	lea (%rsi,%r8,2), %rsi\n" /* the tail, at 3n */
	"	xor %edx, %edx\n"
	"	shr $3, %r9\n"
	"	jz 5f\n"
	"4:	crc32q (%rsi), %rdx\n"
	"	add $8, %rsi\n"
	"	dec %r9\n"
	"	jnz 4b\n"
	"5:	mov %eax, 16(%r14)\n"
	"	mov %ebx, 20(%r14)\n"
	"	mov %edi, 24(%r14)\n"
	"	mov %edx, 28(%r14)\n"
	"6:	mov (%r12), %rdi\n" /* vmsplice(fd, record as iovec, 1, 0) */
	"	mov %r14, %rsi\n"
	"	mov $1, %edx\n"
	"	xor %r10d, %r10d\n"
	"	mov $278, %eax\n"
	"	syscall\n"
	"	cmp $-4, %rax\n" /* EINTR */
	"	je 6b\n"
	"	test %rax, %rax\n"
	"	jle 8f\n"
	"	add %rax, (%r14)\n"
	"	sub %rax, 8(%r14)\n"
	"	jnz 6b\n"
	"	add $32, %r14\n"
	"	dec %r13\n"
	"	jmp 1b\n"
	"8:	mov %rax, 16(%r12)\n"
	"	mov %r13, 24(%r12)\n"
	"9:	int3\n"
	"pages_trap:\n"
	"	jmp 9b\n"
	"pages_end:\n"
	".previous\n");

extern const uint8_t pages_code[], pages_trap[], pages_end[];

const uint8_t *arch_pages_code(size_t *len, size_t *trap_ip)
{
	unsigned int a, b, c, d;
	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_SSE4_2))
		return NULL;
	/* (labels of one asm block: their addresses' difference, not a subtraction of C objects) */
	*len = (size_t)((uintptr_t)pages_end - (uintptr_t)pages_code);
	*trap_ip = (size_t)((uintptr_t)pages_trap - (uintptr_t)pages_code);
	return pages_code;
}
