/* The state of ghost_mnt_overmount and ghost_mnt_overmount_chroot: an unlinked file held open (fd GMO_FD,
 * O_RDWR, offset 4096, mode 0640, a hole of GMO_HOLE bytes then GMO_LEN bytes of data) on a tmpfs A mounted
 * on TOPp/q beside a file keep, whose mount point a tmpfs B mounted on TOPp covers since; and its checks
 * after C/R. */
#ifndef GHOST_OVERMOUNT_H
#define GHOST_OVERMOUNT_H

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>
#include "zdtmtst.h"
#include "nsmnt.h"

enum { GMO_FD = 5, GMO_HOLE = 64 << 10, GMO_LEN = 128 << 10 };

static char gmo_buf[GMO_LEN];

/* Directories p and q (in p), a tmpfs A on q and a file keep on it */
static inline void gmo_mount_a(const char *p, const char *q, const char *keep)
{
	if (mkdir(p, 0755) || mkdir(q, 0755))
		fail("mkdir %s", q);
	if (mount("crshim-a", q, "tmpfs", 0, "size=1m"))
		fail("mount a tmpfs on %s", q);
	if (close(open(keep, O_CREAT | O_WRONLY, 0600)))
		fail("make %s", keep);
}

/* The state made under top ("" or "DIR/"), its data made from seed. */
static inline void gmo_make(const char *top, int seed)
{
	char p[64], q[64], f[64], keep[64];
	snprintf(p, sizeof(p), "%sp", top);
	snprintf(q, sizeof(q), "%sp/q", top);
	snprintf(f, sizeof(f), "%sp/q/f", top);
	snprintf(keep, sizeof(keep), "%sp/q/keep", top);
	gmo_mount_a(p, q, keep);
	open_at(GMO_FD, f, O_RDWR | O_CREAT | O_EXCL, "make the file");
	datagen(gmo_buf, GMO_LEN, seed);
	if (fchmod(GMO_FD, 0640) || pwrite(GMO_FD, gmo_buf, GMO_LEN, GMO_HOLE) != GMO_LEN ||
	    lseek(GMO_FD, 4096, SEEK_SET) != 4096)
		fail("fill %s", f);
	if (unlink(f))
		fail("unlink %s", f);
	if (mount("crshim-b", p, "tmpfs", 0, "size=64k"))
		fail("mount a tmpfs on %s", p);
}

/* After C/R: fd GMO_FD is still that file (unlinked; mode, size, offset, flags: access mode acc, data, hole);
 * its stat in st. */
static inline void gmo_check_fd(int seed, int acc, struct stat *st)
{
	size_t bad;
	if (fstat(GMO_FD, st) || !S_ISREG(st->st_mode) || st->st_nlink != 0 ||
	    (st->st_mode & 07777) != 0640 || st->st_size != GMO_HOLE + GMO_LEN)
		fail("fd %d is not the unlinked p/q/f (mode %o, %lu links, size %lld)", GMO_FD, st->st_mode,
		     (unsigned long)st->st_nlink, (long long)st->st_size);
	if (lseek(GMO_FD, 0, SEEK_CUR) != 4096 || (fcntl(GMO_FD, F_GETFL) & O_ACCMODE) != acc)
		fail("fd %d: offset or flags changed", GMO_FD);
	memset(gmo_buf, 0, sizeof(gmo_buf));
	if (pread(GMO_FD, gmo_buf, GMO_LEN, GMO_HOLE) != GMO_LEN || datachk(gmo_buf, GMO_LEN, seed, &bad))
		fail("fd %d: its data changed", GMO_FD);
	if (pread(GMO_FD, gmo_buf, 16, 0) != 16 || memcmp(gmo_buf, (char[16]){0}, 16))
		fail("fd %d: its hole has data", GMO_FD);
}

/* Then B unmounted from p ("p" or "/p"): the fd (its stat st, its mount mid) is on A, keep is there and f is
 * not; A unmounted. */
static inline void gmo_check_beneath(const char *p, const struct stat *st, int mid)
{
	char q[64], keep[64], f[64];
	struct stat qs;
	snprintf(q, sizeof(q), "%s/q", p);
	snprintf(keep, sizeof(keep), "%s/q/keep", p);
	snprintf(f, sizeof(f), "%s/q/f", p);
	if (umount2(p, MNT_DETACH))
		fail("umount %s", p);
	if (stat(q, &qs) || qs.st_dev != st->st_dev || mid < 0 || mid != path_mnt_id(q))
		fail("fd %d (mount %d) is not on the tmpfs on %s (mount %d)", GMO_FD, mid, q, path_mnt_id(q));
	if (access(keep, F_OK) || !access(f, F_OK))
		fail("%s is not there or %s is back", keep, f);
	if (umount2(q, MNT_DETACH))
		fail("umount %s", q);
}

#endif
