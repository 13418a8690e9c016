/* Links of /proc/PID/fd held by O_PATH | O_NOFOLLOW fds (the link itself, not its file): our own
 * /proc/self/fd/5 (fd 5 a file of ours) as fd 20, a child's /proc/CHILD/fd/7 (fd 7 a file of the child) as
 * fd 21, the child holds our /proc/PARENT/fd/5 as its fd 8, and the status of our own thread in
 * /proc/self/task/PID read at an offset (fd 22). After restore fds 20 and 21 are still links (S_ISLNK) that
 * read as the files those fds hold, the child's fd 8 is there (so each process's fds were there before
 * another one opened their links), and fd 22 says our pid, at the same offset. */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

enum { OWN_LINK = 20, CHILD_LINK = 21, TASK_STATUS = 22 };

/* fd is an O_PATH link whose target is want. */
static void check_link(int fd, const char *want)
{
	char l[PATH_MAX];
	struct stat st;
	ssize_t n = readlinkat(fd, "", l, sizeof(l) - 1);
	if (fstatat(fd, "", &st, AT_EMPTY_PATH) || !S_ISLNK(st.st_mode)) {
		fail("fd %d: not a link of /proc", fd);
		return;
	}
	l[n > 0 ? n : 0] = '\0';
	if (n <= 0 || strcmp(l, want))
		fail("fd %d reads as %s, want %s", fd, l, want);
}

int main(int argc, char **argv)
{
	char top[PATH_MAX - 64], own[PATH_MAX], cfile[PATH_MAX], path[64], buf[4096];
	int ready[2], fd;
	off_t off;
	pid_t ch;

	test_init(argc, argv);
	if (!getcwd(top, sizeof(top)) || pipe(ready))
		fail("setup");
	ready[0] = fcntl(ready[0], F_DUPFD, 40); /* away from the fd numbers used below */
	ready[1] = fcntl(ready[1], F_DUPFD, 40);
	snprintf(own, sizeof(own), "%s/own_file", top);
	snprintf(cfile, sizeof(cfile), "%s/child_file", top);
	fd = open(own, O_RDWR | O_CREAT, 0600);
	if (fd < 0 || dup2(fd, 5) != 5)
		fail("setup: own file");
	ch = fork();
	if (ch == 0) {
		snprintf(path, sizeof(path), "/proc/%d/fd/5", getppid());
		fd = open(cfile, O_RDWR | O_CREAT, 0600);
		if (fd < 0 || dup2(fd, 7) != 7 || dup2(open(path, O_PATH | O_NOFOLLOW), 8) != 8 ||
		    write(ready[1], "r", 1) != 1)
			_exit(1);
		tree_sleep();
	}
	if (ch < 0 || read(ready[0], buf, 1) != 1)
		fail("setup: child");
	snprintf(path, sizeof(path), "/proc/%d/fd/7", ch);
	if (dup2(open("/proc/self/fd/5", O_PATH | O_NOFOLLOW), OWN_LINK) != OWN_LINK ||
	    dup2(open(path, O_PATH | O_NOFOLLOW), CHILD_LINK) != CHILD_LINK)
		fail("setup: open the links");
	snprintf(path, sizeof(path), "/proc/self/task/%d/status", getpid());
	if (dup2(open(path, O_RDONLY), TASK_STATUS) != TASK_STATUS || read(TASK_STATUS, buf, 10) != 10)
		fail("setup: task status");
	off = lseek(TASK_STATUS, 0, SEEK_CUR);
	check_link(OWN_LINK, own);
	check_link(CHILD_LINK, cfile);
	test_daemon();
	test_waitsig();

	check_link(OWN_LINK, own);
	check_link(CHILD_LINK, cfile);
	snprintf(path, sizeof(path), "/proc/%d/fd/8", ch);
	ssize_t n = readlink(path, buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	snprintf(own, sizeof(own), "/proc/%d/fd/5", getpid());
	if (strcmp(buf, own))
		fail("the child's fd 8 is %s, want %s", buf, own);
	if (lseek(TASK_STATUS, 0, SEEK_CUR) != off)
		fail("fd %d: offset %ld, want %ld", TASK_STATUS, (long)lseek(TASK_STATUS, 0, SEEK_CUR),
		     (long)off);
	n = pread(TASK_STATUS, buf, sizeof(buf) - 1, 0);
	buf[n > 0 ? n : 0] = '\0';
	char *p = strstr(buf, "\nPid:\t");
	if (!p || atoi(p + 6) != getpid())
		fail("fd %d: not the status of our thread", TASK_STATUS);
	return tree_pass(&ch, 1);
}
