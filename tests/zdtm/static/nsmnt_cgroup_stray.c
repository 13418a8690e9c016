/* A cgroup v1 hierarchy of its own name (name=zdtm_stray, no controller) mounted only in the test's mount
 * namespace, with the test in one cgroup of it and a child in another (CRIU's cgroup_stray): crshim sees
 * the hierarchy nowhere in its own mount namespace, so it mounts it for itself, attached nowhere, to save
 * and restore the two cgroups. Before, the hierarchy was "not mounted here: not saved" and both came back
 * in its root. */
#include <signal.h>
#include <sys/random.h>
#include <sys/wait.h>
#include "nsmnt.h"

#define H "/nsmnt_cgs"

static void cg_join(const char *dir, pid_t pid)
{
	char p[PATH_MAX], v[32];
	snprintf(p, sizeof(p), "%s/cgroup.procs", dir);
	int fd = open(p, O_WRONLY);
	int n = snprintf(v, sizeof(v), "%d", pid);
	if (fd < 0 || write(fd, v, (size_t)n) != n)
		fail("join %s", p);
	close(fd);
}

/* pid's cgroup in the hierarchy name=zdtm_stray, or "" */
static void cg_of(pid_t pid, char *out, size_t len)
{
	char p[64], line[PATH_MAX + 64];
	snprintf(p, sizeof(p), "/proc/%d/cgroup", pid);
	FILE *f = fopen(p, "r");
	out[0] = '\0';
	while (f && fgets(line, sizeof(line), f)) {
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c2 || strncmp(c1 + 1, "name=zdtm_stray:", 16))
			continue;
		c2[1 + strcspn(c2 + 1, "\n")] = '\0';
		snprintf(out, len, "%s", c2 + 1);
	}
	if (f)
		fclose(f);
}

int main(int argc, char **argv)
{
	char foo[PATH_MAX], bar[PATH_MAX], got[PATH_MAX];
	unsigned tok = 0;
	test_init(argc, argv);
	if (getrandom(&tok, sizeof(tok), 0) != sizeof(tok))
		fail("getrandom");
	mkdirs(H);
	if (mount("none", H, "cgroup", 0, "none,name=zdtm_stray"))
		fail("mount cgroup v1 name=zdtm_stray");
	snprintf(foo, sizeof(foo), H "/%08x-foo", tok);
	snprintf(bar, sizeof(bar), H "/%08x-bar", tok);
	if (mkdir(foo, 0755) || mkdir(bar, 0755))
		fail("mkdir cgroups");
	pid_t child = fork();
	if (child < 0)
		fail("fork");
	if (!child) {
		test_forked();
		for (;;)
			pause();
	}
	cg_join(foo, child);
	cg_join(bar, getpid());
	test_daemon();
	test_waitsig();

	int bad = 0;
	cg_of(getpid(), got, sizeof(got));
	if (strcmp(got, bar + strlen(H))) {
		test_msg("FAIL: the test is in '%s', not %s\n", got, bar + strlen(H));
		bad = 1;
	}
	cg_of(child, got, sizeof(got));
	if (strcmp(got, foo + strlen(H))) {
		test_msg("FAIL: the child is in '%s', not %s\n", got, foo + strlen(H));
		bad = 1;
	}
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	cg_join(H, getpid());
	rmdir(foo);
	rmdir(bar);
	umount2(H, MNT_DETACH);
	if (bad)
		fail("cgroups of the hierarchy name=zdtm_stray not restored");
	pass();
	return 0;
}
