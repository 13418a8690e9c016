/* Binds of removed sources made by a child in a mount namespace of its own, from the three places a made
 * mount comes from: a tmpfs of its parent's namespace it kept (/nsmnt_cr: src -> dst), one it took off
 * after the bind (/nsmnt_cr2: d -> /nsmnt_cr/d2), one of its own (/nsmnt_cr3: x -> /nsmnt_cr/x3), and an
 * empty file of the kept tmpfs (f -> fdst); each source then removed. After restore the four mounts are
 * there with roots ".../NAME//deleted", removed (no links) and empty, the names free. Before, the dump
 * refused them (a mount of its namespace "cannot be restored"). */
#include "nsmnt.h"

static const struct {
	const char *mp, *name;
	int file;
} binds[] = {{"/nsmnt_cr/dst", "src", 0},
	     {"/nsmnt_cr/d2", "d", 0},
	     {"/nsmnt_cr/x3", "x", 0},
	     {"/nsmnt_cr/fdst", "f", 1}};

/* 1 unless the mount at mp has root ".../name//deleted" and shows a removed empty directory or file */
static int removed_bind(const char *mp, const char *name, int file)
{
	struct mnt_line m;
	struct stat st;
	char want[128];
	snprintf(want, sizeof(want), "/%s//deleted", name);
	size_t w = strlen(want);
	if (mnt_find(mp, &m) || strlen(m.root) < w || strcmp(m.root + strlen(m.root) - w, want) ||
	    stat(mp, &st) || st.st_nlink ||
	    (file ? !S_ISREG(st.st_mode) || st.st_size : !S_ISDIR(st.st_mode)))
		return 1;
	return 0;
}

static int setup(void)
{
	mkdirs("/nsmnt_cr3");
	if (mount("nsmnt", "/nsmnt_cr3", "tmpfs", 0, "size=1m"))
		return 1;
	mkdirs("/nsmnt_cr3/x");
	for (size_t i = 0; i < sizeof(binds) / sizeof(binds[0]); i++)
		binds[i].file ? write_file(binds[i].mp, "") : mkdirs(binds[i].mp);
	write_file("/nsmnt_cr/f", "");
	if (mount("/nsmnt_cr/src", "/nsmnt_cr/dst", NULL, MS_BIND, NULL) ||
	    mount("/nsmnt_cr2/d", "/nsmnt_cr/d2", NULL, MS_BIND, NULL) ||
	    mount("/nsmnt_cr3/x", "/nsmnt_cr/x3", NULL, MS_BIND, NULL) ||
	    mount("/nsmnt_cr/f", "/nsmnt_cr/fdst", NULL, MS_BIND, NULL))
		return 2;
	if (rmdir("/nsmnt_cr/src") || rmdir("/nsmnt_cr2/d") || rmdir("/nsmnt_cr3/x") ||
	    unlink("/nsmnt_cr/f") || umount("/nsmnt_cr2"))
		return 3;
	for (size_t i = 0; i < sizeof(binds) / sizeof(binds[0]); i++)
		if (removed_bind(binds[i].mp, binds[i].name, binds[i].file))
			return 4;
	return 0;
}

static int check(void)
{
	int bad = 0;
	for (size_t i = 0; i < sizeof(binds) / sizeof(binds[0]); i++)
		if (removed_bind(binds[i].mp, binds[i].name, binds[i].file))
			bad |= 1 << i;
	if (!access("/nsmnt_cr/src", F_OK) || !access("/nsmnt_cr3/x", F_OK) || !access("/nsmnt_cr/f", F_OK))
		bad |= 16;
	return bad;
}

int main(int argc, char **argv)
{
	test_init(argc, argv);
	must_mount("nsmnt", "/nsmnt_cr", "tmpfs", 0, "size=1m");
	mkdirs("/nsmnt_cr/src");
	must_mount("nsmnt", "/nsmnt_cr2", "tmpfs", 0, "size=1m");
	mkdirs("/nsmnt_cr2/d");
	usr1_block();
	pid_t ch = nsmnt_child(setup, check);
	test_daemon();
	test_waitsig();
	kill(ch, SIGUSR1);
	child_exit_ok(ch, "bit n: bind n (dst, d2, x3, fdst) not a removed source again, 16: a name back");
	return test_pass();
}
