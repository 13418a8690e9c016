/* libFuzzer target: crshim-hook's stdin (hooks/crshim-hook.c), the state JSON an OCI runtime hands its hooks,
 * through the hook's own run(): parse, then register the container in a private run dir or remove it.
 * Input: one byte choosing the stage (none, createRuntime, poststart, poststop), then the bytes of stdin.
 * Checks: a failure is one line; a registered container reads back with the id and pid of the input; poststop
 * (or status "stopped") leaves it unregistered; nothing is ever written outside the run dir. */
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#define main crshim_hook_main
#include "../../hooks/crshim-hook.c"
#undef main
#include <dirent.h>
#include <stdint.h>

static char fz_top[64], fz_run_dir[96];

static void setup(void)
{
	snprintf(fz_top, sizeof(fz_top), "/tmp/crshim-fuzz-hook.XXXXXX");
	if (!mkdtemp(fz_top))
		abort();
	snprintf(fz_run_dir, sizeof(fz_run_dir), "%s/run", fz_top);
}

static void clean_run_dir(void)
{
	DIR *d = opendir(fz_run_dir);
	struct dirent *e;
	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.' || (e->d_name[1] && strcmp(e->d_name, "..")))
			unlinkat(dirfd(d), e->d_name, 0);
	if (d)
		closedir(d);
	rmdir(fz_run_dir);
}

static void cleanup(void)
{
	clean_run_dir();
	rmdir(fz_top);
}

/* The number of entries in dir, not counting . and .. (-1: no such dir). */
static int entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;
	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

/* Feed buf as fd 0. */
static int set_stdin(const uint8_t *buf, size_t len)
{
	int fd = memfd_create("fuzz-hook-stdin", MFD_CLOEXEC);
	if (fd < 0)
		return -1;
	if ((len && write(fd, buf, len) != (ssize_t)len) || lseek(fd, 0, SEEK_SET) || dup2(fd, 0) != 0) {
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const stage_of[] = {NULL, "createRuntime", "poststart", "poststop"};
	if (!fz_top[0]) {
		setup();
		atexit(cleanup);
	}
	if (size < 1 || set_stdin(data + 1, size - 1))
		return 0;
	const char *stage = stage_of[data[0] % 4];
	struct cr_err err = {0}, e2 = {0};
	char msg[1200];

	int r = run(fz_run_dir, stage, &err);
	/* what the hook parsed, for the checks */
	struct oci_state *want = oci_state_parse((const char *)data + 1, size - 1, "fuzz", &e2);
	if (r) {
		cr_err_str(&err, msg, sizeof(msg));
		if (!msg[0] || strchr(msg, '\n'))
			abort(); /* an error is one line */
	} else {
		if (!want)
			abort(); /* run() accepted what does not parse */
		bool del = stage ? !strcmp(stage, "poststop") : !strcmp(want->status, "stopped");
		cr_err_clear(&e2);
		struct oci_state *got = oci_reg_get(fz_run_dir, want->id, &e2);
		if (del ? got != NULL
			: (!got || got->pid != want->pid || strcmp(got->id, want->id) ||
			   got->n_annotations != want->n_annotations))
			abort(); /* registered as given, or removed */
		oci_state_free(got);
	}
	oci_state_free(want);
	if (entries(fz_top) > 1 || entries(fz_run_dir) > 1)
		abort(); /* one run dir, at most one entry in it */
	clean_run_dir();
	return 0;
}
