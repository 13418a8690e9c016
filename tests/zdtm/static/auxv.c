/* The auxiliary vector: getauxval() values (page size, hwcaps, AT_RANDOM bytes,
 * phdr, entry, base, vdso, execfn, platform...) and /proc/self/auxv unchanged. */
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include "zdtmtst.h"

static const unsigned long types[] = {AT_PAGESZ, AT_HWCAP,    AT_HWCAP2,       AT_CLKTCK,     AT_PHDR,
				      AT_PHENT,	 AT_PHNUM,    AT_BASE,	       AT_ENTRY,      AT_UID,
				      AT_EUID,	 AT_GID,      AT_EGID,	       AT_SECURE,     AT_RANDOM,
				      AT_EXECFN, AT_PLATFORM, AT_SYSINFO_EHDR, AT_MINSIGSTKSZ};

int main(int argc, char **argv)
{
	unsigned long v0[ARRAY_SIZE(types)], v;
	unsigned char rnd[16];
	char execfn[4096], platform[64], *a0, *a1;
	ssize_t n0, n1;
	size_t i;

	test_init(argc, argv);
	for (i = 0; i < ARRAY_SIZE(types); i++)
		v0[i] = getauxval(types[i]);
	memcpy(rnd, (void *)getauxval(AT_RANDOM), 16);
	snprintf(execfn, sizeof(execfn), "%s", (char *)getauxval(AT_EXECFN));
	snprintf(platform, sizeof(platform), "%s", (char *)getauxval(AT_PLATFORM));
	n0 = read_file("/proc/self/auxv", &a0);
	if (getauxval(AT_PAGESZ) != 4096 || n0 <= 0)
		fail("setup");
	test_daemon();
	test_waitsig();

	for (i = 0; i < ARRAY_SIZE(types); i++)
		if ((v = getauxval(types[i])) != v0[i])
			fail("auxv type %lu: %#lx, want %#lx", types[i], v, v0[i]);
	if (memcmp(rnd, (void *)getauxval(AT_RANDOM), 16))
		fail("AT_RANDOM bytes changed");
	if (strcmp(execfn, (char *)getauxval(AT_EXECFN)))
		fail("AT_EXECFN '%s', want '%s'", (char *)getauxval(AT_EXECFN), execfn);
	if (strcmp(platform, (char *)getauxval(AT_PLATFORM)))
		fail("AT_PLATFORM changed");
	n1 = read_file("/proc/self/auxv", &a1);
	if (n1 != n0 || memcmp(a0, a1, n0))
		fail("/proc/self/auxv changed (%zd -> %zd bytes)", n0, n1);
	pass();
	return 0;
}
