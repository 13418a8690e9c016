/* make coverage only (contrib/qa/coverage.sh links it into the gcov build with -Wl,--wrap=...): write the
 * gcov counters of processes that never return to main. A forked or cloned crshim child ends in _exit() (no
 * atexit handler, so gcov writes nothing) or, in a restore, jumps into the restorer blob and becomes the
 * restored task. The wrappers write the counters (__gcov_dump) first, then call the real function.
 *
 * A child may be in another mount namespace or root by then (ns_rst_root_child pivot_roots into the tree's
 * root, a dump helper setns()es into the target's mount namespace): there the build dir's path names nothing,
 * and gcov would print an error on the task's stderr or create the path inside the container. So the counters
 * are written only when COV_DIR is the same directory (device and inode) as at start-up; around
 * ns_rst_root_child, through an O_PATH fd of the old root opened just before it (/proc/self/fd/N as
 * GCOV_PREFIX), if /proc is there. Nothing here changes what crshim does; the build without coverage has none
 * of it. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef COV_DIR /* coverage.sh passes the build dir's absolute path; without it nothing is written */
#define COV_DIR ""
#endif

struct ns_rst;
struct rst_args;

void __gcov_dump(void);
void __gcov_reset(void);
__attribute__((noreturn)) void __real__exit(int status);
/* weak: crshim-hook links neither (a weak reference pulls nothing out of libcrshim.a) */
__attribute__((noreturn, weak)) void __real_arch_jump_to_blob(void *entry, void *arg, void *stack);
__attribute__((weak)) int __real_ns_rst_root_child(const struct ns_rst *r, char *msg, size_t len);

__attribute__((noreturn)) void __wrap__exit(int status);
__attribute__((noreturn)) void __wrap_arch_jump_to_blob(void *entry, void *arg, void *stack);
int __wrap_ns_rst_root_child(const struct ns_rst *r, char *msg, size_t len);

static struct stat cov_dir;
static int cov_dir_ok;
/* The build dir, held from start-up at a high fd (no fd number crshim or a test uses): a child that entered
 * another mount namespace and chroot()ed (the dump's tmpfs walker) reaches it through this fd only. */
#define COV_FD 1017
static int cov_fd = -1;

__attribute__((constructor)) static void cov_init(void)
{
	cov_dir_ok = stat(COV_DIR, &cov_dir) == 0;
	int fd = cov_dir_ok ? open(COV_DIR, O_PATH | O_DIRECTORY | O_CLOEXEC) : -1;
	if (fd >= 0 && fd != COV_FD) {
		cov_fd = dup3(fd, COV_FD, O_CLOEXEC) == COV_FD ? COV_FD : -1;
		close(fd);
	}
}

/* COV_DIR (as seen from here, optionally under the directory prefix) is the build dir of start-up. */
static int same_dir(const char *prefix)
{
	char p[4096];
	struct stat st;
	if (!cov_dir_ok || snprintf(p, sizeof(p), "%s%s", prefix, COV_DIR) >= (int)sizeof(p))
		return 0;
	return stat(p, &st) == 0 && st.st_dev == cov_dir.st_dev && st.st_ino == cov_dir.st_ino &&
	       access(p, W_OK) == 0;
}

/* Write the counters and zero them (a later dump of this process adds only what ran since). */
static void cov_flush(const char *prefix)
{
	if (!same_dir(prefix ? prefix : ""))
		return;
	if (prefix)
		setenv("GCOV_PREFIX", prefix, 1);
	__gcov_dump();
	__gcov_reset();
	if (prefix)
		unsetenv("GCOV_PREFIX");
}

/* The counters written relative to the held build dir: cwd there, GCOV_PREFIX "." and the build dir's own
 * path components stripped (the process ends right after: its cwd no longer matters). */
static void cov_flush_at_fd(void)
{
	struct stat st;
	int parts = 0;
	if (cov_fd < 0 || fstat(cov_fd, &st) || st.st_dev != cov_dir.st_dev || st.st_ino != cov_dir.st_ino ||
	    fchdir(cov_fd))
		return;
	for (const char *c = COV_DIR; *c; c++)
		parts += *c == '/';
	char n[16];
	snprintf(n, sizeof(n), "%d", parts);
	setenv("GCOV_PREFIX_STRIP", n, 1);
	setenv("GCOV_PREFIX", ".", 1);
	__gcov_dump();
	__gcov_reset();
}

void __wrap__exit(int status)
{
	if (same_dir(""))
		cov_flush(NULL);
	else
		cov_flush_at_fd();
	__real__exit(status);
}

void __wrap_arch_jump_to_blob(void *entry, void *arg, void *stack)
{
	cov_flush(NULL);
	__real_arch_jump_to_blob(entry, arg, stack);
}

int __wrap_ns_rst_root_child(const struct ns_rst *r, char *msg, size_t len)
{
	int old = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	int ret = __real_ns_rst_root_child(r, msg, len);
	if (old >= 0) {
		char prefix[64];
		snprintf(prefix, sizeof(prefix), "/proc/self/fd/%d", old);
		if (same_dir(""))
			cov_flush(NULL);
		else
			cov_flush(prefix);
		close(old);
	}
	return ret;
}
