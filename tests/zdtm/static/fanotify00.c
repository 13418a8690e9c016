/* fanotify (FAN_CLASS_NOTIF, non-blocking, O_RDONLY event fds): an inode mark on a file (FAN_MODIFY),
 * a mark on a directory for events of its children (FAN_CLOSE_WRITE | FAN_EVENT_ON_CHILD) with an ignore
 * mask on one child, and a mount mark (FAN_OPEN_EXEC) on the mount of the test's directory. After restore
 * the init flags and marks are the same (fdinfo) and a write to the file is reported. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/stat.h>
#include <unistd.h>
#include "zdtmtst.h"

/* The mount point of our mount id (hex, as fdinfo shows it), "?" if none: a mount mark is named by it
 * (mount ids change when the mounts are made again: modes ns and uns restore the mount tree). */
static void mount_of(const char *hexid, char *mp, size_t len)
{
	char *mi = NULL, fmt[32];
	unsigned long want = strtoul(hexid, NULL, 16);
	snprintf(mp, len, "?");
	snprintf(fmt, sizeof(fmt), "%%lu %%*d %%*s %%*s %%%zus", len - 1);
	if (read_file("/proc/self/mountinfo", &mi) < 0)
		return;
	for (char *l = mi; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		unsigned long id;
		char p[4096];
		if (sscanf(l, fmt, &id, p) == 2 && id == want) {
			snprintf(mp, len, "%.1000s", p);
			break;
		}
	}
	free(mi);
}

/* fdinfo lines starting with "fanotify", sorted by the kernel's order; a mount mark's mnt_id as the mount
 * point */
static void marks(int fd, char *out, size_t len)
{
	char *buf, *p, *nl;
	size_t off = 0;
	out[0] = '\0';
	if (fdinfo_read(fd, &buf) < 0)
		return;
	for (p = strstr(buf, "fanotify"); p && off < len; p = strstr(p + 1, "\nfanotify")) {
		if (*p == '\n')
			p++;
		nl = strchr(p, '\n');
		if (!strncmp(p, "fanotify mnt_id:", 16)) {
			char mp[4096];
			mount_of(p + 16, mp, sizeof(mp));
			off += (size_t)snprintf(out + off, len - off, "fanotify mount %s ", mp);
			p += 16 + strspn(p + 16, "0123456789abcdef");
		}
		off +=
		    (size_t)snprintf(out + off, len - off, "%.*s|", nl ? (int)(nl - p) : (int)strlen(p), p);
	}
	free(buf);
}

/* a FAN_MODIFY event for the inode ino among the queued events */
static int modified(int fd, ino_t ino)
{
	char buf[8192] __attribute__((aligned(8)));
	int found = 0;
	for (int k = 0; k < 50 && !found; k++) {
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n <= 0)
			break;
		struct fanotify_event_metadata *m = (struct fanotify_event_metadata *)buf;
		for (; FAN_EVENT_OK(m, n); m = FAN_EVENT_NEXT(m, n)) {
			struct stat st;
			if (m->fd >= 0) {
				if ((m->mask & FAN_MODIFY) && !fstat(m->fd, &st) && st.st_ino == ino)
					found = 1;
				close(m->fd);
			}
		}
	}
	return found;
}

int main(int argc, char **argv)
{
	struct stat st;
	int fd, f;

	test_init(argc, argv);
	if (mkdir("fan.d", 0755) || close(open("fan.d/file", O_CREAT | O_WRONLY, 0644)) ||
	    close(open("fan.d/quiet", O_CREAT | O_WRONLY, 0644)) || stat("fan.d/file", &st))
		fail("setup files");
	fd = fanotify_init(FAN_CLASS_NOTIF | FAN_NONBLOCK, O_RDONLY | O_LARGEFILE);
	if (fd < 0)
		fail("fanotify_init");
	if (fanotify_mark(fd, FAN_MARK_ADD, FAN_MODIFY, AT_FDCWD, "fan.d/file") ||
	    fanotify_mark(fd, FAN_MARK_ADD, FAN_CLOSE_WRITE | FAN_EVENT_ON_CHILD, AT_FDCWD, "fan.d") ||
	    fanotify_mark(fd, FAN_MARK_ADD | FAN_MARK_IGNORED_MASK | FAN_MARK_IGNORED_SURV_MODIFY,
			  FAN_CLOSE_WRITE, AT_FDCWD, "fan.d/quiet") ||
	    fanotify_mark(fd, FAN_MARK_ADD | FAN_MARK_MOUNT, FAN_OPEN_EXEC, AT_FDCWD, "."))
		fail("fanotify_mark");
	cr_same_state(fd, marks, "marks");

	f = open("fan.d/file", O_WRONLY);
	if (f < 0 || write(f, "x", 1) != 1)
		fail("write");
	close(f);
	if (!modified(fd, st.st_ino))
		fail("no FAN_MODIFY event for the marked file");
	pass();
	return 0;
}
