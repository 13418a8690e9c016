/* A task in a user namespace of its own whose real and saved uid and gid are not mapped in it: it set them
 * to 1000 (effective ids still 0) before unshare(CLONE_NEWUSER), and its maps hold only its effective ids
 * (0 0 1, as a task may write for itself). The restore makes the credentials those of the namespace
 * (ns_rst_map_creds) and cannot: it failed with "uid 1000 is not mapped in its user namespace" after the
 * dump had killed the tree. The dump's check now refuses it with that line, the task keeps running. */
#include "userns_refused.h"

int main(int argc, char **argv)
{
	test_init(argc, argv);
	if (setresgid(1000, 0, 1000) || setresuid(1000, 0, 1000))
		fail("setresuid/setresgid 1000 0 1000");
	unsigned long ino = uref_enter();
	uid_t r, e, s;
	if (getresuid(&r, &e, &s) || r != 65534 || e != 0 || s != 65534)
		fail("in the namespace: uids %u %u %u, want 65534 0 65534", r, e, s);
	return uref_done(ino, NULL);
}
