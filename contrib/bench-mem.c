/* bench-mem: the program that `make bench` checkpoints and restores.
 *
 * Usage: bench-mem MIB DIR
 *
 * Maps MIB MiB of private anonymous memory, fills every byte with pseudo-random data from a random seed and
 * keeps a checksum of it. Then writes DIR/ready (its pid) and waits for SIGUSR1. On SIGUSR1 it checks the
 * memory twice: the checksum again, and every word against the generator replayed from the seed (which names
 * the first bad offset). It writes "OK ..." or "BAD ..." to DIR/result and exits. Start it detached (setsid)
 * with stdio on /dev/null. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* close_range (the Makefile passes -D_GNU_SOURCE; a plain `cc` build needs it too) */
#endif
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <unistd.h>

/* Whatever the starting shell leaked (pipes, sockets, ...) is not ours: keep only stdin, stdout and stderr,
 * so the checkpoint sees only the files this program opened itself. */
static void close_inherited_fds(void)
{
	if (close_range(3, ~0U, 0) < 0)
		for (int fd = 3; fd < 1024; fd++)
			close(fd);
}

#define LANES 4 /* independent generators and hash lanes, so the loops are not one long dependency chain */

struct state {
	uint64_t seed[LANES];
	uint64_t sum;
};

static inline uint64_t next(uint64_t *x) /* xorshift64* */
{
	*x ^= *x >> 12;
	*x ^= *x << 25;
	*x ^= *x >> 27;
	return *x * 0x2545F4914F6CDD1DULL;
}

static inline uint64_t mix(uint64_t h, uint64_t w)
{
	h ^= w;
	h *= 0x9E3779B97F4A7C15ULL;
	return h ^ (h >> 32);
}

static uint64_t fold(const uint64_t *h)
{
	uint64_t r = 0;

	for (int l = 0; l < LANES; l++)
		r = mix(r, h[l] + (uint64_t)l);
	return r;
}

static void fill(uint64_t *mem, size_t words, struct state *st)
{
	uint64_t x[LANES], h[LANES];

	for (int l = 0; l < LANES; l++) {
		x[l] = st->seed[l];
		h[l] = (uint64_t)l + 1;
	}
	for (size_t i = 0; i < words; i += LANES)
		for (int l = 0; l < LANES; l++) {
			mem[i + l] = next(&x[l]);
			h[l] = mix(h[l], mem[i + l]);
		}
	st->sum = fold(h);
}

static uint64_t checksum(const uint64_t *mem, size_t words)
{
	uint64_t h[LANES];

	for (int l = 0; l < LANES; l++)
		h[l] = (uint64_t)l + 1;
	for (size_t i = 0; i < words; i += LANES)
		for (int l = 0; l < LANES; l++)
			h[l] = mix(h[l], mem[i + l]);
	return fold(h);
}

/* Replays the generator; returns the number of bad words and sets *first to the first bad byte offset. */
static size_t compare(const uint64_t *mem, size_t words, const struct state *st, size_t *first)
{
	uint64_t x[LANES];
	size_t bad = 0;

	memcpy(x, st->seed, sizeof(x));
	for (size_t i = 0; i < words; i += LANES)
		for (int l = 0; l < LANES; l++)
			if (mem[i + l] != next(&x[l]) && bad++ == 0)
				*first = (i + l) * sizeof(uint64_t);
	return bad;
}

static int write_file(const char *dir, const char *name, const char *text)
{
	char tmp[4096], path[4096];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s/.%s.tmp", dir, name);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(tmp, "w");
	if (!f)
		return -1;
	fputs(text, f);
	if (fclose(f) != 0)
		return -1;
	return rename(tmp, path);
}

int main(int argc, char **argv)
{
	struct state st;
	char text[256];
	size_t bytes, words, first = 0, bad;
	uint64_t *mem, sum;
	sigset_t set;
	int sig = 0;

	close_inherited_fds();
	if (argc != 3 || atol(argv[1]) <= 0) {
		fprintf(stderr, "usage: %s MIB DIR\n", argv[0]);
		return 2;
	}
	bytes = (size_t)atol(argv[1]) << 20;
	words = bytes / sizeof(uint64_t);
	mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED) {
		perror("bench-mem: mmap");
		return 1;
	}
	if (getrandom(st.seed, sizeof(st.seed), 0) != sizeof(st.seed)) {
		perror("bench-mem: getrandom");
		return 1;
	}
	for (int l = 0; l < LANES; l++)
		st.seed[l] |= 1; /* xorshift must not start at 0 */

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);

	fill(mem, words, &st);
	snprintf(text, sizeof(text), "%d\n", (int)getpid());
	if (write_file(argv[2], "ready", text) < 0) {
		perror("bench-mem: write ready");
		return 1;
	}

	while (sig != SIGUSR1) {
		sig = sigwaitinfo(&set, NULL);
		if (sig < 0 && errno != EINTR) {
			perror("bench-mem: sigwaitinfo");
			return 1;
		}
	}

	sum = checksum(mem, words);
	bad = compare(mem, words, &st, &first);
	if (sum == st.sum && bad == 0)
		snprintf(text, sizeof(text), "OK %zu MiB checksum %016" PRIx64 "\n", bytes >> 20, sum);
	else
		snprintf(text, sizeof(text),
			 "BAD checksum %016" PRIx64 " expected %016" PRIx64
			 "; %zu bad words, first at offset %#zx\n",
			 sum, st.sum, bad, first);
	if (write_file(argv[2], "result", text) < 0) {
		perror("bench-mem: write result");
		return 1;
	}
	return bad == 0 && sum == st.sum ? 0 : 1;
}
