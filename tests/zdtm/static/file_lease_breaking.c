/* Leases being broken (another process's open was held off, EWOULDBLOCK): a write lease on an O_RDWR fd
 * broken by a read open (to a read lease) and one broken by a write open (to none). After restore each is
 * still being broken to the same type (fdinfo: LEASE BREAKING, F_GETLEASE the type it goes to), no
 * lease-break signal came again (the task saw each once), and giving the leases up works (before: the
 * dump failed, "holds a LEASE lock, not supported yet"). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "zdtmtst.h"
#include "file_lease.h"

static volatile sig_atomic_t nsig;
static void on_break(int sig __attribute__((unused)))
{
	nsig++;
}

static int breaking(int fd)
{
	char path[64], line[256];
	int yes = 0;
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	FILE *f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		yes |= !strncmp(line, "lock:", 5) && strstr(line, "LEASE") && strstr(line, "BREAKING");
	if (f)
		fclose(f);
	return yes;
}

int main(int argc, char **argv)
{
	test_init(argc, argv);
	signal(SIGIO, on_break);
	int rd = open("lease.rd", O_RDWR | O_CREAT, 0644); /* broken by a read open: to F_RDLCK */
	int un = open("lease.un", O_RDWR | O_CREAT, 0644); /* broken by a write open: to F_UNLCK */
	if (rd < 0 || un < 0 || fcntl(rd, F_SETLEASE, F_WRLCK) || fcntl(un, F_SETLEASE, F_WRLCK))
		fail("F_SETLEASE (%m)");
	if (!lease_open_held_off("lease.rd", O_RDONLY) || !lease_open_held_off("lease.un", O_WRONLY))
		fail("the opens were not held off by the leases");
	for (int i = 0; i < 100 && nsig < 2; i++)
		usleep(10000);
	if (nsig != 2 || !breaking(rd) || !breaking(un))
		fail("before: %d signals, breaking %d %d", nsig, breaking(rd), breaking(un));

	test_daemon();
	test_waitsig();

	usleep(100000);
	if (nsig != 2)
		fail("%d lease-break signals, want 2 (a break signalled again)", nsig);
	if (!breaking(rd) || fcntl(rd, F_GETLEASE) != F_RDLCK)
		fail("lease.rd: breaking %d, F_GETLEASE %d", breaking(rd), fcntl(rd, F_GETLEASE));
	if (!breaking(un) || fcntl(un, F_GETLEASE) != F_UNLCK)
		fail("lease.un: breaking %d, F_GETLEASE %d", breaking(un), fcntl(un, F_GETLEASE));
	if (fcntl(rd, F_SETLEASE, F_UNLCK) || fcntl(un, F_SETLEASE, F_UNLCK) || breaking(rd) || breaking(un))
		fail("giving the leases up (%m)");
	pass();
	return 0;
}
