/* TEMPORARY weak stub so that crshim links before the engine has eng_restore.
 * A weak definition here stops the linker from pulling the real one out of libcrshim.a,
 * so it must be deleted as soon as engine/restore*.c defines eng_restore. */
#include <errno.h>
#include "crshim.h"

__attribute__((weak)) int eng_restore(struct cr_opts *o, pid_t *root_pid, struct cr_err *err)
{
	return cr_fail_errno(err, ENOSYS, "restore is not implemented yet");
}
