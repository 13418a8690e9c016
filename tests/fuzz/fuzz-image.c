/* libFuzzer target: every image decoder (records of each kind, the pagemap + page file, the verifier and the
 * JSON printer of `crshim show`).
 * Input format (also written by mkseeds.c):
 *   byte 0        bits 0-6: image kind (enum img_kind, modulo IMG__COUNT); bit 7: FIX
 *   a pagemap kind or its page file kind (IMG_PAGEMAP / IMG_PAGES, IMG_SHMEM_PAGEMAP / IMG_SHMEM_PAGES, any
 *   new pair of the kinds table, see kinds.h):  u32 LE n, then n bytes of the pagemap, the rest is the
 *   page file
 *   other kinds:  the image file
 * With FIX, the (pagemap) image is given without its trailer and the harness appends a valid one (record
 * count and checksum): otherwise nearly every mutation dies at the checksum and the record decoders, the
 * pagemap checks and the JSON printer would never see mutated records. Without FIX the input is the file as
 * is. Files go to a private dir in /dev/shm that is emptied before every input. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "image/image.h"
#include "crshim.h"
#include "image/csum.h"
#include "kinds.h"

static int dirfd_ = -1;
static char dirpath_[64];
static FILE *devnull_;

static void put_file(const char *name, const uint8_t *d, size_t len)
{
	int fd = openat(dirfd_, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		abort();
	if (len && write(fd, d, len) != (ssize_t)len)
		abort();
	close(fd);
}

/* Write an image, appending a valid trailer if fix (see the FIX bit above). */
static void put_image(const char *name, const uint8_t *d, size_t len, int fix)
{
	if (!fix || len < 8) {
		put_file(name, d, len);
		return;
	}
	uint8_t *buf = malloc(len + 16);
	size_t pos = 8;
	uint32_t nr = 0, mark = IMG_TRAILER_MARK;
	if (!buf)
		abort();
	while (len - pos >= 4) { /* count the records that fit, like the reader's walk */
		uint32_t rl;
		memcpy(&rl, d + pos, 4);
		if (rl > len - pos - 4)
			break;
		pos += 4 + rl;
		nr++;
	}
	memcpy(buf, d, len);
	uint64_t c = csum64(d, len, 0);
	memcpy(buf + len, &mark, 4);
	memcpy(buf + len + 4, &nr, 4);
	memcpy(buf + len + 8, &c, 8);
	put_file(name, buf, len + 16);
	free(buf);
}

static void clear_dir(void)
{
	char name[64];
	for (int k = 0; k < IMG__COUNT; k++) {
		img_name((enum img_kind)k, 1, name, sizeof(name));
		unlinkat(dirfd_, name, 0);
	}
}

static void cleanup(void)
{
	clear_dir();
	rmdir(dirpath_);
}

static void setup(void)
{
	strcpy(dirpath_, "/dev/shm/crshim-fuzz-XXXXXX");
	if (!mkdtemp(dirpath_))
		abort();
	dirfd_ = open(dirpath_, O_DIRECTORY | O_RDONLY | O_CLOEXEC);
	devnull_ = fopen("/dev/null", "w");
	if (dirfd_ < 0 || !devnull_)
		abort();
	atexit(cleanup);
}

static void fuzz_pages(enum img_kind kmap, enum img_kind kpages, const uint8_t *data, size_t size, int fix)
{
	char mname[64], pname[64];
	struct cr_err e;
	struct page_map pm;
	uint32_t split = 0;
	if (size >= 4) {
		memcpy(&split, data, 4);
		data += 4;
		size -= 4;
	}
	if (split > size)
		split = (uint32_t)size;
	img_name(kmap, 1, mname, sizeof(mname));
	img_name(kpages, 1, pname, sizeof(pname));
	put_image(mname, data, split, fix);
	put_file(pname, data + split, size - split);
	if (!pm_load_kinds(dirfd_, kmap, kpages, 1, &pm, &e))
		pm_free(&pm);
}

static void fuzz_records(enum img_kind k, const uint8_t *data, size_t size, int fix)
{
	struct cr_err e;
	struct img_reader *r;
	ProtobufCMessage *m;
	char name[64];
	img_name(k, 1, name, sizeof(name));
	put_image(name, data, size, fix);
	if (img_open_name(dirfd_, name, &r, &e))
		return;
	while (img_read(r, &m, &e) > 0)
		protobuf_c_message_free_unpacked(m, NULL);
	img_close(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cr_err e;
	if (dirfd_ < 0)
		setup();
	if (size < 1)
		return 0;
	enum img_kind k = (enum img_kind)((data[0] & 0x7f) % IMG__COUNT);
	int fix = data[0] & 0x80;
	clear_dir();
	int kmap = fuzz_pages_kind(k) >= 0 ? (int)k : fuzz_pagemap_kind(k);
	if (kmap >= 0)
		fuzz_pages((enum img_kind)kmap, (enum img_kind)fuzz_pages_kind(kmap), data + 1, size - 1,
			   fix);
	else
		fuzz_records(k, data + 1, size - 1, fix);
	/* The same file through the dir verifier and the JSON printer (`crshim show DIR`). */
	(void)img_verify_dir(dirfd_, &e);
	(void)img_show(dirpath_, devnull_, &e);
	return 0;
}
