/* A task with a thread, in a user namespace of its own: refused at dump with one line. */
#include <pthread.h>
#include "userns_refused.h"

static void *sleeper(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th;
	test_init(argc, argv);
	unsigned long u = uref_enter();
	if (pthread_create(&th, NULL, sleeper, NULL))
		fail("setup: pthread_create");
	return uref_done(u, NULL);
}
