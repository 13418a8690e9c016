/* An unlinked FIFO open for reading and writing (O_RDWR, fd 40) with data in it, with old times set after
 * the data went in (atime 1000000.5, mtime 123456.789). After restore the data is there and its atime and
 * mtime are those of before: the restore writes the data back into it (which gives it new times), then sets
 * them again. Before, it had the time of the restore. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "zdtmtst.h"

#define NAME "ghost_fifo_times.fifo"
#define DATA "fifo data"
enum { FD = 40 };

int main(int argc, char **argv)
{
	struct timespec ts[2] = {{.tv_sec = 1000000, .tv_nsec = 500}, {.tv_sec = 123456, .tv_nsec = 789}};
	struct stat st;
	char buf[32] = "";
	int fd;

	test_init(argc, argv);
	if (mkfifo(NAME, 0600) || (fd = open(NAME, O_RDWR)) < 0 || dup2(fd, FD) != FD || close(fd))
		fail("make " NAME);
	if (write(FD, DATA, strlen(DATA)) != (ssize_t)strlen(DATA) || futimens(FD, ts) || unlink(NAME))
		fail("write, times or unlink " NAME);
	test_daemon();
	test_waitsig();

	if (fstat(FD, &st) || !S_ISFIFO(st.st_mode) || st.st_nlink != 0)
		fail("fd %d is not an unlinked FIFO", FD);
	else if (st.st_mtim.tv_sec != ts[1].tv_sec || st.st_mtim.tv_nsec != ts[1].tv_nsec)
		fail("mtime %ld.%09ld, want %ld.%09ld", (long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
		     (long)ts[1].tv_sec, ts[1].tv_nsec);
	else if (st.st_atim.tv_sec != ts[0].tv_sec || st.st_atim.tv_nsec != ts[0].tv_nsec)
		fail("atime %ld.%09ld, want %ld.%09ld", (long)st.st_atim.tv_sec, st.st_atim.tv_nsec,
		     (long)ts[0].tv_sec, ts[0].tv_nsec);
	else if (read(FD, buf, sizeof(buf) - 1) != (ssize_t)strlen(DATA) || strcmp(buf, DATA))
		fail("the data in it is not '" DATA "': '%s'", buf);
	else
		pass();
	return 0;
}
