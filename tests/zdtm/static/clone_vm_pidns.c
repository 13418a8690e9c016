/* clone_vm (with own fd tables that differ, clone_vm_fds) where the parent is PID 1 of its own PID namespace
 * (clone_vm.c): the child gets its PID inside the namespace back too. */
#define CVM_FDS 1
#define CVM_PIDNS 1
#include "clone_vm.c"
