/* Unit tests of CRC32C (image/csum.h): the known vectors, and the instruction path (three interleaved
 * streams combined by shifting, arch_crc32c_hw) against the tables for lengths 0..4096 at odd alignments
 * and the long stretches, and chaining. */
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "image/csum.h"
#include "tap.h"

int main(void)
{
	enum { MAX = 3 * 8192 * 3 + 4096 + 64 };
	uint8_t *buf = malloc(MAX);
	if (!buf)
		return 1;
	srandom(168);
	for (size_t i = 0; i < MAX; i++)
		buf[i] = (uint8_t)random();
	arch_crc32c_fn hw = arch_crc32c_hw();
	if (!hw)
		diag("no CRC32C instruction here: crc32c() is the tables");

	ok(crc32c(0, "123456789", 9) == 0xE3069283u, "crc32c(\"123456789\") = 0x%08x",
	   crc32c(0, "123456789", 9));
	ok(crc32c_sw(0, "123456789", 9) == 0xE3069283u, "tables: crc32c(\"123456789\")");
	ok(crc32c(0, "", 0) == 0 && crc32c_sw(0, "", 0) == 0, "empty: 0");
	uint8_t zeros[32] = {0}, ones[32];
	memset(ones, 0xff, sizeof(ones));
	ok(crc32c(0, zeros, 32) == 0x8A9136AAu, "32 zero bytes: 0x8A9136AA (RFC 3720 B.4)");
	ok(crc32c(0, ones, 32) == 0x62A8AB43u, "32 0xff bytes: 0x62A8AB43 (RFC 3720 B.4)");

	int bad_sw = 0, bad_hw = 0;
	for (size_t len = 0; len <= 4096; len++) {
		size_t off = (len * 7) % 61; /* odd alignments */
		uint32_t want =
		    len <= 300 || len % 97 == 0 ? crc_bitwise(buf + off, len) : crc32c_sw(0, buf + off, len);
		bad_sw += crc32c_sw(0, buf + off, len) != want;
		bad_hw += crc32c(0, buf + off, len) != want;
		if (hw)
			bad_hw += ~hw(~0u, buf + off, len) != want;
	}
	ok(!bad_sw, "tables = bit by bit, lengths 0..4096 (%d wrong)", bad_sw);
	ok(!bad_hw,
	   "crc32c() and the instruction path = tables, lengths 0..4096 at odd alignments (%d wrong)",
	   bad_hw);

	bad_hw = 0;
	static const size_t longs[] = {3 * 8192 - 8,	    3 * 8192, 3 * 8192 + 1, 3 * 8192 + 3 * 256 + 13,
				       2 * 3 * 8192 + 4096, MAX - 64};
	for (size_t i = 0; i < sizeof(longs) / sizeof(longs[0]); i++)
		for (size_t off = 0; off < 4; off++)
			bad_hw +=
			    crc32c(0, buf + off * 13, longs[i]) != crc_bitwise(buf + off * 13, longs[i]);
	ok(!bad_hw, "long stretches (three streams of 8192 and of 256 bytes) = bit by bit (%d wrong)",
	   bad_hw);

	uint32_t whole = crc32c(0, buf, 100000 < MAX ? 100000 : MAX);
	uint32_t part = crc32c(crc32c(crc32c(0, buf, 12345), buf + 12345, 30000), buf + 42345,
			       (100000 < MAX ? 100000 : MAX) - 42345);
	ok(whole == part, "chained in three calls = in one");
	ok(csum_block(CSUM_CRC32C, buf, 4096) == crc32c(0, buf, 4096) &&
	       csum_block(CSUM_XXH64, buf, 4096) == csum64(buf, 4096, 0),
	   "csum_block: each kind its function");
	free(buf);
	done_testing();
}
