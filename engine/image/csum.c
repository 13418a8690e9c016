/* XXH64, implemented from the algorithm description (xxhash spec), and CRC32C by tables (the CPU's
 * instruction through arch_crc32c_hw where there is one). */
#include <pthread.h>
#include <string.h>
#include "arch.h"
#include "image/csum.h"

#define P1 0x9E3779B185EBCA87ULL
#define P2 0xC2B2AE3D27D4EB4FULL
#define P3 0x165667B19E3779F9ULL
#define P4 0x85EBCA77C2B2AE63ULL
#define P5 0x27D4EB2F165667C5ULL

static inline uint64_t rotl64(uint64_t x, int r)
{
	return (x << r) | (x >> (64 - r));
}
static inline uint64_t rd64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}
static inline uint32_t rd32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}
static inline uint64_t mix_round(uint64_t acc, uint64_t in)
{
	acc += in * P2;
	acc = rotl64(acc, 31);
	return acc * P1;
}
static inline uint64_t merge_round(uint64_t acc, uint64_t v)
{
	acc ^= mix_round(0, v);
	return acc * P1 + P4;
}

uint64_t csum64(const void *data, size_t len, uint64_t seed)
{
	const uint8_t *p = data, *end = p + len;
	uint64_t h;

	if (len >= 32) {
		uint64_t v1 = seed + P1 + P2, v2 = seed + P2, v3 = seed, v4 = seed - P1;
		const uint8_t *limit = end - 32;
		do {
			v1 = mix_round(v1, rd64(p));
			v2 = mix_round(v2, rd64(p + 8));
			v3 = mix_round(v3, rd64(p + 16));
			v4 = mix_round(v4, rd64(p + 24));
			p += 32;
		} while (p <= limit);
		h = rotl64(v1, 1) + rotl64(v2, 7) + rotl64(v3, 12) + rotl64(v4, 18);
		h = merge_round(h, v1);
		h = merge_round(h, v2);
		h = merge_round(h, v3);
		h = merge_round(h, v4);
	} else {
		h = seed + P5;
	}
	h += (uint64_t)len;
	while (p + 8 <= end) {
		h ^= mix_round(0, rd64(p));
		h = rotl64(h, 27) * P1 + P4;
		p += 8;
	}
	if (p + 4 <= end) {
		h ^= (uint64_t)rd32(p) * P1;
		h = rotl64(h, 23) * P2 + P3;
		p += 4;
	}
	while (p < end) {
		h ^= (*p) * P5;
		h = rotl64(h, 11) * P1;
		p++;
	}
	h ^= h >> 33;
	h *= P2;
	h ^= h >> 29;
	h *= P3;
	h ^= h >> 32;
	return h;
}

/* ---------------- CRC32C ---------------- */

#define CRC32C_POLY 0x82F63B78u /* reflected Castagnoli polynomial */

static uint32_t crc_tab[8][256];
static arch_crc32c_fn crc_hw;
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

static void crc_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ CRC32C_POLY : c >> 1;
		crc_tab[0][i] = c;
	}
	for (uint32_t i = 0; i < 256; i++)
		for (int t = 1; t < 8; t++)
			crc_tab[t][i] = (crc_tab[t - 1][i] >> 8) ^ crc_tab[0][crc_tab[t - 1][i] & 0xff];
	crc_hw = arch_crc32c_hw();
}

/* The register update (no inversions) by tables, eight bytes a step. */
static uint32_t crc_raw_sw(uint32_t c, const uint8_t *p, size_t len)
{
	for (; len && ((uintptr_t)p & 7); len--)
		c = (c >> 8) ^ crc_tab[0][(c ^ *p++) & 0xff];
	for (; len >= 8; len -= 8, p += 8) {
		uint64_t v = rd64(p) ^ c; /* little endian: the arches crshim builds for */
		c = crc_tab[7][v & 0xff] ^ crc_tab[6][(v >> 8) & 0xff] ^ crc_tab[5][(v >> 16) & 0xff] ^
		    crc_tab[4][(v >> 24) & 0xff] ^ crc_tab[3][(v >> 32) & 0xff] ^
		    crc_tab[2][(v >> 40) & 0xff] ^ crc_tab[1][(v >> 48) & 0xff] ^ crc_tab[0][v >> 56];
	}
	while (len--)
		c = (c >> 8) ^ crc_tab[0][(c ^ *p++) & 0xff];
	return c;
}

uint32_t crc32c_sw(uint32_t crc, const void *data, size_t len)
{
	pthread_once(&crc_once, crc_init);
	return ~crc_raw_sw(~crc, data, len);
}

uint32_t crc32c(uint32_t crc, const void *data, size_t len)
{
	pthread_once(&crc_once, crc_init);
	return ~(crc_hw ? crc_hw(~crc, data, len) : crc_raw_sw(~crc, data, len));
}

uint64_t csum_block(enum csum_kind kind, const void *data, size_t len)
{
	return kind == CSUM_CRC32C ? crc32c(0, data, len) : csum64(data, len, 0);
}
