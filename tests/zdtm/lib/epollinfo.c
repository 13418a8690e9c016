/* What /proc says of an epoll instance's interest list; what is ready; a child holding the targets. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>
#include "zdtmtst.h"

static int cmp_str(const void *a, const void *b)
{
	return strcmp((const char *)a, (const char *)b);
}

int epoll_tfds(int fd, char *out, size_t len)
{
	char *buf, *p, ent[16][48];
	size_t off = 0;
	int n = 0;
	out[0] = '\0';
	if (fdinfo_read(fd, &buf) < 0)
		return -1;
	for (p = strstr(buf, "tfd:"); p && n < 16; p = strstr(p + 4, "tfd:")) {
		int t;
		unsigned ev;
		unsigned long long d;
		if (sscanf(p, "tfd: %d events: %x data: %llx", &t, &ev, &d) == 3)
			snprintf(ent[n++], sizeof(ent[0]), "%d:%x:%llx", t, ev, d);
	}
	free(buf);
	qsort(ent, (size_t)n, sizeof(ent[0]), cmp_str);
	for (int i = 0; i < n && off < len; i++)
		off += (size_t)snprintf(out + off, len - off, "%s ", ent[i]);
	return n;
}

uint64_t epoll_ready(int ep)
{
	struct epoll_event evs[16];
	uint64_t seen = 0;
	int n = epoll_wait(ep, evs, 16, 0);
	for (int i = 0; i < n; i++)
		seen |= evs[i].data.u64;
	return seen;
}

void epoll_child_reads(int efd, int data_r, int ctl_r, int ack_w)
{
	uint64_t v;
	char c;
	test_forked();
	if (read(ctl_r, &c, 1) != 1)
		_exit(2);
	if (read(data_r, &c, 1) != 1 || read(efd, &v, sizeof(v)) != sizeof(v) || v != 1)
		_exit(3);
	if (write(ack_w, "k", 1) != 1)
		_exit(4);
	_exit(0);
}
