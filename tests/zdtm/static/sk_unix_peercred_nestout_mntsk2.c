/* sk_unix_peercred_nestout_mntsk where N closes its fd of the socket it bound on its tmpfs once it sent it
 * (NESTOUT_MNT 3): held only by the test, outside the mount namespace it is bound in. The test does not find
 * its name, so the dump saved it as a removed socket of the test's namespace: the restore bound it there,
 * and a send to it from N's namespace was refused after a restore that had reported success. Now saved as
 * bound in N's namespace, which the dump refuses with one line (.desc dump-expect: its holders must be in
 * it), the tree left running. */
#define NESTOUT_MNT 3
#include "sk_unix_peercred_nestout.c"
