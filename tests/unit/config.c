/* Unit tests of the CRIU configuration files (shim/config.c): the forms of a line, quotes and comments, the
 * errors (FILE:LINE, one line), the order of default, CRIU_CONFIG_FILE, --config and command-line options,
 * and what the option parser makes of the result. */
#include <sys/stat.h>
#include <unistd.h>
#include "../../shim/cli.c"
#include "../../shim/config.c"
#include "tap.h"

static char msg[512];

/* The arguments of a as one string, "|" between them. */
static const char *joined(const struct shim_args *a)
{
	static char buf[2048];
	size_t o = 0;
	buf[0] = '\0';
	for (int i = 0; i < a->n && o < sizeof(buf); i++)
		o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%s%s", i ? "|" : "", a->v[i]);
	return buf;
}

static int parse_text(const char *text, struct shim_args *a)
{
	msg[0] = '\0';
	return shim_config_parse(text, strlen(text), "t.conf", a, msg, sizeof(msg));
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "we");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

int main(void)
{
	struct shim_args a = {0};
	char dir[] = "/tmp/crshim-unit-config.XXXXXX";

	ok(parse_text("tcp-established\n# a comment\n\n  log-file \"/tmp/my log.txt\"\n--shell-job\n"
		      "manage-cgroups=ignore\nv4 # trailing comment\n",
		      &a) == 0 &&
	       !strcmp(joined(&a), "--tcp-established|--log-file|/tmp/my log.txt|--shell-job|"
				   "--manage-cgroups=ignore|--v4"),
	   "the forms of CRIU's docs: %s", joined(&a));
	bool src = a.n == 6;
	for (int i = 0; i < a.n; i++)
		src &= a.src[i] && !strcmp(a.src[i], "t.conf");
	ok(src && a.v[a.n] == NULL, "every argument says which file it came from; argv style");
	shim_args_free(&a);
	memset(&a, 0, sizeof(a));

	ok(parse_text("root \"/a \\\"quoted\\\" dir\"\r\ninherit-fd fd[3]:pipe:[1]\n", &a) == 0 &&
	       !strcmp(joined(&a), "--root|/a \"quoted\" dir|--inherit-fd|fd[3]:pipe:[1]"),
	   "escaped quotes, CRLF: %s", joined(&a));
	shim_args_free(&a);
	memset(&a, 0, sizeof(a));

	ok(parse_text("shell-job\nroot \"/open\n", &a) < 0 &&
	       !strcmp(msg, "t.conf:2: unterminated quote or token too long"),
	   "an unterminated quote names file and line: %s", msg);
	shim_args_free(&a);
	memset(&a, 0, sizeof(a));
	ok(parse_text("root /a /b\n", &a) < 0 && !strcmp(msg, "t.conf:1: more than one value for 'root'"),
	   "two values: %s", msg);
	shim_args_free(&a);
	memset(&a, 0, sizeof(a));
	char longname[700];
	memset(longname, 'x', sizeof(longname) - 2);
	longname[sizeof(longname) - 2] = '\n';
	longname[sizeof(longname) - 1] = '\0';
	ok(parse_text(longname, &a) < 0 && strstr(msg, "t.conf:1:") && !strchr(msg, '\n'),
	   "a name longer than a token: one line: %s", msg);
	shim_args_free(&a);
	memset(&a, 0, sizeof(a));
	ok(shim_config_parse("", 0, "t.conf", &a, msg, sizeof(msg)) == 0 && a.n == 0,
	   "an empty file adds nothing");
	ok(parse_text("# only\n   \n\t# comments\n", &a) == 0 && a.n == 0,
	   "comments and blank lines add nothing");
	shim_args_free(&a);
	memset(&a, 0, sizeof(a));

	/* Files: missing ones, and the order of the sources. */
	if (!mkdtemp(dir))
		return diag("mkdtemp failed"), 1;
	char home[128], crdir[160], user[200], env[160], cfg[160], missing[160];
	snprintf(home, sizeof(home), "%s", dir);
	snprintf(crdir, sizeof(crdir), "%s/.criu", dir);
	snprintf(user, sizeof(user), "%s/default.conf", crdir);
	snprintf(env, sizeof(env), "%s/env.conf", dir);
	snprintf(cfg, sizeof(cfg), "%s/cfg.conf", dir);
	snprintf(missing, sizeof(missing), "%s/none.conf", dir);
	mkdir(crdir, 0700);
	write_file(user, "shell-job\n");
	write_file(env, "tcp-established\n");
	write_file(cfg, "leave-running\nlog-file cfg.log\n");

	ok(shim_config_read(missing, false, &a, msg, sizeof(msg)) == 0 && a.n == 0,
	   "a missing default file: nothing");
	ok(shim_config_read(missing, true, &a, msg, sizeof(msg)) < 0 && strstr(msg, "none.conf") &&
	       strstr(msg, "No such file"),
	   "a missing --config file: %s", msg);
	shim_args_free(&a);

	char *argv[] = {"crshim",   "dump", "-t",	  "1",	     "-D", "d",
			"--config", cfg,    "--log-file", "cli.log", NULL};
	int argc = 10;
	struct shim_args out = {0};
	ok(shim_config_expand(argc, argv, home, env, true, &out, msg, sizeof(msg)) == 0, "expand: %s", msg);
	char want[1024];
	snprintf(want, sizeof(want),
		 "crshim|--shell-job|--tcp-established|--leave-running|--log-file|cfg.log|dump|-t|1|-D|d|--"
		 "config|%s|"
		 "--log-file|cli.log",
		 cfg);
	ok(access("/etc/criu/default.conf", F_OK) ? !strcmp(joined(&out), want)
						  : !!strstr(joined(&out), want + 7),
	   "HOME's default, CRIU_CONFIG_FILE, --config, then the command line: %s", joined(&out));
	struct shim_cmd c;
	int pr = shim_parse(out.n, out.v, &c, msg, sizeof(msg));
	ok(pr == 0 && c.verb == VERB_DUMP && c.opts.shell_job && c.opts.tcp_established &&
	       c.opts.leave_running && c.opts.log_file && !strcmp(c.opts.log_file, "cli.log"),
	   "the options of every file apply, the command line's log file wins: %s", pr ? msg : "");
	shim_args_free(&out);
	memset(&out, 0, sizeof(out));

	char *argv2[] = {"crshim", "dump", "--no-default-config", "-t", "1", NULL};
	ok(shim_config_expand(5, argv2, home, NULL, true, &out, msg, sizeof(msg)) == 0 &&
	       !strcmp(joined(&out), "crshim|dump|--no-default-config|-t|1"),
	   "--no-default-config: HOME's file is not read: %s", joined(&out));
	shim_args_free(&out);
	memset(&out, 0, sizeof(out));

	write_file(cfg, "root \"unterminated\n");
	ok(shim_config_expand(argc, argv, home, NULL, true, &out, msg, sizeof(msg)) < 0 &&
	       strstr(msg, "cfg.conf:1:"),
	   "a bad --config file fails with its name and line: %s", msg);
	shim_args_free(&out);
	memset(&out, 0, sizeof(out));
	ok(shim_config_expand(argc, argv, home, missing, true, &out, msg, sizeof(msg)) < 0 &&
	       strstr(msg, "none.conf"),
	   "a missing CRIU_CONFIG_FILE fails: %s", msg);
	shim_args_free(&out);

	unlink(user);
	unlink(env);
	unlink(cfg);
	rmdir(crdir);
	rmdir(dir);
	return done_testing();
}
