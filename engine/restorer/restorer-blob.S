/* The restorer blob (build/restorer.bin) embedded into crshim. Plain assembler directives, any arch. */
	.section .rodata
	.balign 4096
	.globl crshim_restorer_blob
	.globl crshim_restorer_blob_end
crshim_restorer_blob:
	.incbin "restorer.bin"
crshim_restorer_blob_end:
	.section .note.GNU-stack,"",%progbits
