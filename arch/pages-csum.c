/* The CRC32C of a block from the partial ones the dump's page code computed in the task (arch-pages.h):
 * by linearity over GF(2), crc(A B C T) = shift(shift(shift(a, n) ^ b, n) ^ c, t) ^ d, where shift(x, k)
 * is x * x^(8k) mod P (what k zero bytes do to the register) and a, b, c, d are the register updates of
 * the streams A (from ~0), B, C and the tail T (from 0). x^(8k) by squaring, once per stream length. */
#include "arch-pages.h"
#include "arch.h"

#define POLY 0x82F63B78u

uint32_t arch_crc32c_mul(uint32_t a, uint32_t b)
{
	uint32_t r = 0;
	for (uint32_t m = 1u << 31; m; m >>= 1) {
		if (a & m)
			r ^= b;
		b = b & 1 ? (b >> 1) ^ POLY : b >> 1;
	}
	return r;
}

/* x^(8k) mod P. */
static uint32_t x_pow8(uint64_t k)
{
	uint32_t r = 1u << 31, sq = 1u << 23; /* x^0, x^8 */
	for (; k; k >>= 1, sq = arch_crc32c_mul(sq, sq))
		if (k & 1)
			r = arch_crc32c_mul(r, sq);
	return r;
}

uint32_t arch_pages_csum(const struct arch_pages_rec *r, uint64_t len)
{
	static __thread uint64_t last_n = ~0ull;
	static __thread uint32_t last_k;
	uint64_t n = len / 24 * 8, t = len - 3 * n;
	if (n != last_n)
		last_n = n, last_k = x_pow8(n);
	uint32_t c = arch_crc32c_mul(arch_crc32c_mul(r->crc[0], last_k) ^ r->crc[1], last_k) ^ r->crc[2];
	return ~(arch_crc32c_mul(c, x_pow8(t)) ^ r->crc[3]);
}
