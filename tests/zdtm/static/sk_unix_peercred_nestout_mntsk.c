/* sk_unix_peercred_nestout_mnt where N also binds a dgram socket on its tmpfs (/sk_nestout_mnt/sk) and sends
 * it to the test, both holding it (NESTOUT_MNT 2): a socket bound in a nested mount namespace held outside
 * it is not restored (the dump saves its name as the test sees it): the dump refuses it with one line
 * (.desc dump-expect) and the tree keeps running, also now that the other sockets of N's namespace held
 * outside it are made there. */
#define NESTOUT_MNT 2
#include "sk_unix_peercred_nestout.c"
