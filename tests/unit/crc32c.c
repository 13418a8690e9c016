/* Unit tests of CRC32C (image/csum.h): the known vectors, and the instruction path (three interleaved
 * streams combined by shifting, arch_crc32c_hw) against the tables for lengths 0..4096 at odd alignments
 * and the long stretches, and chaining. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arch.h"
#include "image/csum.h"
#include "image/image.h"
#include "pagemap.pb-c.h"
#include "tap.h"

static struct cr_err err;

/* A pagemap and pages file as crshim wrote them before CRC32C (image format 1): no csum_kind in the head,
 * XXH64 in the entries. n pages of buf at 0x400000 in one block. */
static int write_old_pages(int dfd, int id, const uint8_t *buf, size_t len)
{
	char pname[64];
	struct img_writer *w;
	img_name(IMG_PAGES, id, pname, sizeof(pname));
	int fd = openat(dfd, pname, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, buf, len) != (ssize_t)len || close(fd))
		return -1;
	PagemapHead h = PAGEMAP_HEAD__INIT;
	h.pages_file = pname;
	h.total_size = len, h.has_total_size = 1;
	h.page_size = (uint32_t)sysconf(_SC_PAGESIZE), h.has_page_size = 1;
	PagemapEntry pe = PAGEMAP_ENTRY__INIT;
	pe.vaddr = 0x400000, pe.has_vaddr = 1;
	pe.nr_pages = (uint32_t)(len / h.page_size), pe.has_nr_pages = 1;
	pe.offset = 0, pe.has_offset = 1;
	pe.csum = csum64(buf, len, 0), pe.has_csum = 1;
	if (img_create(dfd, IMG_PAGEMAP, id, &w, &err))
		return -1;
	if (img_write(w, &h.base, &err) || img_write(w, &pe.base, &err)) {
		img_abort(w);
		return -1;
	}
	return img_commit(w, &err);
}

/* Flip one byte of a file at off (twice: back as it was). */
static void flip(int dfd, const char *name, off_t off)
{
	uint8_t c;
	int fd = openat(dfd, name, O_RDWR);
	if (fd < 0 || pread(fd, &c, 1, off) != 1)
		abort();
	c ^= 0x40;
	if (pwrite(fd, &c, 1, off) != 1 || close(fd))
		abort();
}

/* Old images load; a new child (CRC32C) of an old parent (XXH64) resolves and verifies; a flipped byte
 * of either is caught. */
static void t_old_images(const uint8_t *buf)
{
	char tmp[] = "/tmp/crc32c-unit.XXXXXX";
	long psz = sysconf(_SC_PAGESIZE);
	struct page_map pm = {.pages_fd = -1}, par = {.pages_fd = -1};
	struct page_writer *pw;
	if (!mkdtemp(tmp))
		abort();
	int dfd = open(tmp, O_RDONLY | O_DIRECTORY);
	ok(dfd >= 0 && mkdirat(dfd, "par", 0700) == 0 && mkdirat(dfd, "child", 0700) == 0 &&
	       symlinkat("../par", dfd, "child/parent") == 0,
	   "old: dirs");
	int pdfd = openat(dfd, "par", O_RDONLY | O_DIRECTORY),
	    cdfd = openat(dfd, "child", O_RDONLY | O_DIRECTORY);
	ok(write_old_pages(pdfd, 1, buf, 4 * (size_t)psz) == 0, "old: a format 1 pagemap (XXH64)");
	ok(pm_load(pdfd, 1, &pm, &err) == 0 && pm.csum_kind == CSUM_XXH64 && pm.nr == 1, "old: it loads: %s",
	   err.msg);
	pm_free(&pm);
	flip(pdfd, "pages-1.img", psz + 7);
	ok(pm_load(pdfd, 1, &pm, &err) < 0 && strstr(err.msg, "checksum"), "old: a flipped byte: %s",
	   err.msg);
	flip(pdfd, "pages-1.img", psz + 7);
	ok(pm_open_raw(pdfd, IMG_PAGEMAP, IMG_PAGES, 1, &par, &err) == 0, "old: open raw");
	uint64_t pmap = par.map_csum;
	pm_free(&par);
	ok(pw_open(cdfd, 1, &pw, &err) == 0, "new child: open");
	pw_set_parent(pw, pmap);
	ok(pw_add_parent(pw, 0x400000, (uint64_t)psz, &err) == 0 &&
	       pw_add(pw, 0x401000, buf + 9 * psz, (size_t)psz, &err) == 0 &&
	       pw_add_parent(pw, 0x402000, 2 * (uint64_t)psz, &err) == 0 && pw_commit(pw, &err) == 0,
	   "new child: a page of its own between runs of the old parent: %s", err.msg);
	int good = pm_load(cdfd, 1, &pm, &err) == 0 && pm.csum_kind == CSUM_CRC32C && pm.nr == 3;
	const uint8_t **data = NULL;
	static const long want[3] = {0, 9, 2};
	if (good && pm_map_data(&pm, "pages-1.img", &data, &err) == 0)
		for (size_t i = 0; i < 3; i++)
			good &= pm_block_ok(&pm, data, &pm.blocks[i]) &&
				!memcmp(data[pm.blocks[i].src] + pm.blocks[i].offset, buf + want[i] * psz,
					(size_t)psz);
	else
		good = 0;
	pm_unmap_data(&pm, data);
	pm_free(&pm);
	ok(good, "new child of an old parent: resolves, each block's data and CRC32C right: %s", err.msg);
	flip(pdfd, "pages-1.img", 2 * psz + 100);
	ok(pm_load(cdfd, 1, &pm, &err) < 0 && strstr(err.msg, "checksum") && strstr(err.msg, "parent"),
	   "new child: a flipped byte in the old parent: %s", err.msg);
	flip(pdfd, "pages-1.img", 2 * psz + 100);
	flip(cdfd, "pages-1.img", 5);
	ok(pm_load(cdfd, 1, &pm, &err) < 0 && strstr(err.msg, "checksum"), "new child: a flipped byte: %s",
	   err.msg);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp);
	if (system(cmd))
		diag("could not remove %s", tmp);
	close(pdfd), close(cdfd), close(dfd);
}

/* Bit by bit: the definition, for the tables to be checked against. */
static uint32_t crc_bitwise(const uint8_t *p, size_t len)
{
	uint32_t c = ~0u;
	while (len--) {
		c ^= *p++;
		for (int k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ 0x82F63B78u : c >> 1;
	}
	return ~c;
}

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
	t_old_images(buf);
	free(buf);
	done_testing();
}
