/* Automatic external mounts (.desc ns-ext: auto: dump --external mnt[], restore --ext-mount-map auto, none
 * named): the host paths bound into the test's root (/usr, ...), a directory and a file of a tmpfs the host
 * mounts (under the test's dir, made shared there before the test's namespaces), the directory's mount a
 * slave of the host's peer group (lib/ns.c slave=). After restore: the same filesystems (st_dev), the file
 * written before the dump, and the directory again a slave of that same group outside the tree. */
#include <sys/sysmacros.h>
#include "nsmnt.h"

static int read_tags(const char *mp, struct mnt_line *m, char *master, size_t len)
{
	if (mnt_find(mp, m))
		return -1;
	const char *t = strstr(m->tags, "master:");
	snprintf(master, len, "%s", t ? t : "");
	master[strcspn(master, " ")] = 0;
	return 0;
}

int main(int argc, char **argv)
{
	char dir[1200], file[1200], m0[64], m1[64], data[64] = "";
	struct stat d0, f0, d1, f1;
	struct mnt_line u0, u, s0, s;
	nsmnt_host_tmpfs("slave", dir, file, sizeof(dir));
	test_init(argc, argv);
	if (mnt_find("/usr", &u0) || read_tags(dir, &s0, m0, sizeof(m0)) || stat(dir, &d0) || stat(file, &f0))
		fail("the binds are not there");
	char in[1300];
	snprintf(in, sizeof(in), "%s/in", dir);
	int fd = open(in, O_CREAT | O_WRONLY, 0644);
	if (fd < 0 || write(fd, "before", 6) != 6 || close(fd))
		fail("write %s", in);
	test_msg("the slave bind: %s\n", m0[0] ? m0 : "(private: no clone in the host's namespace)");
	test_daemon();
	test_waitsig();

	CHECK(!mnt_find("/usr", &u) && has_opt(u.opts, "ro") && !strcmp(u.root, u0.root), "/usr: %s %s",
	      u.opts, u.root);
	CHECK(!access("/usr/bin/env", X_OK), "/usr/bin/env missing");
	CHECK(!stat(dir, &d1) && d1.st_dev == d0.st_dev && d1.st_ino == d0.st_ino,
	      "%s: not the host's tmpfs any more (dev %lu, was %lu)", dir, (unsigned long)d1.st_dev,
	      (unsigned long)d0.st_dev);
	CHECK(!stat(file, &f1) && f1.st_dev == f0.st_dev && f1.st_ino == f0.st_ino && S_ISREG(f1.st_mode),
	      "%s: not the host's file any more", file);
	fd = open(in, O_RDONLY);
	CHECK(fd >= 0 && read(fd, data, sizeof(data) - 1) == 6 && !strcmp(data, "before"), "%s: '%s'", in,
	      data);
	if (fd >= 0)
		close(fd);
	CHECK(!read_tags(dir, &s, m1, sizeof(m1)) && !strcmp(m0, m1) && !strcmp(s.root, s0.root),
	      "%s: propagation '%s' root %s, was '%s' root %s", dir, m1, s.root, m0, s0.root);
	pass();
	return 0;
}
