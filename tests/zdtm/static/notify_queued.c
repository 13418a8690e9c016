/* Events queued on an inotify and a fanotify instance cannot be saved (a queue cannot be read without
 * consuming it): the dump must say so, one warning line on its stderr per instance naming the task, the fd
 * and the bytes queued (FIONREAD). The runner keeps the dump's stderr in DIR/dump.out, DIR being dump.N
 * (cr, iters: N-th round) or dump (checkpoint) in our cwd: in the newest one, dump or dump.1 (our queues as
 * we filled them) must have exactly those two lines; a later round (dump.2, ...: the restore before it
 * started with empty queues) none. No dump dir (nocr): nothing to check. */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include "zdtmtst.h"

/* The newest dump dir ("dump" or "dump.N", N highest); 0: none, else its N (0 for "dump") + 1. */
static int newest_dump(void)
{
	DIR *d = opendir(".");
	struct dirent *de;
	int best = 0;
	while (d && (de = readdir(d))) {
		if (!strcmp(de->d_name, "dump") && best < 1)
			best = 1;
		else if (!strncmp(de->d_name, "dump.", 5) && atoi(de->d_name + 5) + 1 > best)
			best = atoi(de->d_name + 5) + 1;
	}
	if (d)
		closedir(d);
	return best;
}

/* Lines of the dump's stderr that are warnings naming our fd of kind; *bytes: the count in the last. The
 * task is named by its pid as crshim sees it: ours, but for the init of a PID namespace (modes ns, uns: our
 * pid is 1 here, another outside), where any pid is taken. */
static int warnings(const char *out, int fd, const char *kind, int *bytes)
{
	char needle[96], self[32];
	int n = 0, init = getpid() == 1;
	snprintf(needle, sizeof(needle), " fd %d (%s): ", fd, kind);
	snprintf(self, sizeof(self), "%d", getpid());
	for (const char *p = strstr(out, "warning: task "); p; p = strstr(p + 1, "warning: task ")) {
		const char *pid = p + strlen("warning: task "), *end = pid + strspn(pid, "0123456789");
		if (end == pid || strncmp(end, needle, strlen(needle)) ||
		    (!init && ((size_t)(end - pid) != strlen(self) || strncmp(pid, self, strlen(self)))))
			continue;
		n++;
		*bytes = atoi(end + strlen(needle));
	}
	return n;
}

static void check(const char *out, int fd, const char *kind, int want)
{
	int bytes = -1, n = warnings(out, fd, kind, &bytes);
	if (want > 0 && (n != 1 || bytes != want))
		fail("dump stderr: %d warnings for fd %d (%s) with %d bytes, want one with %d", n, fd, kind,
		     bytes, want);
	if (want == 0 && n)
		fail("dump stderr: a warning for fd %d (%s) with empty queues", fd, kind);
}

int main(int argc, char **argv)
{
	int in, fan, qin = 0, qfan = 0, f, k;
	char path[64], *out = NULL;

	test_init(argc, argv);
	in = inotify_init1(IN_NONBLOCK);
	fan = fanotify_init(FAN_CLASS_NOTIF | FAN_NONBLOCK, O_RDONLY);
	if (in < 0 || fan < 0 || mkdir("q.d", 0755) || inotify_add_watch(in, "q.d", IN_CREATE) < 0)
		fail("setup");
	f = open("q.d/f", O_CREAT | O_WRONLY, 0644); /* one IN_CREATE */
	if (f < 0 || close(open("q.d/g", O_CREAT | O_WRONLY, 0644)) ||
	    fanotify_mark(fan, FAN_MARK_ADD, FAN_MODIFY, AT_FDCWD, "q.d/f") || write(f, "x", 1) != 1 ||
	    ioctl(in, FIONREAD, &qin) || ioctl(fan, FIONREAD, &qfan) || qin <= 0 || qfan <= 0)
		fail("queue events (inotify %d bytes, fanotify %d)", qin, qfan);
	close(f);
	test_daemon();
	test_waitsig();

	k = newest_dump();
	if (k) {
		if (k == 1)
			snprintf(path, sizeof(path), "dump/dump.out");
		else
			snprintf(path, sizeof(path), "dump.%d/dump.out", k - 1);
		if (read_file(path, &out) < 0)
			fail("read %s", path);
		else {
			check(out, in, "inotify", k <= 2 ? qin : 0);
			check(out, fan, "fanotify", k <= 2 ? qfan : 0);
			free(out);
		}
	}
	pass();
	return 0;
}
