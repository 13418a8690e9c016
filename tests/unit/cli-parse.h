/* Shared by the command line unit tests (cli.c, oci-cli.c), included after shim/cli.c: parse("ARGS") runs
 * shim_parse on "crshim ARGS" split on spaces, into c (the command) and msg (the error); its result. */
#ifndef CRSHIM_UNIT_CLI_PARSE_H
#define CRSHIM_UNIT_CLI_PARSE_H
#include <stdio.h>
#include <string.h>

static struct shim_cmd c;
static char msg[512];

static int parse(const char *line)
{
	static char buf[1024];
	char *argv[64];
	int argc = 0;
	snprintf(buf, sizeof(buf), "crshim %s", line);
	for (char *tok = strtok(buf, " "); tok && argc < 63; tok = strtok(NULL, " "))
		argv[argc++] = tok;
	argv[argc] = NULL;
	return shim_parse(argc, argv, &c, msg, sizeof(msg));
}
#endif
