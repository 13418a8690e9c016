/* Unit tests of the --inherit-fd and --external syntax (engine/inherit-fd.c, eng_ext_check): CRIU's keys and
 * types are accepted, malformed values and unknown types are one clear error. */
#include <string.h>

#include "crshim.h"
#include "base/log.h"
#include "tap.h"

static struct cr_err err;

static int check(const char *inh, const char *ext)
{
	struct cr_opts o;
	const char *i[1] = {inh}, *x[1] = {ext};
	eng_opts_init(&o);
	o.inherit_fd = i, o.n_inherit_fd = inh != NULL;
	o.external = x, o.n_external = ext != NULL;
	memset(&err, 0, sizeof(err));
	return eng_ext_check(&o, &err);
}

static void t_inherit(void)
{
	static const char *const good[] = {"fd[0]:pipe:[123]", "fd[3]:pipe[9]",	     "fd[7]:socket:[42]",
					   "fd[8]:socket[42]", "fd[9]:tty[8800:1a]", "fd[10]:file[1f:abc]",
					   "fd[4]:tmp/log",    "fd[4]:/tmp/log",     "fd[4]:extRootNetNS"};
	static const char *const bad[] = {
	    "fd3:pipe:[1]",	 "fd[x]:pipe:[1]",  "fd[3]pipe:[1]",	 "fd[3]:",	  "fd[3]:pipe:[]",
	    "fd[3]:pipe:[1x]",	 "fd[3]:pipe:[1]x", "fd[3]:socket:[-1]", "fd[3]:tty[88]", "fd[3]:tty[g:1]",
	    "fd[3]:file[1:2:3]", "fd[-1]:pipe:[1]", "fd[99999999999]:x", "fd[3]:/"};
	for (size_t k = 0; k < sizeof(good) / sizeof(good[0]); k++)
		ok(check(good[k], NULL) == 0, "--inherit-fd %s accepted", good[k]);
	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++)
		ok(check(bad[k], NULL) < 0 && strstr(err.msg, bad[k]) && strstr(err.msg, "malformed") &&
		       !strchr(err.msg, '\n'),
		   "--inherit-fd %s: one error line naming it (%s)", bad[k], err.msg);
}

static void t_external(void)
{
	static const char *const good[] = {"file[1f:abc]",
					   "tty[8800:1a]",
					   "unix[123]",
					   "mnt[/a]:b",
					   "dev[8/1]:d",
					   "net[4026531840]:extRootNetNS",
					   "pid[4026531836]:extRootPidNS",
					   "veth[v0]:br0",
					   "netdev[n0]:eth9",
					   "macvlan[m0]:eth0"};
	static const char *const bad[] = {"file[1]", "tty[1:2]x", "unix[a]", "unix[1:2]",
					  "tty",     "[1]",	  "file[1:2"};
	static const char *const unknown[] = {"foo[1]", "socket[1]", "pipe[1]"};
	for (size_t k = 0; k < sizeof(good) / sizeof(good[0]); k++)
		ok(check(NULL, good[k]) == 0, "--external %s accepted", good[k]);
	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++)
		ok(check(NULL, bad[k]) < 0 && strstr(err.msg, bad[k]) && strstr(err.msg, "malformed"),
		   "--external %s: malformed (%s)", bad[k], err.msg);
	for (size_t k = 0; k < sizeof(unknown) / sizeof(unknown[0]); k++)
		ok(check(NULL, unknown[k]) < 0 && strstr(err.msg, unknown[k]) &&
		       strstr(err.msg, "unknown type"),
		   "--external %s: unknown type (%s)", unknown[k], err.msg);
}

int main(void)
{
	log_open(NULL, 0);
	t_inherit();
	t_external();
	return done_testing();
}
