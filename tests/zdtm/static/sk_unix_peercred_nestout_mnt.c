/* sk_unix_peercred_nestout with N in a mount namespace of its own too (NESTOUT_MNT: unshare(CLONE_NEWNS) and
 * a tmpfs of its own first, as under unshare --pid --mount --fork): its sockets are made in its mount and PID
 * namespaces once it stands, and the test, outside both, takes its ends from crshim. Before: N's ends named
 * crshim (pid 0 there). */
#define NESTOUT_MNT 1
#include "sk_unix_peercred_nestout.c"
