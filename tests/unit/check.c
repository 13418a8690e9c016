/* Unit tests of eng_check (engine/check.c): the report, one feature, unknown names, no leftovers. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "crshim.h"
#include "tap.h"

static char *run(const char *feature, int *ret, struct cr_err *e)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	cr_err_clear(e);
	*ret = eng_check(feature, f, e);
	fclose(f);
	return buf;
}

static int count_lines(const char *s)
{
	int n = 0;
	for (; *s; s++)
		n += *s == '\n';
	return n;
}

int main(void)
{
	struct cr_err e;
	int ret;
	char *out = run(NULL, &ret, &e);
	ok(ret == 0 || (ret < 0 && strstr(e.msg, "missing")), "full check returns (%s)",
	   ret ? e.msg : "all good");
	is_int(count_lines(out), 20, "one line per feature");
	like(out, "external_net_ns", "reports external_net_ns");
	like(out, "ptrace_seize", "reports ptrace_seize");
	like(out, "mem_dirty_track", "reports mem_dirty_track");
	like(out, "soft_dirty", "reports soft_dirty");
	like(out, "tcp_half_closed", "reports tcp_half_closed");
	ok(waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD, "no child left behind");
	free(out);

	out = run("vdso_layout", &ret, &e);
	ok(ret == 0 && !strcmp(out, "vdso_layout is supported\n"),
	   "--feature vdso_layout prints 'is supported'");
	free(out);
	out = run("ptrace_seize", &ret, &e);
	ok(ret == 0 || strstr(e.msg, "ptrace_seize is not supported"), "--feature ptrace_seize: %s",
	   ret ? e.msg : "supported");
	ok(waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD, "... no child left behind");
	free(out);
	if (geteuid() == 0) {
		out = run("clone3_set_tid", &ret, &e);
		ok(ret == 0, "--feature clone3_set_tid as root: %s", ret ? e.msg : "supported");
		ok(waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD, "... no child left behind");
		free(out);
	}
	out = run("no_such_feature", &ret, &e);
	ok(ret < 0 && out[0] == '\0', "unknown feature: error, no output");
	like(e.msg, "unknown feature 'no_such_feature'", "... names it");
	like(e.msg, "mem_dirty_track", "... and lists the known ones");
	free(out);
	return done_testing();
}
