/* An EFD_SEMAPHORE eventfd with counter 3: after restore it gives 1 three times, then EAGAIN; a plain
 * eventfd beside it gives its whole counter at once. */
#include <stdint.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include "zdtmtst.h"

int main(int argc, char **argv)
{
	uint64_t v;
	int sem, plain;

	test_init(argc, argv);
	sem = eventfd(3, EFD_SEMAPHORE | EFD_NONBLOCK);
	plain = eventfd(3, EFD_NONBLOCK);
	if (sem < 0 || plain < 0)
		fail("eventfd");
	test_daemon();
	test_waitsig();

	for (int i = 0; i < 3; i++)
		if (read(sem, &v, sizeof(v)) != sizeof(v) || v != 1)
			fail("semaphore read %d: %llu, want 1 (semaphore mode lost?)", i,
			     (unsigned long long)v);
	if (read(sem, &v, sizeof(v)) != -1 || errno != EAGAIN)
		fail("semaphore: a fourth read did not give EAGAIN");
	if (read(plain, &v, sizeof(v)) != sizeof(v) || v != 3)
		fail("plain eventfd: %llu, want 3", (unsigned long long)v);
	pass();
	return 0;
}
