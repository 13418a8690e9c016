/* Seed corpus for fuzz-image: converts image dirs into fuzz inputs (see the format in fuzz-image.c).
 *   mkseeds OUT IMGDIR...    every image file of each dir (page files with their pagemap)
 *   mkseeds --synth OUT      images written with the image-layer API (when no dump is possible) */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "image/image.h"
#include "kinds.h"

#define MAX_SEED (1u << 20)

static int read_all(int dirfd, const char *name, uint8_t **buf, size_t *len)
{
	struct stat st;
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || st.st_size > MAX_SEED) {
		close(fd);
		return -1;
	}
	*len = (size_t)st.st_size;
	*buf = malloc(*len + 1);
	if (!*buf || (*len && read(fd, *buf, *len) != (ssize_t)*len)) {
		free(*buf);
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

/* The trailer of an image file (see image.h): FIX seeds leave it out (fuzz-image.c appends a valid one). */
#define TRAILER_LEN 16

static int write_seed(const char *out, const char *tag, const char *name, uint8_t kind, const void *a,
		      size_t alen, const void *b, size_t blen)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s-%s%s", out, tag, name, kind & 0x80 ? "-fix" : "");
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	fputc(kind, f);
	if (b) {
		uint32_t split = (uint32_t)alen;
		fwrite(&split, 4, 1, f);
	}
	fwrite(a, 1, alen, f);
	if (b)
		fwrite(b, 1, blen, f);
	return fclose(f);
}

/* One image file as a seed; a pagemap is paired with its page file. */
static int convert_one(const char *out, const char *tag, int dirfd, const char *name)
{
	int id, k = img_kind_of(name, &id), ret = 0;
	uint8_t *a = NULL, *b = NULL;
	size_t alen = 0, blen = 0;
	if (k < 0 || fuzz_pagemap_kind(k) >= 0)
		return 0; /* a page file: a seed together with its pagemap */
	if (read_all(dirfd, name, &a, &alen))
		return 0; /* unreadable or too large: not a useful seed */
	if (fuzz_pages_kind(k) >= 0) {
		char pages[64];
		img_name((enum img_kind)fuzz_pages_kind(k), id, pages, sizeof(pages));
		if (read_all(dirfd, pages, &b, &blen)) {
			free(a);
			return 0;
		}
	}
	ret = write_seed(out, tag, name, (uint8_t)k, a, alen, b, blen);
	if (!ret && alen >= TRAILER_LEN)
		ret = write_seed(out, tag, name, (uint8_t)(k | 0x80), a, alen - TRAILER_LEN, b, blen);
	free(a);
	free(b);
	return ret;
}

static int convert_dir(const char *out, const char *path)
{
	char tag[256];
	size_t n0 = strlen(path);
	while (n0 > 1 && path[n0 - 1] == '/')
		n0--;
	const char *base = memrchr(path, '/', n0);
	base = base ? base + 1 : path;
	snprintf(tag, sizeof(tag), "%.*s", (int)(n0 - (size_t)(base - path)), base);
	DIR *d = opendir(path);
	struct dirent *de;
	int n = 0;
	if (!d) {
		perror(path);
		return -1;
	}
	while ((de = readdir(d)))
		if (!convert_one(out, tag, dirfd(d), de->d_name))
			n++;
	closedir(d);
	return n;
}

static int synth(const char *out)
{
	char tmpl[] = "/tmp/crshim-seeds-XXXXXX";
	struct cr_err e;
	struct page_writer *pw;
	static uint8_t page[2 * 4096];
	if (!mkdtemp(tmpl))
		return -1;
	int dfd = open(tmpl, O_DIRECTORY | O_RDONLY | O_CLOEXEC);
	if (dfd < 0)
		return -1;
	for (int k = 0; k < IMG__COUNT; k++) {
		const struct img_kind_desc *d = img_kind_desc((enum img_kind)k);
		if (fuzz_pages_kind(k) >= 0) { /* a page store: a pagemap with two pages */
			memset(page, 0x5a, sizeof(page));
			if (pw_open_kinds(dfd, (enum img_kind)k, (enum img_kind)fuzz_pages_kind(k), 1, &pw,
					  &e) ||
			    pw_add(pw, 0x400000, page, sizeof(page), &e) || pw_commit(pw, &e))
				fprintf(stderr, "mkseeds: %s: %s\n", d->name, e.msg);
			continue;
		}
		if (!d->first)
			continue;
		void *m = calloc(1, d->first->sizeof_message);
		if (!m)
			return -1;
		protobuf_c_message_init(d->first, m);
		if (img_write_one(dfd, (enum img_kind)k, 1, m, &e))
			fprintf(stderr, "mkseeds: %s: %s\n", d->name, e.msg);
		free(m);
	}
	close(dfd);
	return convert_dir(out, tmpl);
}

int main(int argc, char **argv)
{
	int n = 0;
	if (argc >= 3 && !strcmp(argv[1], "--synth"))
		n = synth(argv[2]);
	else if (argc >= 3)
		for (int i = 2; i < argc; i++)
			n += convert_dir(argv[1], argv[i]);
	else {
		fprintf(stderr, "usage: mkseeds OUT IMGDIR... | mkseeds --synth OUT\n");
		return 2;
	}
	printf("mkseeds: %d seeds\n", n);
	return n > 0 ? 0 : 1;
}
