/* Leases held by a process of another uid than root's (uid 1000; as CRIU's tests run): a read and a write
 * lease on files it owns. The kernel lets only the file's owner (by fsuid) or a holder of CAP_LEASE in the
 * initial user namespace take a lease, and the restored process takes them back before its own credentials
 * are restored: in a user namespace (modes uns, cuns) root there is neither, and the restore failed
 * ("take its read lease lock again: Permission denied"; CRIU's file_lease00-04 in flavor uns). After
 * restore F_GETLEASE gives both types again under uid 1000, and the write lease still holds off an open (the
 * lease-break signal comes). Run without root (mode user), the test keeps its own uid. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <grp.h>
#include <stdio.h>
#include <unistd.h>
#include "zdtmtst.h"
#include "file_lease.h"

int main(int argc, char **argv)
{
	test_init(argc, argv);
	const uid_t uid = 1000;
	const gid_t gid = 1000;
	int rd = open("lease.rd", O_RDONLY | O_CREAT, 0644);
	int wr = open("lease.wr", O_WRONLY | O_CREAT, 0644);
	if (rd < 0 || wr < 0)
		fail("open");
	/* opened as root (the test dir is root's), leased as uid 1000 */
	if (geteuid() == 0 && (fchown(rd, uid, gid) || fchown(wr, uid, gid) || setgroups(0, NULL) ||
			       setresgid(gid, gid, gid) || setresuid(uid, uid, uid)))
		fail("become uid 1000 (%m)");
	if (fcntl(rd, F_SETLEASE, F_RDLCK) || fcntl(wr, F_SETLEASE, F_WRLCK))
		fail("F_SETLEASE (%m)");
	lease_catch_breaks();

	test_daemon();
	test_waitsig();

	if (fcntl(rd, F_GETLEASE) != F_RDLCK)
		fail("read lease: %d", fcntl(rd, F_GETLEASE));
	if (fcntl(wr, F_GETLEASE) != F_WRLCK)
		fail("write lease: %d", fcntl(wr, F_GETLEASE));
	if (geteuid() == 0 || getuid() == 0)
		fail("uid %d euid %d after restore", (int)getuid(), (int)geteuid());
	char wrp[32];
	snprintf(wrp, sizeof(wrp), "/proc/self/fd/%d", wr); /* the dir is not searchable for uid 1000 */
	const char *why = lease_breaks_on_open(wrp, O_RDONLY);
	if (why)
		fail("write lease: %s", why);
	pass();
	return 0;
}
