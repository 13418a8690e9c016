/* libFuzzer target: the page server's protocol parser (ps_serve_one in engine/image/page-xfer.c, the wire
 * format of page-xfer.md) fed one client connection over a real AF_UNIX stream socket.
 * Input: byte 0 bit 0: FIX; the rest is what the client sends (the server's replies are read and dropped).
 * With FIX the harness walks the messages and writes the right checksums (HELLO and DATA: csum64 of the
 * payload; CLOSE: the size and the chain of the file's DATA checksums), otherwise nearly every mutation dies
 * at a checksum and OPEN/DATA/CLOSE/FINISH would never see mutated names and lengths. Without FIX the stream
 * is sent as is. Checked after every input: a failed session leaves nothing in the server's dir; a finished
 * one leaves only page image names (no temporary dot files). The dir is emptied before the next input. */
#include <dirent.h>
#include <endian.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include "image/csum.h"
#include "image/image.h"
#include "image/page-xfer.h"

#define HDR 24u

static int lfd_ = -1, dirfd_ = -1;
static char dirpath_[64];
static struct sockaddr_un addr_;
static socklen_t addrlen_;

struct client {
	int sk;
	const uint8_t *d;
	size_t n;
};

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return le64toh(v);
}

static void put64(uint8_t *p, uint64_t v)
{
	v = htole64(v);
	memcpy(p, &v, 8);
}

/* The checksums of the stream set right (see FIX above); stops at the first message that does not fit. */
static void fix(uint8_t *d, size_t n)
{
	uint64_t fsum = 0, size = 0;
	for (size_t pos = 0; n - pos >= HDR;) {
		uint32_t cmd, nl;
		memcpy(&cmd, d + pos, 4);
		memcpy(&nl, d + pos + 4, 4);
		cmd = le32toh(cmd), nl = le32toh(nl);
		uint64_t len = get64(d + pos + 8);
		uint64_t plen = cmd == 4 ? 0 : len; /* CLOSE: len is the file size, no payload */
		if (nl > n - pos - HDR || plen > n - pos - HDR - nl)
			return;
		const uint8_t *pl = d + pos + HDR + nl;
		if (cmd == 1 || cmd == 3) {
			uint64_t c = csum64(pl, (size_t)plen, 0);
			put64(d + pos + 16, c);
			if (cmd == 3) {
				fsum = csum64(&c, sizeof(c), fsum);
				size += plen;
			}
		} else if (cmd == 2) {
			fsum = size = 0;
		} else if (cmd == 4) {
			put64(d + pos + 8, size);
			put64(d + pos + 16, fsum);
		}
		pos += HDR + nl + plen;
	}
}

static void *client_run(void *arg)
{
	struct client *c = arg;
	for (size_t done = 0; done < c->n;) {
		ssize_t w = send(c->sk, c->d + done, c->n - done, MSG_NOSIGNAL);
		if (w <= 0)
			break; /* the server closed on an error */
		done += (size_t)w;
	}
	shutdown(c->sk, SHUT_WR);
	char buf[4096];
	while (recv(c->sk, buf, sizeof(buf), 0) > 0)
		; /* the replies: the server never blocks on them */
	return NULL;
}

/* Checks what the server left (see above) and removes it. */
static void check_and_empty(bool ok)
{
	int fd = dup(dirfd_);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	if (!dir)
		abort();
	struct dirent *de;
	while ((de = readdir(dir))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		int id, k = img_kind_of(de->d_name, &id);
		if (!ok || de->d_name[0] == '.' ||
		    (k != IMG_PAGEMAP && k != IMG_PAGES && k != IMG_SHMEM_PAGEMAP && k != IMG_SHMEM_PAGES &&
		     k != IMG_IPC_SHM_PAGEMAP && k != IMG_IPC_SHM_PAGES)) {
			fprintf(stderr, "fuzz-pagesrv: %s left in the dir after a %s session\n", de->d_name,
				ok ? "finished" : "failed");
			abort();
		}
		unlinkat(dirfd_, de->d_name, 0);
	}
	closedir(dir);
}

static void setup(void)
{
	snprintf(dirpath_, sizeof(dirpath_), "/tmp/crshim-fuzz-pagesrv.XXXXXX");
	if (!mkdtemp(dirpath_))
		abort();
	dirfd_ = open(dirpath_, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	lfd_ = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	/* an abstract address the kernel chooses (autobind): nothing in the file system */
	if (dirfd_ < 0 || lfd_ < 0 || bind(lfd_, (struct sockaddr *)&a, sizeof(sa_family_t)) ||
	    listen(lfd_, 4))
		abort();
	addrlen_ = sizeof(addr_);
	if (getsockname(lfd_, (struct sockaddr *)&addr_, &addrlen_))
		abort();
}

static void cleanup(void)
{
	if (dirfd_ >= 0)
		check_and_empty(true);
	rmdir(dirpath_);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (lfd_ < 0) {
		setup();
		atexit(cleanup);
	}
	if (!size)
		return 0;
	size_t n = size - 1;
	uint8_t *d = malloc(n ? n : 1);
	if (!d)
		abort();
	memcpy(d, data + 1, n);
	if (data[0] & 1)
		fix(d, n);
	struct client c = {socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), d, n};
	if (c.sk < 0 || connect(c.sk, (struct sockaddr *)&addr_, addrlen_))
		abort();
	pthread_t t;
	if (pthread_create(&t, NULL, client_run, &c))
		abort();
	struct cr_err e = {0};
	int r = ps_serve_one(lfd_, dirfd_, &e);
	if (r && !e.msg[0])
		abort(); /* a failure says why */
	pthread_join(t, NULL);
	close(c.sk);
	free(d);
	check_and_empty(r == 0);
	return 0;
}
