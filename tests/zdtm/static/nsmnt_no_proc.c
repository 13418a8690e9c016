/* A mount tree without /proc (and without /dev/pts), as CRIU's clean_mntns leaves it: the restore must not
 * need the task's /proc for what it sets through /proc/self (oom_score_adj, set to 300 here). After the
 * restore /proc is still not mounted, and a proc mounted for the check shows oom_score_adj 300. Before, the
 * restore failed: "write /proc/self/oom_score_adj: No such file or directory". */
#include <sys/mount.h>
#include "nsmnt.h"

#define CHECK_DIR "/nsmnt_no_proc.check"

/* oom_score_adj through a proc mounted at CHECK_DIR for the call; -1000000: no proc may be mounted (in a
 * user namespace, with no /proc to show all of it: mode cuns), the restore is still checked to work */
static int oom_adj(void)
{
	char buf[16] = "";
	mkdirs(CHECK_DIR);
	if (mount("proc", CHECK_DIR, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL))
		return errno == EPERM ? -1000000 : (fail("mount proc on " CHECK_DIR), -1);
	FILE *f = fopen(CHECK_DIR "/self/oom_score_adj", "r");
	if (!f || !fgets(buf, sizeof(buf), f))
		fail("read oom_score_adj");
	if (f)
		fclose(f);
	if (umount(CHECK_DIR))
		fail("umount " CHECK_DIR);
	return atoi(buf);
}

int main(int argc, char **argv)
{
	test_init(argc, argv);
	write_file("/proc/self/oom_score_adj", "300");
	if (umount2("/proc", MNT_DETACH))
		fail("umount /proc");
	umount2("/dev/pts", MNT_DETACH); /* not every root has one */
	CHECK(access("/proc/self", F_OK), "/proc/self still there");
	int before = oom_adj();
	CHECK(before == 300 || before == -1000000, "oom_score_adj not set");
	test_daemon();
	test_waitsig();

	CHECK(access("/proc/self", F_OK), "/proc is mounted after the restore");
	int adj = oom_adj();
	CHECK(adj == before, "oom_score_adj %d after the restore, %d before", adj, before);
	pass();
	return 0;
}
