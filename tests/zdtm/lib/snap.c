/* zdtm_snap PID: what the outside can see of a test task, printed so that two snapshots of an unchanged task
 * are byte for byte the same (the runner compares the one taken before the dump with those taken after the
 * restore). Sections:
 *   ## maps    /proc/PID/maps as "start-end perms offset dev inode path", adjacent VMAs the kernel may or may
 * not merge (same perms, same file or both anonymous, contiguous offsets) merged first, as a restore may
 *              create them merged; dev:inode of shared anonymous memory, of deleted files and of sockets
 * (made again by the restore) replaced by "-"
 *   ## fds     "fd N -> TARGET pos P flags F" (pipe/socket/namespace inode numbers and the inode of a deleted
 * "/#INO" file left out; a test of namespace files checks them itself)
 *   ## status  the lines of /proc/PID/status that a restore must keep (STATUS_KEYS)
 *   ## tree    "pid ppid pgid sid state threads TIDS" per process under PID, parents before children, state
 * only when it is Z or T (running and sleeping may change); the root without its ppid, pgid and sid
 * SNAP_NSPID=1 (mode cuns, whose tree gets fresh PIDs in ours): the ids of the tree are those of the root's
 * PID namespace (NSpid), which a restore keeps.
 * SNAP_IGNORE (env, '|'-separated, from the test's .desc "snap-ignore:"): status keys to leave out, and
 * "maps", "threads", "tree", "fdpos", "ttyname" for state that the test changes all the time ("fdflags": a
 * known change that the test checks itself). Written in C
 * because the runner takes at least three snapshots per test: in shell they cost a few hundred fork()s each
 * (several thousand for a tree of 500 processes). */
#include <ctype.h>
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

static const char *const status_keys[] = {"Name",	"Umask",   "State",  "Uid",    "Gid",	 "Groups",
					  "NoNewPrivs", "Seccomp", "CapInh", "CapPrm", "CapEff", "CapBnd",
					  "CapAmb",	"SigBlk",  "SigIgn", "SigCgt", "SigPnd", "ShdPnd"};

static char ignore[1024]; /* "|a|b|c|" */
static int nslevel = -1;  /* SNAP_NSPID: the index of the root's PID namespace in NSpid, else -1 */

/* The entries of pid's status line key ("NSpid:", "NSpgid:", ...; at most n), or 0. */
static int ns_ids(long pid, const char *key, long *v, int n)
{
	char fn[64], line[256];
	int k = 0;
	size_t kl = strlen(key);
	snprintf(fn, sizeof(fn), "/proc/%ld/status", pid);
	FILE *f = fopen(fn, "r");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, kl)) {
			char *p = line + kl, *end;
			for (long x; k < n && (x = strtol(p, &end, 10), end != p); p = end)
				v[k++] = x;
			break;
		}
	if (f)
		fclose(f);
	return k;
}

static int nspids(long pid, long *v, int n)
{
	return ns_ids(pid, "NSpid:", v, n);
}

/* pid as the test's tree sees it (SNAP_NSPID), or as is (0 and ids outside the tree stay). */
static long vid(long pid)
{
	long v[8];
	if (nslevel < 0 || pid <= 0 || nspids(pid, v, 8) <= nslevel)
		return pid;
	return v[nslevel];
}

/* pid's group or session (key "NSpgid:", "NSsid:") as the tree sees it, also when its leader is gone
 * (SNAP_NSPID), else id as is. */
static long vid_of(long pid, const char *key, long id)
{
	long v[8];
	if (nslevel < 0 || ns_ids(pid, key, v, 8) <= nslevel)
		return vid(id);
	return v[nslevel];
}

static bool ignored(const char *what)
{
	char key[80];
	snprintf(key, sizeof(key), "|%s|", what);
	return strstr(ignore, key) != NULL;
}

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;
	return (x > y) - (x < y);
}

struct nums {
	long *v;
	size_t n, cap;
	bool oom;
};

static void nums_add(struct nums *a, long x)
{
	if (a->oom)
		return;
	if (a->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 16;
		long *nv = realloc(a->v, cap * sizeof(*nv));
		if (!nv) {
			a->oom = true;
			return;
		}
		a->v = nv, a->cap = cap;
	}
	a->v[a->n++] = x;
}

static void nums_sort(struct nums *a)
{
	if (a->n)
		qsort(a->v, a->n, sizeof(*a->v), cmp_long);
}

/* Processes sorted as the tree sees them (SNAP_NSPID: fresh PIDs in ours come in another order). */
static void nums_sort_vid(struct nums *a)
{
	long(*kv)[2] = nslevel < 0 || !a->n ? NULL : calloc(a->n, sizeof(*kv));
	if (!kv) {
		nums_sort(a);
		return;
	}
	for (size_t i = 0; i < a->n; i++)
		kv[i][0] = vid(a->v[i]), kv[i][1] = a->v[i];
	qsort(kv, a->n, sizeof(*kv), cmp_long); /* on the first of each pair */
	for (size_t i = 0; i < a->n; i++)
		a->v[i] = kv[i][1];
	free(kv);
}

/* The numeric names of a directory, sorted (none if it cannot be read). */
static void numbers_in(const char *dir, struct nums *a)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d)))
		if (isdigit((unsigned char)de->d_name[0]))
			nums_add(a, strtol(de->d_name, NULL, 10));
	closedir(d);
	nums_sort(a);
}

/* ------------------------------------------------------------------ maps */
struct vma {
	unsigned long start, end, off;
	char perms[8], dev[16], ino[24], path[4096];
	bool special;
};

static void print_vma(const struct vma *v)
{
	printf("%lx-%lx %s %08lx %s %s %s\n", v->start, v->end, v->perms, v->off, v->dev, v->ino, v->path);
}

static bool unstable_id(const char *path)
{
	size_t l = strlen(path);
	return !strncmp(path, "/dev/zero", 9) || !strncmp(path, "/SYSV", 5) || !strncmp(path, "/memfd:", 7) ||
	       !strncmp(path, "/dev/shm/", 9) || !strncmp(path, "socket:[", 8) ||
	       (l >= 10 && !strcmp(path + l - 10, " (deleted)"));
}

static void snap_maps(int pid)
{
	char fn[64], line[4096 + 256];
	snprintf(fn, sizeof(fn), "/proc/%d/maps", pid);
	FILE *f = fopen(fn, "r");
	if (!f) {
		printf("maps: cannot open %s\n", fn);
		return;
	}
	struct vma cur, v;
	bool have = false;
	while (fgets(line, sizeof(line), f)) {
		int pos = 0;
		memset(&v, 0, sizeof(v));
		if (sscanf(line, "%lx-%lx %7s %lx %15s %23s %n", &v.start, &v.end, v.perms, &v.off, v.dev,
			   v.ino, &pos) < 6)
			continue;
		/* the path: its words joined by one space (as the maps were compared before) */
		char *p = line + pos, *o = v.path;
		for (char *w = strtok(p, " \t\n"); w; w = strtok(NULL, " \t\n")) {
			size_t wl = strlen(w), used = (size_t)(o - v.path);
			if (used + wl + 2 > sizeof(v.path))
				break;
			if (o != v.path)
				*o++ = ' ';
			memcpy(o, w, wl + 1);
			o += wl;
		}
		if (!strncmp(v.path, "socket:[", 8)) /* a packet socket's rings: the socket is new */
			strcpy(v.path, "socket:[-]");
		if (unstable_id(v.path)) {
			strcpy(v.dev, "-");
			strcpy(v.ino, "-");
		}
		v.special = v.path[0] == '[' && strcmp(v.path, "[heap]");
		if (have && v.start == cur.end && !strcmp(v.perms, cur.perms) && !strcmp(v.dev, cur.dev) &&
		    !strcmp(v.ino, cur.ino) && !strcmp(v.path, cur.path) && !v.special &&
		    (!strcmp(v.ino, "0") || cur.off + (cur.end - cur.start) == v.off)) {
			cur.end = v.end;
			continue;
		}
		if (have)
			print_vma(&cur);
		cur = v;
		have = true;
	}
	if (have)
		print_vma(&cur);
	fclose(f);
}

/* ------------------------------------------------------------------ fds */
/* "key:\tvalue" of a /proc file into out ("" if there is none). */
static void proc_field(const char *fn, const char *key, char *out, size_t len)
{
	char line[512];
	size_t kl = strlen(key);
	out[0] = '\0';
	FILE *f = fopen(fn, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, kl) && line[kl] == ':') {
			char *v = line + kl + 1;
			v += strspn(v, " \t");
			v[strcspn(v, "\n")] = '\0';
			snprintf(out, len, "%s", v);
			break;
		}
	fclose(f);
}

static void stable_target(char *t, size_t len)
{
	unsigned long n;
	char kind[16], *h;
	int end = 0;
	if (sscanf(t, "%15[a-z]:[%lu]%n", kind, &n, &end) == 2 && !t[end] &&
	    (!strcmp(kind, "pipe") || !strcmp(kind, "socket") || !strcmp(kind, "net") ||
	     !strcmp(kind, "uts") || !strcmp(kind, "ipc") || !strcmp(kind, "mnt") || !strcmp(kind, "pid") ||
	     !strcmp(kind, "cgroup") || !strcmp(kind, "time") ||
	     !strcmp(kind, "user"))) { /* namespaces: new ones in modes ns, uns */
		snprintf(t, len, "%s:[*]", kind);
		return;
	}
	/* a deleted file that crshim saved as "/#INO": its inode number is new after a restore */
	size_t l = strlen(t);
	if (l > 10 && !strcmp(t + l - 10, " (deleted)") && (h = strrchr(t, '/')) && h[1] == '#') {
		char *d = h + 2;
		while (isdigit((unsigned char)*d))
			d++;
		if (d > h + 2 && d == t + l - 10) {
			snprintf(h, len - (size_t)(h - t), "/#INO (deleted)");
			return;
		}
	}
	if (ignored("ttyname") && !strncmp(t, "/dev/pts/", 9) && t[9] &&
	    strspn(t + 9, "0123456789") == strlen(t + 9))
		snprintf(t, len, "/dev/pts/*");
}

static void snap_fds(int pid)
{
	char dir[64];
	struct nums fds = {0};
	snprintf(dir, sizeof(dir), "/proc/%d/fd", pid);
	numbers_in(dir, &fds);
	for (size_t i = 0; i < fds.n; i++) {
		char fn[96], target[4096] = "", pos[64], flags[64];
		snprintf(fn, sizeof(fn), "/proc/%d/fd/%ld", pid, fds.v[i]);
		ssize_t l = readlink(fn, target, sizeof(target) - 1);
		target[l > 0 ? l : 0] = '\0';
		stable_target(target, sizeof(target));
		snprintf(fn, sizeof(fn), "/proc/%d/fdinfo/%ld", pid, fds.v[i]);
		proc_field(fn, "pos", pos, sizeof(pos));
		proc_field(fn, "flags", flags, sizeof(flags));
		printf("fd %ld -> %s pos %s flags %s\n", fds.v[i], target, ignored("fdpos") ? "*" : pos,
		       ignored("fdflags") ? "*" : flags);
	}
	free(fds.v);
}

/* ------------------------------------------------------------------ status */
static void snap_status(int pid)
{
	char fn[64], line[1024];
	snprintf(fn, sizeof(fn), "/proc/%d/status", pid);
	FILE *f = fopen(fn, "r");
	if (!f) {
		printf("status: cannot open %s\n", fn);
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		size_t kl = strcspn(line, ":");
		if (!line[kl])
			continue;
		line[kl] = '\0';
		bool keep = false;
		for (size_t k = 0; k < sizeof(status_keys) / sizeof(status_keys[0]); k++)
			keep |= !strcmp(line, status_keys[k]);
		if (keep && !ignored(line)) {
			line[kl] = ':';
			fputs(line, stdout);
		}
	}
	fclose(f);
}

/* ------------------------------------------------------------------ tree */
static void snap_tree(int pid, bool root, bool only_root)
{
	char fn[96], buf[1024];
	snprintf(fn, sizeof(fn), "/proc/%d/stat", pid);
	FILE *f = fopen(fn, "r");
	if (!f)
		return; /* gone */
	size_t got = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[got] = '\0';
	char *r = strrchr(buf, ')'), st;
	int ppid, pgid, sid;
	if (!r || sscanf(r + 1, " %c %d %d %d", &st, &ppid, &pgid, &sid) != 4)
		return;
	if (st != 'Z' && st != 'T')
		st = '-';
	if (root)
		printf("%ld * * * %c threads ", vid(pid), st);
	else
		printf("%ld %ld %ld %ld %c threads ", vid(pid), vid(ppid), vid_of(pid, "NSpgid:", pgid),
		       vid_of(pid, "NSsid:", sid), st);
	struct nums tids = {0}, kids = {0};
	snprintf(fn, sizeof(fn), "/proc/%d/task", pid);
	numbers_in(fn, &tids);
	if (ignored("threads"))
		printf("*");
	else
		for (size_t i = 0; i < tids.n; i++)
			printf("%ld ", vid(tids.v[i]));
	printf("\n");
	/* children of every thread, sorted */
	for (size_t i = 0; !only_root && i < tids.n; i++) {
		snprintf(fn, sizeof(fn), "/proc/%d/task/%ld/children", pid, tids.v[i]);
		FILE *c = fopen(fn, "r");
		long k;
		while (c && fscanf(c, "%ld", &k) == 1)
			nums_add(&kids, k);
		if (c)
			fclose(c);
	}
	free(tids.v);
	nums_sort_vid(&kids);
	for (size_t i = 0; i < kids.n; i++)
		snap_tree((int)kids.v[i], false, false);
	free(kids.v);
}

int main(int argc, char **argv)
{
	if (argc != 2 || atoi(argv[1]) <= 0) {
		fprintf(stderr, "usage: zdtm_snap PID   (SNAP_IGNORE=a|b|... in the environment)\n");
		return 2;
	}
	int pid = atoi(argv[1]);
	const char *ig = getenv("SNAP_IGNORE");
	snprintf(ignore, sizeof(ignore), "|%s|", ig ? ig : "");
	long v[8];
	if (getenv("SNAP_NSPID"))
		nslevel = nspids(pid, v, 8) - 1;
	printf("## maps\n");
	if (ignored("maps"))
		printf("*\n"); /* thread stacks come and go */
	else
		snap_maps(pid);
	printf("## fds\n");
	snap_fds(pid);
	printf("## status\n");
	snap_status(pid);
	printf("## tree\n");
	snap_tree(pid, true, ignored("tree"));
	if (ignored("tree"))
		printf("*\n"); /* processes born and dying all the time: only the root's own line */
	return fflush(stdout) ? 1 : 0;
}
