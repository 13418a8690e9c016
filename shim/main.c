/* crshim: CRIU-compatible command line. The same binary behaves identically when invoked as `criu`. */
#include <stdio.h>
#include <stdlib.h>
#include "cli.h"

int main(int argc, char **argv)
{
	struct shim_cmd c;
	char msg[512];

	if (shim_parse(argc, argv, &c, msg, sizeof(msg))) {
		fprintf(stderr, "crshim: %s; see crshim --help\n", msg);
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
		fprintf(stderr, "crshim: %s\n", msg);
		return 1;
	}
	return shim_run(&c);
}
