/* clone_vm with CLONE_FILES too: one address space, one signal handler table, one fd table (clone_vm.c). */
#define CVM_FILES 1
#include "clone_vm.c"
