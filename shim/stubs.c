/* TEMPORARY weak stubs so that crshim links before the engine has these entry points.
 * A weak definition here stops the linker from pulling the real one out of libcrshim.a,
 * so each stub must be deleted as soon as the real function exists in the engine. */
#include <errno.h>
#include "crshim.h"

__attribute__((weak)) int eng_dump(struct cr_opts *o, struct cr_err *err)
{
	return cr_fail_errno(err, ENOSYS, "dump is not implemented yet");
}

__attribute__((weak)) int eng_restore(struct cr_opts *o, pid_t *root_pid, struct cr_err *err)
{
	return cr_fail_errno(err, ENOSYS, "restore is not implemented yet");
}
