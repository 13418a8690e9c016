/* Threads born and dying all the time while the dump runs: the main thread keeps a few threads alive,
 * each starts a successor and exits, every one adds its generation to a counter. The dump must freeze
 * every thread even as new ones appear. After restore the chain goes on (generations keep growing),
 * and at the end the counters add up: no thread lost or run twice. */
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>
#include "zdtmtst.h"

#define CHAINS 4

static atomic_ulong runs[CHAINS], sum[CHAINS];
static atomic_int stop, live;

static void *link_fn(void *arg)
{
	unsigned long v = (unsigned long)arg, chain = v % CHAINS, gen = v / CHAINS;
	pthread_t next;
	atomic_fetch_add(&runs[chain], 1);
	atomic_fetch_add(&sum[chain], gen);
	if (!atomic_load(&stop) &&
	    !pthread_create(&next, NULL, link_fn, (void *)((gen + 1) * CHAINS + chain))) {
		pthread_detach(next);
		return NULL;
	}
	atomic_fetch_sub(&live, 1); /* the chain ends here */
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;
	test_init(argc, argv);
	test_daemon();
	atomic_store(&live, CHAINS);
	for (unsigned long c = 0; c < CHAINS; c++)
		if (pthread_create(&t, NULL, link_fn, (void *)c) || pthread_detach(t))
			fail("pthread_create");
	while (test_go())
		usleep(10000);
	atomic_store(&stop, 1);
	for (int i = 0; i < 5000 && atomic_load(&live); i++)
		usleep(1000);
	if (atomic_load(&live))
		fail("%d chains still running", atomic_load(&live));
	unsigned long total = 0;
	for (int c = 0; c < CHAINS; c++) {
		unsigned long n = atomic_load(&runs[c]);
		total += n;
		/* generations 0..n-1 each ran once: their sum is n(n-1)/2 */
		if (n < 2 || atomic_load(&sum[c]) != n * (n - 1) / 2)
			fail("chain %d: %lu runs with generation sum %lu, want %lu", c, n,
			     atomic_load(&sum[c]), n * (n - 1) / 2);
	}
	test_msg("%lu threads\n", total);
	if (!test_failures)
		pass();
	return 0;
}
