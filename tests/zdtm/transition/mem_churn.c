/* Memory changing all the time: a loop keeps rewriting 16 MiB page by page,
 * each page stamped with a generation number and filled with data derived from
 * it. A dump must see a frozen task, so after restore (and after SIGTERM) the
 * pages form one consistent sweep: pages [0, k) of generation g+1, the rest g,
 * every page's contents matching its stamp. Checked in the loop as well. */
#include <string.h>
#include <sys/mman.h>
#include "zdtmtst.h"

#define NP 4096

static int check(const uint64_t *m, uint64_t *gen_out)
{
	uint64_t g0 = m[0], prev = g0;
	size_t i, bad;
	int drops = 0;

	for (i = 0; i < NP; i++) {
		const uint64_t *p = m + i * (PAGE / 8);
		if (p[0] != prev) {
			/* one step down from g+1 to g is allowed, once */
			if (p[0] + 1 != prev || drops++) {
				fail("page %zu generation %lu after %lu", i, (unsigned long)p[0],
				     (unsigned long)prev);
				return -1;
			}
			prev = p[0];
		}
		if (datachk(p + 1, PAGE - 8, p[0] * NP + i, &bad)) {
			fail("page %zu (generation %lu) torn at %zu", i, (unsigned long)p[0], bad + 8);
			return -1;
		}
	}
	*gen_out = g0;
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t *m, g = 1, last;
	size_t i;

	test_init(argc, argv);
	m = mmap(NULL, NP * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED) {
		fail("mmap");
		return 1;
	}
	for (i = 0; i < NP; i++) {
		m[i * (PAGE / 8)] = g;
		datagen(m + i * (PAGE / 8) + 1, PAGE - 8, g * NP + i);
	}
	test_daemon();
	while (test_go()) {
		g++;
		for (i = 0; i < NP && test_go(); i++) {
			uint64_t *p = m + i * (PAGE / 8);
			/* data first, stamp last: a torn page would show old stamp + new data */
			datagen(p + 1, PAGE - 8, g * NP + i);
			p[0] = g;
		}
		if ((g & 7) == 0 && check(m, &last))
			break;
	}
	if (!test_failures && check(m, &last) == 0)
		test_msg("%lu generations", (unsigned long)last);
	pass();
	return 0;
}
