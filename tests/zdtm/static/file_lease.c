/* Leases (fcntl F_SETLEASE), dumped with --file-locks: a read lease on an O_RDONLY fd (with a dup), a write
 * lease on an O_WRONLY fd of another file, and a second O_RDONLY fd of the first file without one. After
 * restore F_GETLEASE gives the same types on the leased descriptions (the dup too) and none on the other
 * (before: the dump failed, "holds a LEASE lock, not supported yet"); the leases still work: an open of the
 * write-leased file by another process breaks it (the lease-break signal comes). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"
#include "file_lease.h"

int main(int argc, char **argv)
{
	test_init(argc, argv);
	int rd = open("lease.rd", O_RDONLY | O_CREAT, 0644);
	int wr = open("lease.wr", O_WRONLY | O_CREAT, 0644);
	if (rd < 0 || wr < 0)
		fail("open");
	int rd2 = open("lease.rd", O_RDONLY);
	if (fcntl(rd, F_SETLEASE, F_RDLCK) || fcntl(wr, F_SETLEASE, F_WRLCK))
		fail("F_SETLEASE (%m)");
	int dup_rd = dup(rd);
	lease_catch_breaks();

	test_daemon();
	test_waitsig();

	if (fcntl(rd, F_GETLEASE) != F_RDLCK || fcntl(dup_rd, F_GETLEASE) != F_RDLCK)
		fail("read lease: %d %d", fcntl(rd, F_GETLEASE), fcntl(dup_rd, F_GETLEASE));
	if (fcntl(wr, F_GETLEASE) != F_WRLCK)
		fail("write lease: %d", fcntl(wr, F_GETLEASE));
	if (fcntl(rd2, F_GETLEASE) != F_UNLCK)
		fail("a lease on the other description: %d", fcntl(rd2, F_GETLEASE));
	const char *why = lease_breaks_on_open("lease.wr", O_RDONLY);
	if (why)
		fail("write lease: %s", why);
	pass();
	return 0;
}
