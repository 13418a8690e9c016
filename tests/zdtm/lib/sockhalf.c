/* A TCP peer outside the dumped tree for the half-closed connection tests (like sockpeer.c: double-forked,
 * reparented to the runner's subreaper, own session, gone after 300 s at most). It accepts one connection,
 * sends nsend pattern bytes (sockpeer_pat) and then its FIN (once finfile exists, if given), reads nothing
 * until gofile exists, then reads to the end of the stream checking every byte against sockpeer_pat(offset)
 * and writes its verdict into the file result: "OK <bytes>\n" or "BAD <offset>\n". It cannot answer on the
 * connection: it shut it down for writing. */
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

static void wait_file(const char *path)
{
	while (path && access(path, F_OK))
		usleep(10000);
}

static void verdict(const char *result, const char *line)
{
	char tmp[512];
	snprintf(tmp, sizeof(tmp), "%s.tmp", result);
	FILE *f = fopen(tmp, "w");
	if (!f)
		_exit(6);
	fputs(line, f);
	if (fclose(f) || rename(tmp, result))
		_exit(6);
}

static void serve(int lfd, uint64_t nsend, const char *finfile, const char *gofile, const char *result)
{
	static uint8_t buf[65536];
	uint64_t off = 0;
	char line[64];
	int c = accept(lfd, NULL, NULL);
	close(lfd);
	if (c < 0 || sockpeer_send(c, &off, (size_t)nsend, 0) != (ssize_t)nsend)
		_exit(2);
	wait_file(finfile);
	if (shutdown(c, SHUT_WR))
		_exit(3);
	wait_file(gofile);
	for (off = 0;;) {
		ssize_t n = sockpeer_read(c, buf, sizeof(buf), &off, line, sizeof(line));
		if (n < 0) {
			verdict(result, line);
			_exit(n == -1 ? 4 : 5);
		}
		if (n == 0)
			break;
	}
	snprintf(line, sizeof(line), "OK %llu\n", (unsigned long long)off);
	verdict(result, line);
	close(c);
	_exit(0);
}

int sockhalf_start(int family, uint64_t nsend, const char *finfile, const char *gofile, const char *result)
{
	unlink(result);
	int port, lfd = lo_listen(family, &port);
	if (lfd < 0)
		return -1;
	int r = sockpeer_outside(lfd);
	if (r == 0)
		serve(lfd, nsend, finfile, gofile, result);
	close(lfd);
	return r < 0 ? -1 : port;
}

int sockhalf_verdict(const char *result, uint64_t sent)
{
	char line[64] = "";
	FILE *f = NULL;
	for (int i = 0; i < 6000 && !(f = fopen(result, "r")); i++)
		usleep(10000);
	if (!f) {
		test_msg("no verdict from the peer in %s\n", result);
		return -1;
	}
	if (!fgets(line, sizeof(line), f))
		line[0] = '\0';
	fclose(f);
	unsigned long long n;
	if (sscanf(line, "OK %llu", &n) != 1 || n != sent) {
		test_msg("peer says: %s (sent %llu)\n", line, (unsigned long long)sent);
		return -1;
	}
	return 0;
}
