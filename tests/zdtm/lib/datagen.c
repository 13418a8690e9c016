#include <string.h>
#include "zdtmtst.h"

static inline uint64_t xs_next(uint64_t *s)
{
	uint64_t x = *s;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1DULL;
}

static uint64_t seed_init(uint64_t seed)
{
	return seed ? seed : 0x9E3779B97F4A7C15ULL;
}

void datagen(void *buf, size_t len, uint64_t seed)
{
	uint64_t s = seed_init(seed), v;
	unsigned char *p = buf;
	size_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		v = xs_next(&s);
		memcpy(p + i, &v, 8);
	}
	if (i < len) {
		v = xs_next(&s);
		memcpy(p + i, &v, len - i);
	}
}

int datachk(const void *buf, size_t len, uint64_t seed, size_t *bad_off)
{
	uint64_t s = seed_init(seed), v;
	const unsigned char *p = buf;
	size_t i;

	for (i = 0; i < len; i += 8) {
		size_t n = len - i < 8 ? len - i : 8;
		v = xs_next(&s);
		if (memcmp(p + i, &v, n)) {
			if (bad_off)
				*bad_off = i;
			return -1;
		}
	}
	return 0;
}

uint64_t datasum(const void *buf, size_t len)
{
	const unsigned char *p = buf;
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		uint64_t v;
		memcpy(&v, p + i, 8);
		h = (h ^ v) * 0x100000001b3ULL;
		h ^= h >> 29;
	}
	for (; i < len; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	return h;
}
