/* An unlinked file held open with extended attributes: user.probe ("value42"), an empty user.empty, a
 * 3000-byte user.big, and a POSIX ACL (system.posix_acl_access: user 1234 may read) where the filesystem
 * has ACLs. After restore it is still unlinked, with its data and every attribute, byte for byte (before:
 * the file came back without any, silently). */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>
#include "zdtmtst.h"

#define FILE_NAME "ghost_xattr.file"
#define ACL "system.posix_acl_access"
enum { FD_FILE = 40, BIG = 3000 };

struct acl_ent {
	uint16_t tag, perm;
	uint32_t id;
};

static const struct {
	uint32_t version;
	struct acl_ent e[5];
} acl = {2,
	 {{0x01, 6, 0xffffffff},   /* user:: rw */
	  {0x02, 4, 1234},	   /* user:1234: r */
	  {0x04, 4, 0xffffffff},   /* group:: r */
	  {0x10, 4, 0xffffffff},   /* mask:: r */
	  {0x20, 0, 0xffffffff}}}; /* other:: - */

static void check(const char *name, const void *want, size_t len)
{
	static char v[BIG + 16];
	ssize_t n = fgetxattr(FD_FILE, name, v, sizeof(v));
	if (n != (ssize_t)len || memcmp(v, want, len))
		fail("%s: %zd bytes, want %zu", name, n, len);
}

int main(int argc, char **argv)
{
	static char big[BIG];
	int fd, has_acl;
	struct stat st;

	test_init(argc, argv);
	datagen(big, BIG, 7);
	fd = open(FILE_NAME, O_RDWR | O_CREAT | O_TRUNC, 0640);
	if (fd < 0 || dup2(fd, FD_FILE) != FD_FILE || write(FD_FILE, "data", 4) != 4)
		fail("make " FILE_NAME);
	close(fd);
	if (fsetxattr(FD_FILE, "user.probe", "value42", 7, 0) || fsetxattr(FD_FILE, "user.empty", "", 0, 0) ||
	    fsetxattr(FD_FILE, "user.big", big, BIG, 0))
		fail("user.* attributes");
	has_acl = !fsetxattr(FD_FILE, ACL, &acl, sizeof(acl), 0);
	if (!has_acl)
		test_msg("no ACL on this filesystem: %s\n", strerror(errno));
	if (unlink(FILE_NAME))
		fail("unlink");
	test_daemon();
	test_waitsig();

	if (fstat(FD_FILE, &st) || st.st_nlink != 0 || (st.st_mode & 07777) != 0640)
		fail("not the unlinked file of mode 640");
	char d[8] = "";
	if (pread(FD_FILE, d, sizeof(d), 0) != 4 || memcmp(d, "data", 4))
		fail("data");
	check("user.probe", "value42", 7);
	check("user.empty", "", 0);
	check("user.big", big, BIG);
	if (has_acl)
		check(ACL, &acl, sizeof(acl));
	if (!access(FILE_NAME, F_OK))
		fail(FILE_NAME " is back");
	pass();
	return 0;
}
