/* crshim: CRIU-compatible command line. The same binary behaves identically when invoked as `criu`. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include "cli.h"

static void args_release(struct shim_args *a)
{
	shim_args_free(a);
}

int main(int argc, char **argv)
{
	struct shim_cmd c;
	/* c points into args: freed when main returns, after the command ran. */
	__attribute__((cleanup(args_release))) struct shim_args args = {0};
	char msg[512];

	/* A peer that went away (a restored task killed with its PID namespace, a client that closed its end)
	 * is an error of the write that found it, reported with the cause; the signal would end crshim
	 * silently. */
	signal(SIGPIPE, SIG_IGN);
	/* Configuration files are options in front of the command line (CRIU's order). */
	if (shim_config_expand(argc, argv, getenv("HOME"), getenv("CRIU_CONFIG_FILE"), true, &args, msg,
			       sizeof(msg))) {
		fprintf(stderr, "crshim: %s\n", msg);
		return 1;
	}
	if (shim_parse(args.n, args.v, &c, msg, sizeof(msg))) {
		char line[600];
		snprintf(line, sizeof(line), "crshim: %s; see crshim --help", msg);
		shim_log_early_error(args.n, args.v, line);
		fprintf(stderr, "%s\n", line);
		return 1;
	}
	if (c.help) {
		shim_usage(stdout);
		return 0;
	}
	if (c.version) {
		printf("Version: %s\n", CRSHIM_VERSION);
		return 0;
	}
	if (shim_fault_env(&c, getenv("CRSHIM_FAULT"), getenv("CRIU_FAULT"), msg, sizeof(msg))) {
		char line[600];
		snprintf(line, sizeof(line), "crshim: %s", msg);
		shim_log_early_error(args.n, args.v, line);
		fprintf(stderr, "%s\n", line);
		return 1;
	}
	return shim_run(&c);
}
