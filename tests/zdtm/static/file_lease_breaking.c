/* A write lease being broken (another process's open was held off: the lease is BREAKING until its holder
 * gives it up or lease-break-time passes): the dump is refused with one line ("lease being broken"), the
 * test keeps running with its lease as it was. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"
#include "file_lease.h"

int main(int argc, char **argv)
{
	test_init(argc, argv);
	signal(SIGIO, SIG_IGN);
	int wr = open("lease.wr", O_WRONLY | O_CREAT, 0644);
	if (wr < 0 || fcntl(wr, F_SETLEASE, F_WRLCK))
		fail("F_SETLEASE (%m)");
	if (!lease_open_held_off("lease.wr"))
		fail("the open was not held off by the lease");

	test_daemon();
	test_waitsig();

	/* still ours, being broken to a read lease (or gone, had lease-break-time passed) */
	int t = fcntl(wr, F_GETLEASE);
	if (t != F_RDLCK && t != F_UNLCK)
		fail("lease %d while being broken", t);
	pass();
	return 0;
}
