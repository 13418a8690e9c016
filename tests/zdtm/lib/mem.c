#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "zdtmtst.h"

static sigjmp_buf probe_env;

static void probe_handler(int sig)
{
	siglongjmp(probe_env, sig);
}

int mem_probe(void *addr, int write)
{
	struct sigaction sa, old_segv, old_bus;
	volatile int ret = 0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = probe_handler;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGSEGV, &sa, &old_segv);
	sigaction(SIGBUS, &sa, &old_bus);
	if (sigsetjmp(probe_env, 1) == 0) {
		volatile char *p = addr;
		char c = *p;
		if (write)
			*p = c;
	} else {
		ret = -1;
	}
	sigaction(SIGSEGV, &old_segv, NULL);
	sigaction(SIGBUS, &old_bus, NULL);
	return ret;
}

/* Find the smaps entry containing addr; copy its maps line (without dev:inode) and VmFlags. */
int vma_info(const void *addr, char *line, size_t llen, char *flags, size_t flen)
{
	char *buf, *p, *next;
	unsigned long a = (unsigned long)addr;
	int found = 0;

	if (read_file("/proc/self/smaps", &buf) < 0)
		return -1;
	for (p = buf; p && *p; p = next) {
		unsigned long s, e;
		next = strchr(p, '\n');
		if (next)
			*next++ = 0;
		if (sscanf(p, "%lx-%lx ", &s, &e) == 2 && strchr(p, ' ') && p[strcspn(p, " ")] == ' ' &&
		    strchr(p, '-') < strchr(p, ' ')) {
			if (found)
				break;
			if (a >= s && a < e) {
				found = 1;
				if (line) {
					char perms[8] = "", off[32] = "";
					sscanf(p, "%*s %7s %31s", perms, off);
					snprintf(line, llen, "%lx-%lx %s %s", s, e, perms, off);
				}
			}
		} else if (found && strncmp(p, "VmFlags:", 8) == 0 && flags) {
			snprintf(flags, flen, "%s", p + 9);
		}
	}
	free(buf);
	return found ? 0 : -1;
}

long vma_smaps_kb(pid_t pid, const void *addr, const char *key)
{
	char path[64], *buf, *p;
	unsigned long a = (unsigned long)addr, s, e;
	size_t klen = strlen(key);
	long kb = -1;
	int in = 0;

	snprintf(path, sizeof(path), pid ? "/proc/%d/smaps" : "/proc/self/smaps", pid);
	if (read_file(path, &buf) < 0)
		return -1;
	for (p = buf; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		if (sscanf(p, "%lx-%lx ", &s, &e) == 2)
			in = a >= s && a < e;
		else if (in && !strncmp(p, key, klen) && p[klen] == ':' &&
			 sscanf(p + klen + 1, "%ld", &kb) == 1)
			break;
	}
	free(buf);
	return kb;
}

void vma_shared_ok(pid_t pid, const void *addr, long min_kb, const char *who)
{
	long kb = vma_smaps_kb(pid, addr, "Shared_Dirty");
	test_msg("%s %d: Shared_Dirty %ld kB, Rss %ld kB\n", who, pid, kb, vma_smaps_kb(pid, addr, "Rss"));
	if (kb < min_kb)
		fail("%s %d: only %ld kB of the VMA are shared (Shared_Dirty), at least %ld expected", who,
		     pid, kb, min_kb);
}

int vma_has_flag(const void *addr, const char *flag)
{
	char flags[256], *t, *save;

	if (vma_info(addr, NULL, 0, flags, sizeof(flags)))
		return -1;
	for (t = strtok_r(flags, " ", &save); t; t = strtok_r(NULL, " ", &save))
		if (strcmp(t, flag) == 0)
			return 1;
	return 0;
}

void vma_flag_is(const void *addr, const char *flag, int want, const char *what)
{
	if (vma_has_flag(addr, flag) != want)
		fail("%s", what);
}
