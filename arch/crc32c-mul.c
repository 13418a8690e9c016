/* CRC32C arithmetic shared by the arches (arch.h): the product of two polynomials mod the CRC32C
 * polynomial, which the tables of arch/<ARCH>/crc32c.c are built from. */
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
