/* Binds of removed sources (CRIU's mntns_deleted): a tmpfs's directory bound elsewhere in it and removed,
 * and an empty file of the root bound onto another and removed. After restore both mounts are there with
 * their roots "PATH//deleted", the directory removed (no links, nothing can be made in it), the file removed
 * and empty, and the names are free again. Before, the dump refused them ("its source ... is gone"). */
#include "nsmnt.h"

/* the root of the mount at mp, which must end with "/name//deleted" */
static void check_mnt(const char *mp, const char *name, char *root, size_t len)
{
	struct mnt_line m;
	char want[128];
	snprintf(want, sizeof(want), "/%s//deleted", name);
	CHECK(!mnt_find(mp, &m), "no mount at %s", mp);
	size_t l = strlen(m.root), w = strlen(want);
	CHECK(l >= w && !strcmp(m.root + l - w, want), "mount %s: root %s, not ...%s", mp, m.root, want);
	CHECK(!*root || !strcmp(m.root, root), "mount %s: root %s, was %s", mp, m.root, root);
	snprintf(root, len, "%s", m.root);
}

int main(int argc, char **argv)
{
	struct stat st;
	char dir_root[512] = "", file_root[512] = "";
	test_init(argc, argv);
	must_mount("nsmnt", "/nsmnt_br", "tmpfs", 0, "size=1m");
	mkdirs("/nsmnt_br/src");
	mkdirs("/nsmnt_br/dst");
	must_mount("/nsmnt_br/src", "/nsmnt_br/dst", NULL, MS_BIND, NULL);
	write_file("/nsmnt_br_fsrc", "");
	write_file("/nsmnt_br_fdst", "");
	must_mount("/nsmnt_br_fsrc", "/nsmnt_br_fdst", NULL, MS_BIND, NULL);
	if (rmdir("/nsmnt_br/src") || unlink("/nsmnt_br_fsrc"))
		fail("remove the sources");
	check_mnt("/nsmnt_br/dst", "src", dir_root, sizeof(dir_root));
	check_mnt("/nsmnt_br_fdst", "nsmnt_br_fsrc", file_root, sizeof(file_root));
	test_daemon();
	test_waitsig();

	check_mnt("/nsmnt_br/dst", "src", dir_root, sizeof(dir_root));
	check_mnt("/nsmnt_br_fdst", "nsmnt_br_fsrc", file_root, sizeof(file_root));
	CHECK(!stat("/nsmnt_br/dst", &st) && S_ISDIR(st.st_mode) && !st.st_nlink,
	      "/nsmnt_br/dst: not a removed dir");
	CHECK(open("/nsmnt_br/dst/f", O_CREAT | O_WRONLY, 0600) < 0, "a file made in the removed directory");
	CHECK(!stat("/nsmnt_br_fdst", &st) && S_ISREG(st.st_mode) && !st.st_nlink && !st.st_size,
	      "/nsmnt_br_fdst: not a removed empty file");
	CHECK(access("/nsmnt_br/src", F_OK) && access("/nsmnt_br_fsrc", F_OK),
	      "a removed source is there again");
	pass();
	return 0;
}
