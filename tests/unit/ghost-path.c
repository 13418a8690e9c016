/* Unit test of the restore's refusal of a ghost whose saved path leads out of its directory (restore-ghost.c
 * ghost_paths_ok): a real dump of a process holding an unlinked file (D/a/f at fd 3: sleep), its
 * ghost-PID.img then edited (the image API) so that the ghost's path has a "..", a "." or an empty part, or a
 * mount over it (ghost_file_entry.over) has a "..": `crshim restore -d` (build/crshim, or $CRSHIM) exits 1
 * with one line naming the ghost, no process of the tree is left, no pidfile is written and nothing is made
 * in D (D/f, where "D/a/../f" leads, above all). The image as dumped restores (the fd names "D/a/f
 * (deleted)"). Root only (the restore takes its pid back). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "image/image.h"
#include "tap.h"

static char top[] = "/tmp/crshim-ghost-path.XXXXXX";
static char crshim[PATH_MAX], img[PATH_MAX + 8];

/* crshim ARGS... in top, its stdout and stderr to top/out: its exit status, -1 */
static int run(char *const argv[])
{
	pid_t p = fork();
	if (p == 0) {
		char out[PATH_MAX + 8];
		snprintf(out, sizeof(out), "%s/out", top);
		int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0 || chdir(top))
			_exit(127);
		execv(crshim, argv);
		_exit(127);
	}
	int st;
	if (p < 0 || waitpid(p, &st, 0) != p)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* top/out: its lines (0: empty) and its first one in line */
static int out_lines(char *line, size_t len)
{
	char path[PATH_MAX + 8];
	snprintf(path, sizeof(path), "%s/out", top);
	FILE *f = fopen(path, "r");
	int n = 0;
	char buf[4096];
	line[0] = '\0';
	while (f && fgets(buf, sizeof(buf), f))
		if (buf[0] != '\n' && !n++)
			snprintf(line, len, "%.*s", (int)strcspn(buf, "\n"), buf);
	if (f)
		fclose(f);
	return n;
}

/* The process that holds D/a/f at fd 3, unlinked: sleep, started once the file is gone (a CLOEXEC pipe says
 * when it ran exec). */
static pid_t holder(void)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC))
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		char f[PATH_MAX + 8];
		snprintf(f, sizeof(f), "%s/a/f", top);
		int null = open("/dev/null", O_RDWR);
		int fd = open(f, O_RDWR | O_CREAT | O_EXCL, 0640);
		if (setsid() < 0 || null < 0 || fd < 0 || dup2(fd, 3) != 3 ||
		    write(3, "ghost data", 10) != 10 || unlink(f) || dup2(null, 0) || dup2(null, 1) != 1 ||
		    dup2(null, 2) != 2)
			_exit(2);
		for (int i = 4; i < 1024; i++)
			if (i != p[1])
				close(i);
		execlp("sleep", "sleep", "1000", (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	char c;
	ssize_t r = pid > 0 ? read(p[0], &c, 1) : -1;
	close(p[0]);
	return r == 0 ? pid : -1;
}

/* The ghost record of ghost-PID.img (its one record: a few bytes of data) */
static GhostFileEntry *ghost_read(int dfd, pid_t pid)
{
	ProtobufCMessage *m = NULL;
	struct cr_err e;
	if (img_read_one(dfd, IMG_GHOST, pid, &m, &e)) {
		diag("read ghost-%d.img: %s", pid, e.msg);
		return NULL;
	}
	return (GhostFileEntry *)m;
}

/* ghost-PID.img with g's path set to path and its mounts over it to over (NULL: none) */
static int ghost_write(int dfd, pid_t pid, const GhostFileEntry *g, const char *path, char *over)
{
	GhostFileEntry c = *g;
	struct cr_err e;
	c.path = (char *)path;
	c.n_over = over ? 1 : 0;
	c.over = over ? &over : NULL;
	if (img_write_one(dfd, IMG_GHOST, pid, &c.base, &e)) {
		diag("write ghost-%d.img: %s", pid, e.msg);
		return -1;
	}
	return 0;
}

/* top holds only a (empty), img and out; a holds nothing */
static bool nothing_made(char *what, size_t len)
{
	DIR *d = opendir(top);
	bool ok = d != NULL;
	what[0] = '\0';
	for (struct dirent *de; d && (de = readdir(d));)
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") && strcmp(de->d_name, "a") &&
		    strcmp(de->d_name, "img") && strcmp(de->d_name, "out"))
			snprintf(what, len, "%s", de->d_name), ok = false;
	if (d)
		closedir(d);
	char a[PATH_MAX + 8];
	snprintf(a, sizeof(a), "%s/a", top);
	d = opendir(a);
	ok = ok && d;
	for (struct dirent *de; d && (de = readdir(d));)
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			snprintf(what, len, "a/%s", de->d_name), ok = false;
	if (d)
		closedir(d);
	return ok;
}

/* The restore of the image with g's path path (over: a mount over it) fails with one line naming the ghost,
 * leaving no process (pid), pidfile or file behind */
static void refused(int dfd, pid_t pid, const GhostFileEntry *g, const char *path, char *over,
		    const char *what)
{
	char line[4096], made[NAME_MAX + 8], pf[PATH_MAX + 16];
	snprintf(pf, sizeof(pf), "%s/pidfile", top);
	if (ghost_write(dfd, pid, g, path, over)) {
		ok(0, "%s: image edited", what);
		return;
	}
	char *argv[] = {"crshim", "restore", "-D", img, "-o", "restore.log", "-d", "--pidfile", pf, NULL};
	int rc = run(argv), n = out_lines(line, sizeof(line));
	ok(rc == 1, "%s: the restore exits 1 (got %d)", what, rc);
	ok(n == 1 && strstr(line, "ghost") && strstr(line, path), "%s: one line naming the ghost and %s: %s",
	   what, path, line);
	bool gone = kill(pid, 0) && errno == ESRCH;
	if (!gone) {
		FILE *f = fopen(pf, "r");
		int r = 0;
		if (f && fscanf(f, "%d", &r) == 1 && r > 0)
			kill(r, SIGKILL);
		if (f)
			fclose(f);
		kill(pid, SIGKILL);
	}
	ok(gone, "%s: no process %d left", what, pid);
	ok(access(pf, F_OK) && errno == ENOENT, "%s: no pidfile written", what);
	unlink(pf);
	ok(nothing_made(made, sizeof(made)), "%s: nothing made in the test's dir (%s)", what, made);
}

int main(int argc, char **argv)
{
	(void)argc;
	if (geteuid() != 0) {
		printf("1..0 # SKIP the restore takes its pid back: root only\n");
		return 0;
	}
	char self[PATH_MAX];
	snprintf(self, sizeof(self), "%s", argv[0]);
	snprintf(crshim, sizeof(crshim), "%s", getenv("CRSHIM") ? getenv("CRSHIM") : "");
	if (!crshim[0]) {
		char rel[PATH_MAX + 16];
		snprintf(rel, sizeof(rel), "%s/../crshim", dirname(self));
		if (!realpath(rel, crshim)) {
			printf("1..0 # SKIP no crshim at %s: %s\n", rel, strerror(errno));
			return 0;
		}
	}
	char a[PATH_MAX + 8];
	if (!mkdtemp(top) || snprintf(a, sizeof(a), "%s/a", top) < 0 || mkdir(a, 0755) ||
	    snprintf(img, sizeof(img), "%s/img", top) < 0 || mkdir(img, 0700)) {
		printf("1..0 # SKIP mkdtemp: %s\n", strerror(errno));
		return 0;
	}
	pid_t pid = holder();
	ok(pid > 0, "the holder of the unlinked %s/a/f runs", top);
	if (pid <= 0) {
		tap_rm_dir(top);
		return done_testing();
	}
	char spid[16], *dargv[] = {"crshim", "dump", "-t", spid, "-D", img, "-o", "dump.log", NULL};
	snprintf(spid, sizeof(spid), "%d", (int)pid);
	int rc = run(dargv);
	if (rc)
		kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	ok(rc == 0, "dump of %d (got %d)", pid, rc);
	int dfd = open(img, O_DIRECTORY | O_RDONLY | O_CLOEXEC);
	GhostFileEntry *g = rc || dfd < 0 ? NULL : ghost_read(dfd, pid);
	char want[PATH_MAX + 8];
	snprintf(want, sizeof(want), "%s/a/f", top);
	ok(g && g->path && !strcmp(g->path, want), "its ghost's path is %s: %s", want,
	   g && g->path ? g->path : "none");
	if (!g) {
		tap_rm_dir(top);
		return done_testing();
	}
	char dotdot[PATH_MAX + 16], dot[PATH_MAX + 16], empty[PATH_MAX + 16], over[] = "/tmp/../x";
	snprintf(dotdot, sizeof(dotdot), "%s/a/../f", top);
	snprintf(dot, sizeof(dot), "%s/a/./f", top);
	snprintf(empty, sizeof(empty), "%s/a//f", top);
	refused(dfd, pid, g, dotdot, NULL, "a '..' in its path");
	refused(dfd, pid, g, dot, NULL, "a '.' in its path");
	refused(dfd, pid, g, empty, NULL, "an empty part in its path");
	refused(dfd, pid, g, want, over, "a '..' in the mount over it");

	/* the image as dumped */
	char pf[PATH_MAX + 16], line[4096], link[PATH_MAX], fd3[64];
	snprintf(pf, sizeof(pf), "%s/pidfile", top);
	char *rargv[] = {"crshim", "restore", "-D", img, "-o", "restore.log", "-d", "--pidfile", pf, NULL};
	rc = ghost_write(dfd, pid, g, want, NULL) ? -1 : run(rargv);
	out_lines(line, sizeof(line));
	ok(rc == 0, "the image as dumped restores (got %d: %s)", rc, line);
	snprintf(fd3, sizeof(fd3), "/proc/%d/fd/3", (int)pid);
	ssize_t l = readlink(fd3, link, sizeof(link) - 1);
	link[l > 0 ? l : 0] = '\0';
	snprintf(want, sizeof(want), "%s/a/f (deleted)", top);
	ok(!strcmp(link, want), "its fd 3 names %s: %s", want, link);
	kill(pid, SIGKILL);
	protobuf_c_message_free_unpacked(&g->base, NULL);
	close(dfd);
	tap_rm_dir(top);
	return done_testing();
}
