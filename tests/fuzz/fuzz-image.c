/* libFuzzer target: every image decoder. The first input byte picks the image kind; the rest is
 * the file. For pagemap, the input is split into the pagemap image and the raw page file. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "image.h"

static int dirfd_ = -1;

static void put_file(const char *name, const uint8_t *d, size_t len)
{
	int fd = openat(dirfd_, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		abort();
	if (len && write(fd, d, len) != (ssize_t)len)
		abort();
	close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cr_err e;
	if (dirfd_ < 0) {
		char tmpl[] = "/dev/shm/crshim-fuzz-XXXXXX";
		if (!mkdtemp(tmpl))
			abort();
		dirfd_ = open(tmpl, O_DIRECTORY | O_RDONLY | O_CLOEXEC);
	}
	if (size < 1)
		return 0;
	enum img_kind k = (enum img_kind)(data[0] % IMG__COUNT);
	data++;
	size--;
	char name[64];
	if (k == IMG_PAGES || k == IMG_PAGEMAP) {
		size_t split = size / 2;
		put_file("pagemap-1.img", data, split);
		put_file("pages-1.img", data + split, size - split);
		struct page_map pm;
		if (!pm_load(dirfd_, 1, &pm, &e))
			pm_free(&pm);
		return 0;
	}
	img_name(k, 1, name, sizeof(name));
	put_file(name, data, size);
	struct img_reader *r;
	if (img_open_name(dirfd_, name, &r, &e))
		return 0;
	ProtobufCMessage *m;
	while (img_read(r, &m, &e) > 0)
		protobuf_c_message_free_unpacked(m, NULL);
	img_close(r);
	return 0;
}
