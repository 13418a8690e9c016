/* clone_vm where the child has its own fd table that differs from the parent's: another file at fd 50 at
 * another offset, fd 60 only in the child, a pipe made before the clone in both (clone_vm.c). */
#define CVM_FDS 1
#include "clone_vm.c"
