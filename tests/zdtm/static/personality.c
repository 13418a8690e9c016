/* personality(ADDR_NO_RANDOMIZE | ADDR_COMPAT_LAYOUT) survives. */
#include <sys/personality.h>
#include "zdtmtst.h"

int main(int argc, char **argv)
{
	int want, got;

	test_init(argc, argv);
	if (personality(PER_LINUX | ADDR_NO_RANDOMIZE | ADDR_COMPAT_LAYOUT) < 0)
		fail("personality");
	want = personality(0xffffffff);
	if (!(want & ADDR_NO_RANDOMIZE))
		fail("personality not set: %#x", want);
	test_daemon();
	test_waitsig();
	got = personality(0xffffffff);
	if (got != want)
		fail("personality %#x, want %#x", got, want);
	pass();
	return 0;
}
