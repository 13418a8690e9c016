/* Files of /proc held open (proc_fds, proc_fds_pidns) and removed directories (cwd_deleted*): see zdtmtst.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "zdtmtst.h"

static int field_pid(const char *buf, const char *key)
{
	const char *p = strstr(buf, key);
	return p ? atoi(p + strlen(key)) : -1;
}

int procfds_open(pid_t ch, off_t *off)
{
	char buf[16], path[64];
	snprintf(path, sizeof(path), "/proc/%d", ch);
	if (dup2(open("/proc/self/status", O_RDONLY), PROCFD_STATUS) != PROCFD_STATUS ||
	    dup2(open(path, O_RDONLY | O_DIRECTORY), PROCFD_CHILD_DIR) != PROCFD_CHILD_DIR ||
	    dup2(open("/proc/self/fd", O_RDONLY | O_DIRECTORY), PROCFD_FD_DIR) != PROCFD_FD_DIR)
		return -1;
	if (read(PROCFD_STATUS, buf, 16) != 16) {
		fail("setup: read status");
		return -1;
	}
	*off = lseek(PROCFD_STATUS, 0, SEEK_CUR);
	return 0;
}

void procfds_check(off_t off, pid_t pid, pid_t ch)
{
	char buf[4096];
	ssize_t n;
	int fd;
	if (lseek(PROCFD_STATUS, 0, SEEK_CUR) != off)
		fail("status offset %ld, want %ld", (long)lseek(PROCFD_STATUS, 0, SEEK_CUR), (long)off);
	n = pread(PROCFD_STATUS, buf, sizeof(buf) - 1, 0);
	buf[n > 0 ? n : 0] = '\0';
	if (field_pid(buf, "\nPid:\t") != pid)
		fail("fd %d: status of pid %d, want %d", PROCFD_STATUS, field_pid(buf, "\nPid:\t"), pid);
	fd = openat(PROCFD_CHILD_DIR, "stat", O_RDONLY);
	n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	if (atoi(buf) != ch)
		fail("fd %d: not the /proc dir of child %d (stat: %.30s)", PROCFD_CHILD_DIR, ch, buf);
	if (fd >= 0)
		close(fd);
	if (faccessat(PROCFD_FD_DIR, "21", F_OK, AT_SYMLINK_NOFOLLOW))
		fail("fd %d: not our /proc/self/fd", PROCFD_FD_DIR);
}

int dead_dir(const char *what, const char *link_path, const char *want_link)
{
	char l[PATH_MAX];
	struct stat st;
	char sub[PATH_MAX + 8];
	ssize_t n = readlink(link_path, l, sizeof(l) - 1);
	if (n < 0) {
		fail("%s: readlink %s", what, link_path);
		return -1;
	}
	l[n] = '\0';
	if (strcmp(l, want_link)) {
		fail("%s: %s -> %s, want %s", what, link_path, l, want_link);
		return -1;
	}
	if (stat(link_path, &st) || !S_ISDIR(st.st_mode) || st.st_nlink != 0) {
		fail("%s: not a removed directory (nlink %lu)", what, (unsigned long)st.st_nlink);
		return -1;
	}
	snprintf(sub, sizeof(sub), "%s/x", link_path);
	if (mkdir(sub, 0700) == 0 || errno != ENOENT) {
		fail("%s: mkdir inside a removed directory did not fail with ENOENT", what);
		return -1;
	}
	return 0;
}

void dead_dirs_cr(const char *cwd_link, const char *fd_link)
{
	dead_dir("setup cwd", "/proc/self/cwd", cwd_link);
	dead_dir("setup fd 20", "/proc/self/fd/20", fd_link);
	test_daemon();
	test_waitsig();

	dead_dir("cwd", "/proc/self/cwd", cwd_link);
	dead_dir("fd 20", "/proc/self/fd/20", fd_link);
}

void unlinked_check(int rw, int ro, unsigned type, const char *name, const char *want, struct stat *a,
		    const char *what)
{
	char path[64], link[4096];
	struct stat b;
	if (fstat(rw, a) || fstat(ro, &b) || (a->st_mode & S_IFMT) != type || a->st_ino != b.st_ino ||
	    a->st_dev != b.st_dev)
		fail("fds %d and %d are not one %s", rw, ro, what);
	if (a->st_nlink != 0 || access(name, F_OK) == 0)
		fail("the %s is linked again (nlink %lu)", what, (unsigned long)a->st_nlink);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", rw);
	ssize_t l = readlink(path, link, sizeof(link) - 1);
	link[l > 0 ? l : 0] = '\0';
	if (strcmp(link, want))
		fail("fd %d -> %s, want %s", rw, link, want);
}
