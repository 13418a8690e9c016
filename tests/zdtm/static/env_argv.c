/* argv and environment survive: /proc/self/cmdline and environ match, argv/envp pointers still valid. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "zdtmtst.h"

extern char **environ;

static char *join(char **v, size_t *len)
{
	size_t n = 0, off = 0;
	for (int i = 0; v[i]; i++)
		n += strlen(v[i]) + 1;
	char *b = malloc(n + 1);
	for (int i = 0; v[i]; i++) {
		size_t l = strlen(v[i]) + 1;
		memcpy(b + off, v[i], l);
		off += l;
	}
	*len = off;
	return b;
}

int main(int argc, char **argv)
{
	char *cmd0, *env0, *cmd1, *env1, *argv_copy, *env_copy, *var;
	ssize_t c0, e0, c1, e1;
	size_t al, el, al2, el2;
	char **envp, **saved_argv = argv;

	setenv("ZDTM_ENV_TEST", "value-before-dump", 1);
	test_init(argc, argv);
	envp = environ;
	c0 = read_file("/proc/self/cmdline", &cmd0);
	e0 = read_file("/proc/self/environ", &env0);
	argv_copy = join(argv, &al);
	env_copy = join(environ, &el);
	var = getenv("ZDTM_ENV_TEST");
	if (c0 <= 0 || e0 <= 0 || !var)
		fail("setup");
	test_daemon();
	test_waitsig();

	c1 = read_file("/proc/self/cmdline", &cmd1);
	e1 = read_file("/proc/self/environ", &env1);
	if (c1 != c0 || memcmp(cmd0, cmd1, c0))
		fail("/proc/self/cmdline changed (%zd -> %zd bytes)", c0, c1);
	if (e1 != e0 || memcmp(env0, env1, e0))
		fail("/proc/self/environ changed (%zd -> %zd bytes)", e0, e1);
	// cppcheck-suppress knownConditionTrueFalse ; the process was dumped and restored since saved_argv
	// was set
	if (saved_argv != argv || envp != environ)
		fail("argv/environ pointers changed");
	char *a2 = join(argv, &al2), *en2 = join(environ, &el2);
	if (al != al2 || memcmp(argv_copy, a2, al))
		fail("argv strings changed");
	if (el != el2 || memcmp(env_copy, en2, el))
		fail("environ strings changed");
	/* The kernel's view of the arg area must be the very memory argv points to. */
	if ((size_t)c0 != al || memcmp(cmd1, argv[0], al))
		fail("cmdline area does not match argv memory");
	if (!getenv("ZDTM_ENV_TEST") || strcmp(getenv("ZDTM_ENV_TEST"), "value-before-dump"))
		fail("getenv after restore");
	if (strcmp(var, "value-before-dump"))
		fail("env pointer content changed");
	pass();
	return 0;
}
