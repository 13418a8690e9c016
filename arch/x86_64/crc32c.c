/* CRC32C by the SSE4.2 crc32 instruction on three interleaved streams: the instruction has a latency of
 * three cycles and a throughput of one, so three independent registers keep it busy. Each stretch of
 * 3 * n bytes is three streams of n; the first continues the running CRC, the other two start at 0, and
 * by linearity over GF(2) crc(A B C) = shift(shift(a, n) ^ b, n) ^ c, where shift(x, n) is x * x^(8n)
 * mod P (what n zero bytes do to the register). shift is linear in x, so it is four table lookups
 * (one per byte of x), the tables built once for each stream length used. Only this file's functions
 * with the target attribute use SSE4.2, and only after cpuid said the CPU has it. */
#include <cpuid.h>
#include <nmmintrin.h>
#include <pthread.h>
#include <string.h>
#include "arch.h"

#define POLY 0x82F63B78u
#define LONG_N 8192u /* bytes per stream of a long stretch */
#define SHORT_N 256u

static uint32_t shift_long[4][256], shift_short[4][256];

/* The tables of x -> x * x^(8n) mod P, one per byte of x. */
static void shift_tables(uint32_t t[4][256], uint32_t n)
{
	uint32_t k = 1u << 31; /* x^0 */
	for (uint64_t i = 0; i < 8ull * n; i++)
		k = k & 1 ? (k >> 1) ^ POLY : k >> 1;
	for (int byte = 0; byte < 4; byte++)
		for (uint32_t v = 0; v < 256; v++)
			t[byte][v] = arch_crc32c_mul(k, v << (8 * byte));
}

static inline uint32_t shift(const uint32_t t[4][256], uint32_t x)
{
	return t[0][x & 0xff] ^ t[1][(x >> 8) & 0xff] ^ t[2][(x >> 16) & 0xff] ^ t[3][x >> 24];
}

static inline uint64_t rd64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

/* One stretch of three streams of n bytes (a multiple of 8) at p. */
__attribute__((target("sse4.2"))) static inline uint32_t crc_x3(uint32_t c0, const uint8_t *p, size_t n,
								const uint32_t t[4][256])
{
	uint64_t a = c0, b = 0, c = 0;
	for (size_t i = 0; i < n; i += 8) {
		a = _mm_crc32_u64(a, rd64(p + i));
		b = _mm_crc32_u64(b, rd64(p + n + i));
		c = _mm_crc32_u64(c, rd64(p + 2 * n + i));
	}
	return shift(t, shift(t, (uint32_t)a) ^ (uint32_t)b) ^ (uint32_t)c;
}

__attribute__((target("sse4.2"))) static uint32_t crc_sse42(uint32_t crc, const void *data, size_t len)
{
	const uint8_t *p = data;
	for (; len >= 3 * LONG_N; len -= 3 * LONG_N, p += 3 * LONG_N)
		crc = crc_x3(crc, p, LONG_N, shift_long);
	for (; len >= 3 * SHORT_N; len -= 3 * SHORT_N, p += 3 * SHORT_N)
		crc = crc_x3(crc, p, SHORT_N, shift_short);
	uint64_t c = crc;
	for (; len >= 8; len -= 8, p += 8)
		c = _mm_crc32_u64(c, rd64(p));
	crc = (uint32_t)c;
	for (; len; len--)
		crc = _mm_crc32_u8(crc, *p++);
	return crc;
}

static arch_crc32c_fn hw;
static pthread_once_t hw_once = PTHREAD_ONCE_INIT;

static void hw_init(void)
{
	unsigned int a, b, c, d;
	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_SSE4_2))
		return;
	shift_tables(shift_long, LONG_N);
	shift_tables(shift_short, SHORT_N);
	hw = crc_sse42;
}

arch_crc32c_fn arch_crc32c_hw(void)
{
	pthread_once(&hw_once, hw_init);
	return hw;
}
