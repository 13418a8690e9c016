/* ptys in two devpts instances of the tree (its /dev/pts and a second one at /nsmnt_pts, both with a pty of
 * index 0 and one of index 2 in the second, index 1 closed before the dump): each pty comes back in its own
 * instance with its index, its slave's owner mode, and the pairs do not mix. */
#include <sys/ioctl.h>
#include <sys/sysmacros.h>
#include <termios.h>
#include "nsmnt.h"

struct pty {
	int m, s;
	unsigned idx;
};

static int open_pty(const char *dir, struct pty *p)
{
	char path[128];
	int zero = 0;
	snprintf(path, sizeof(path), "%s/ptmx", dir);
	p->m = open(path, O_RDWR | O_NOCTTY);
	if (p->m < 0 || ioctl(p->m, TIOCGPTN, &p->idx) || ioctl(p->m, TIOCSPTLCK, &zero))
		return -1;
	snprintf(path, sizeof(path), "%s/%u", dir, p->idx);
	p->s = open(path, O_RDWR | O_NOCTTY);
	if (p->s < 0)
		return -1;
	struct termios t;
	if (tcgetattr(p->s, &t))
		return -1;
	cfmakeraw(&t);
	return tcsetattr(p->s, TCSANOW, &t);
}

/* a byte written to the master reaches its own slave only */
static int talks(struct pty *p, char c, struct pty *other)
{
	char r = 0;
	int n = 0;
	if (write(p->m, &c, 1) != 1 || read(p->s, &r, 1) != 1 || r != c)
		return 0;
	return !ioctl(other->s, FIONREAD, &n) && n == 0;
}

static dev_t dev_of(const char *path)
{
	struct stat st;
	return stat(path, &st) ? (dev_t)-1 : st.st_dev;
}

int main(int argc, char **argv)
{
	struct pty a, b, gap, c;
	struct stat st;
	test_init(argc, argv);
	must_mount("devpts", "/nsmnt_pts", "devpts", MS_NOSUID | MS_NOEXEC,
		   "newinstance,ptmxmode=0666,mode=600");
	if (open_pty("/dev/pts", &a) || open_pty("/nsmnt_pts", &b) || open_pty("/nsmnt_pts", &gap) ||
	    open_pty("/nsmnt_pts", &c)) {
		fail("setup: open the ptys");
		return 1;
	}
	if (a.idx != 0 || b.idx != 0 || c.idx != 2) {
		fail("setup: indexes %u %u %u, want 0 0 2", a.idx, b.idx, c.idx);
		return 1;
	}
	close(gap.s), close(gap.m);
	if (fchmod(c.s, 0640)) {
		fail("setup: fchmod");
		return 1;
	}
	test_daemon();
	test_waitsig();

	unsigned i = 99;
	CHECK(!ioctl(a.m, TIOCGPTN, &i) && i == 0, "the /dev/pts pty is now %u", i);
	CHECK(!ioctl(b.m, TIOCGPTN, &i) && i == 0, "the first /nsmnt_pts pty is now %u", i);
	CHECK(!ioctl(c.m, TIOCGPTN, &i) && i == 2, "the second /nsmnt_pts pty is now %u", i);
	CHECK(!fstat(a.s, &st) && st.st_dev == dev_of("/dev/pts/ptmx"), "the slave of a is not in /dev/pts");
	CHECK(!fstat(b.s, &st) && st.st_dev == dev_of("/nsmnt_pts/ptmx"),
	      "the slave of b is not in /nsmnt_pts");
	CHECK(dev_of("/dev/pts/ptmx") != dev_of("/nsmnt_pts/ptmx"), "one devpts instance for both");
	CHECK(!fstat(c.s, &st) && (st.st_mode & 0777) == 0640, "the slave of c has mode %o",
	      st.st_mode & 0777);
	CHECK(access("/nsmnt_pts/1", F_OK) && errno == ENOENT, "pty 1 of /nsmnt_pts is there again");
	CHECK(!access("/nsmnt_pts/2", F_OK), "/nsmnt_pts/2 is missing");
	CHECK(talks(&a, 'a', &b) && talks(&b, 'b', &a) && talks(&c, 'c', &b), "the pairs mixed up");
	pass();
	return 0;
}
