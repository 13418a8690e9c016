/* /proc/PID parsers for dump (and a few small reads for restore). */
#define LOG_PREFIX "proc: "
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/array.h"
#include "base/cleanup.h"
#include "base/log.h"
#include "base/proc.h"
#include "base/vma-flags.h"

ssize_t proc_read_small(const char *path, char *buf, size_t size)
{
	__cleanup_close int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, size - 1);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return n;
}

int proc_read_value(const char *path, char *buf, size_t size)
{
	__cleanup_close int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, size - 1);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	while (n > 0 && buf[n - 1] == '\n')
		buf[--n] = '\0';
	return 0;
}

const char *proc_stat_comm_end(pid_t pid, pid_t tid, char *buf, size_t size)
{
	char path[64];
	if (tid > 0)
		snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", pid, tid);
	else
		snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	return proc_read_small(path, buf, size) < 0 ? NULL : strrchr(buf, ')');
}

int proc_read(pid_t pid, const char *name, char **bufp, size_t *lenp, struct cr_err *e)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/%s", pid, name);
	__cleanup_close int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return cr_fail_sys(e, "open %s", path);
	size_t cap = 4096, len = 0;
	char *buf = malloc(cap);
	if (!buf)
		return cr_fail_errno(e, ENOMEM, "read %s: out of memory", path);
	for (;;) {
		if (cap - len < 4096) {
			char *n = realloc(buf, cap * 2);
			if (!n) {
				free(buf);
				return cr_fail_errno(e, ENOMEM, "read %s: out of memory", path);
			}
			buf = n;
			cap *= 2;
		}
		ssize_t r = read(fd, buf + len, cap - len - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int err = errno;
			free(buf);
			return cr_fail_errno(e, err, "read %s", path);
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	buf[len] = '\0';
	*bufp = buf;
	if (lenp)
		*lenp = len;
	return 0;
}

/* A /proc/PID file of one record (a single_open seq file: stat, status, limits) read in one read() into buf
 * (size bytes): the kernel makes all of it at once, so a read that leaves room is the whole file (no second
 * read for the end). *out is buf, or a malloc'ed copy (*heap) when it did not fit. */
static int read_one_record(pid_t pid, const char *name, char *buf, size_t size, char **out, char **heap,
			   struct cr_err *e)
{
	char path[64];
	*heap = NULL;
	snprintf(path, sizeof(path), "/proc/%d/%s", pid, name);
	__cleanup_close int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return cr_fail_sys(e, "open %s", path);
	ssize_t n;
	do
		n = read(fd, buf, size - 1);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return cr_fail_sys(e, "read %s", path);
	if ((size_t)n < size - 1) {
		buf[n] = '\0';
		*out = buf;
		return 0;
	}
	if (proc_read(pid, name, heap, NULL, e)) /* (larger: read again whole) */
		return -1;
	*out = *heap;
	return 0;
}

int proc_readlink(pid_t pid, const char *name, char **out, struct cr_err *e)
{
	char path[96], buf[PATH_MAX + 1];
	snprintf(path, sizeof(path), "/proc/%d/%s", pid, name);
	ssize_t n = readlink(path, buf, sizeof(buf) - 1);
	if (n < 0)
		return cr_fail_sys(e, "readlink %s", path);
	buf[n] = '\0';
	*out = strdup(buf);
	if (!*out)
		return cr_fail_errno(e, ENOMEM, "readlink %s: out of memory", path);
	return 0;
}

static int cmp_fd(const void *a, const void *b)
{
	return ((const struct proc_fd *)a)->fd - ((const struct proc_fd *)b)->fd;
}

void proc_fds_free(struct proc_fd *f, size_t n)
{
	for (size_t i = 0; f && i < n; i++)
		free(f[i].link);
	free(f);
}

/* The device of sockfs, where every socket's inode is (0: not known). */
static dev_t sockfs_dev(void)
{
	static dev_t dev;
	struct stat st;
	if (!dev) {
		__cleanup_close int sk = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		dev = sk >= 0 && !fstat(sk, &st) ? st.st_dev : 0;
	}
	return dev;
}

/* fd's link and stat, read relative to the open /proc/PID/fd (dfd). The link of a socket (an inode of sockfs,
 * not an O_PATH open of a socket file, whose link is its path) is "socket:[INO]": made, not read (a third of
 * the reads of /proc in a tree of processes holding many sockets). */
static int read_fd(pid_t pid, int dfd, struct proc_fd *f, struct cr_err *e)
{
	char name[16], buf[PATH_MAX + 1];
	snprintf(name, sizeof(name), "%d", f->fd);
	if (fstatat(dfd, name, &f->st, 0))
		return cr_fail_sys(e, "stat /proc/%d/fd/%d", pid, f->fd);
	ssize_t n;
	if (S_ISSOCK(f->st.st_mode) && f->st.st_dev == sockfs_dev() && sockfs_dev())
		n = snprintf(buf, sizeof(buf), "socket:[%llu]", (unsigned long long)f->st.st_ino);
	else if ((n = readlinkat(dfd, name, buf, sizeof(buf) - 1)) < 0)
		return cr_fail_sys(e, "readlink /proc/%d/fd/%d", pid, f->fd);
	buf[n] = '\0';
	if (!(f->link = strdup(buf)))
		return cr_fail_errno(e, ENOMEM, "out of memory");
	return 0;
}

int proc_read_fds(pid_t pid, struct proc_fd **out, size_t *nout, struct cr_err *e)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/fd", pid);
	*out = NULL, *nout = 0;
	__cleanup_closedir DIR *d = opendir(path);
	if (!d)
		return cr_fail_sys(e, "open %s", path);
	struct proc_fd *f = NULL;
	size_t n = 0, cap = 0;
	for (struct dirent *de; (de = readdir(d));) {
		if (de->d_name[0] == '.')
			continue;
		if (arr_room(&f, &cap, n, sizeof(*f), 16)) {
			proc_fds_free(f, n);
			return cr_fail_errno(e, ENOMEM, "out of memory");
		}
		f[n++] = (struct proc_fd){.fd = atoi(de->d_name)};
	}
	if (n)
		qsort(f, n, sizeof(*f), cmp_fd);
	for (size_t i = 0; i < n; i++)
		if (read_fd(pid, dirfd(d), &f[i], e)) {
			proc_fds_free(f, n);
			return -1;
		}
	if (!f && !(f = calloc(1, sizeof(*f)))) /* (none: still not NULL, which is "not read") */
		return cr_fail_errno(e, ENOMEM, "out of memory");
	*out = f, *nout = n;
	return 0;
}

static int parse_ids(const char *v, uint32_t out[4])
{
	unsigned a, b, c, d;
	if (sscanf(v, "%u %u %u %u", &a, &b, &c, &d) != 4)
		return -1;
	out[0] = a, out[1] = b, out[2] = c, out[3] = d;
	return 0;
}

static int parse_groups(const char *v, struct proc_status *st)
{
	size_t cap = 0;
	const char *p = v;
	for (;;) {
		char *end;
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p || *p == '\n')
			return 0;
		unsigned long g = strtoul(p, &end, 10);
		if (end == p)
			return -1;
		if (arr_room(&st->groups, &cap, st->ngroups, sizeof(*st->groups), 16))
			return -1;
		st->groups[st->ngroups++] = (uint32_t)g;
		p = end;
	}
}

/* "A\tB\tC": the first max numbers into v (none with v NULL), the last into *last; how many there are. */
static int parse_pids(const char *s, pid_t *v, int max, pid_t *last)
{
	int n = 0;
	char *end;
	for (const char *p = s;; p = end) {
		long x = strtol(p, &end, 10);
		if (end == p)
			return n;
		if (v && n < max)
			v[n] = (pid_t)x;
		*last = (pid_t)x;
		n++;
	}
}

static int status_line(struct proc_status *st, const char *key, const char *v)
{
	pid_t last;
	if (!strcmp(key, "State"))
		st->state = v[0];
	else if (!strcmp(key, "Threads"))
		st->threads = atoi(v);
	else if (!strcmp(key, "PPid"))
		st->ppid = atoi(v);
	else if (!strcmp(key, "Uid"))
		return parse_ids(v, st->uid);
	else if (!strcmp(key, "Gid"))
		return parse_ids(v, st->gid);
	else if (!strcmp(key, "Groups"))
		return parse_groups(v, st);
	else if (!strcmp(key, "CapInh"))
		st->cap_inh = strtoull(v, NULL, 16);
	else if (!strcmp(key, "CapPrm"))
		st->cap_prm = strtoull(v, NULL, 16);
	else if (!strcmp(key, "CapEff"))
		st->cap_eff = strtoull(v, NULL, 16);
	else if (!strcmp(key, "CapBnd"))
		st->cap_bnd = strtoull(v, NULL, 16);
	else if (!strcmp(key, "CapAmb"))
		st->cap_amb = strtoull(v, NULL, 16);
	else if (!strcmp(key, "NoNewPrivs"))
		st->no_new_privs = atoi(v);
	else if (!strcmp(key, "Seccomp"))
		st->seccomp = atoi(v);
	else if (!strcmp(key, "Umask"))
		st->umask = (int)strtol(v, NULL, 8);
	else if (!strcmp(key, "SigBlk"))
		st->sigblk = strtoull(v, NULL, 16);
	else if (!strcmp(key, "SigIgn"))
		st->sigign = strtoull(v, NULL, 16);
	else if (!strcmp(key, "SigCgt"))
		st->sigcgt = strtoull(v, NULL, 16);
	else if (!strcmp(key, "VmLck"))
		st->vmlck_kb = strtoull(v, NULL, 10);
	else if (!strcmp(key, "NSpid")) {
		int n = parse_pids(v, st->nspid, PROC_NS_LEVELS, &last);
		st->nspid_n = n <= PROC_NS_LEVELS ? n : 0; /* (more: not kept, read again where needed) */
	} else if (!strcmp(key, "NSpgid"))
		st->nspgid = parse_pids(v, NULL, 0, &last) ? last : 0;
	else if (!strcmp(key, "NSsid"))
		st->nssid = parse_pids(v, NULL, 0, &last) ? last : 0;
	return 0;
}

int proc_parse_status(pid_t pid, struct proc_status *st, struct cr_err *e)
{
	return proc_parse_task_status(pid, 0, st, e);
}

int proc_parse_task_status(pid_t pid, pid_t tid, struct proc_status *st, struct cr_err *e)
{
	__cleanup_free char *heap = NULL;
	char name[48] = "status", small[4096], *buf;
	memset(st, 0, sizeof(*st));
	st->umask = -1;
	if (tid)
		snprintf(name, sizeof(name), "task/%d/status", tid);
	if (read_one_record(pid, name, small, sizeof(small), &buf, &heap, e))
		return -1;
	char *save = NULL;
	for (char *l = strtok_r(buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *c = strchr(l, ':');
		if (!c)
			continue;
		*c++ = '\0';
		while (*c == ' ' || *c == '\t')
			c++;
		if (status_line(st, l, c)) {
			proc_status_free(st);
			return cr_fail_errno(e, EINVAL, "/proc/%d/%s: cannot parse %s", pid, name, l);
		}
	}
	if (!st->state) {
		proc_status_free(st);
		return cr_fail_errno(e, EINVAL, "/proc/%d/%s: no State", pid, name);
	}
	return 0;
}

void proc_status_free(struct proc_status *st)
{
	free(st->groups);
	st->groups = NULL;
	st->ngroups = 0;
}

int proc_parse_stat(pid_t pid, struct proc_stat *st, struct cr_err *e)
{
	__cleanup_free char *heap = NULL;
	char small[1024], *buf;
	memset(st, 0, sizeof(*st));
	if (read_one_record(pid, "stat", small, sizeof(small), &buf, &heap, e))
		return -1;
	char *p = strrchr(buf, ')'), *c = strchr(buf, '(');
	if (!p || !c || c > p || p[1] != ' ' || !p[2])
		return cr_fail_errno(e, EINVAL, "/proc/%d/stat: malformed", pid);
	size_t clen = (size_t)(p - c - 1) < sizeof(st->comm) - 1 ? (size_t)(p - c - 1) : sizeof(st->comm) - 1;
	memcpy(st->comm, c + 1, clen);
	st->comm[clen] = '\0';
	p += 2;
	st->state = *p++;
	int n = 4;
	while (n < PROC_STAT_FIELDS && *p) {
		char *end;
		while (*p == ' ')
			p++;
		if (!*p || *p == '\n')
			break;
		st->f[n++] = strtoll(p, &end, 10);
		if (end == p)
			return cr_fail_errno(e, EINVAL, "/proc/%d/stat: malformed field %d", pid, n - 1);
		p = end;
	}
	if (n < 52)
		return cr_fail_errno(e, EINVAL, "/proc/%d/stat: only %d fields", pid, n - 1);
	return 0;
}

static int parse_limit(const char *s, uint64_t *v)
{
	while (*s == ' ')
		s++;
	if (!strncmp(s, "unlimited", 9)) {
		*v = ~0ULL;
		return 0;
	}
	char *end;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return (end == s || errno) ? -1 : 0;
}

int proc_parse_limits(pid_t pid, struct proc_rlimit lim[PROC_NR_RLIMITS], struct cr_err *e)
{
	__cleanup_free char *heap = NULL;
	char small[2048], *buf;
	if (read_one_record(pid, "limits", small, sizeof(small), &buf, &heap, e))
		return -1;
	/* Fixed layout: "%-25s %-20s %-20s %-10s", one line per resource in RLIMIT_* order. */
	char *save = NULL, *l;
	int i = 0;
	strtok_r(buf, "\n", &save); /* header */
	for (l = strtok_r(NULL, "\n", &save); l && i < PROC_NR_RLIMITS;
	     l = strtok_r(NULL, "\n", &save), i++) {
		if (strlen(l) < 47 || parse_limit(l + 26, &lim[i].cur) || parse_limit(l + 47, &lim[i].max))
			return cr_fail_errno(e, EINVAL, "/proc/%d/limits: cannot parse line %d: %s", pid,
					     i + 1, l);
	}
	if (i != PROC_NR_RLIMITS)
		return cr_fail_errno(e, EINVAL, "/proc/%d/limits: %d resources, expected %d", pid, i,
				     PROC_NR_RLIMITS);
	return 0;
}

static int timer_line(struct proc_timer *t, const char *l)
{
	char how[16], who[8];
	int n;
	if (sscanf(l, "signal: %d/%" SCNx64, &t->signo, &t->sival) >= 1)
		return 0;
	if (sscanf(l, "notify: %15[a-z]/%7[a-z].%d", how, who, &n) == 3) {
		if (!strcmp(how, "signal"))
			t->notify = 0; /* SIGEV_SIGNAL */
		else if (!strcmp(how, "none"))
			t->notify = 1; /* SIGEV_NONE */
		else if (!strcmp(how, "thread"))
			t->notify = 2; /* SIGEV_THREAD */
		else
			return -1;
		if (!strcmp(who, "tid"))
			t->notify |= 4; /* SIGEV_THREAD_ID */
		t->notify_tid = n;
		return 0;
	}
	if (sscanf(l, "ClockID: %d", &t->clock) == 1)
		return 0;
	return -1;
}

int proc_parse_timers(pid_t pid, struct proc_timer **tp, size_t *np, struct cr_err *e)
{
	__cleanup_free char *buf = NULL;
	struct proc_timer *t = NULL;
	size_t n = 0, cap = 0;
	*tp = NULL;
	*np = 0;
	if (proc_read(pid, "timers", &buf, NULL, e))
		return -1;
	char *save = NULL;
	for (char *l = strtok_r(buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		int id;
		if (sscanf(l, "ID: %d", &id) == 1) {
			if (arr_room(&t, &cap, n, sizeof(*t), 8)) {
				free(t);
				return cr_fail_errno(e, ENOMEM, "/proc/%d/timers: out of memory", pid);
			}
			memset(&t[n], 0, sizeof(t[n]));
			t[n++].id = id;
			continue;
		}
		if (!n || timer_line(&t[n - 1], l)) {
			free(t);
			return cr_fail_errno(e, EINVAL, "/proc/%d/timers: cannot parse: %s", pid, l);
		}
	}
	*tp = t;
	*np = n;
	return 0;
}

static const struct {
	char name[3];
	uint32_t madv, vmf;
} vmflag_tab[] = {
    {"dc", VMA_F_DONTFORK, 0},	  {"dd", VMA_F_DONTDUMP, 0},  {"hg", VMA_F_HUGEPAGE, 0},
    {"nh", VMA_F_NOHUGEPAGE, 0},  {"mg", VMA_F_MERGEABLE, 0}, {"wf", VMA_F_WIPEONFORK, 0},
    {"lo", VMA_F_LOCKED, 0},	  {"sr", VMA_F_SEQ_READ, 0},  {"rr", VMA_F_RAND_READ, 0},
    {"lf", VMA_F_LOCKONFAULT, 0}, {"sl", VMA_F_SEALED, 0},    {"gd", 0, PROC_VMA_GD},
    {"mw", 0, PROC_VMA_MW},	  {"nr", 0, PROC_VMA_NR},     {"uw", 0, PROC_VMA_UW},
    {"dp", 0, PROC_VMA_DP},	  {"ht", 0, PROC_VMA_HT},
};

static void parse_vmflags(struct proc_vma *v, const char *s)
{
	v->has_vmflags = true;
	while (*s) {
		while (*s == ' ')
			s++;
		if (!s[0] || !s[1])
			break;
		for (size_t i = 0; i < ARRAY_SIZE(vmflag_tab); i++)
			if (s[0] == vmflag_tab[i].name[0] && s[1] == vmflag_tab[i].name[1] &&
			    (s[2] == ' ' || !s[2])) {
				v->madv |= vmflag_tab[i].madv;
				v->vmflags |= vmflag_tab[i].vmf;
			}
		while (*s && *s != ' ')
			s++;
	}
}

/* A maps header line; returns 1 if it is one, 0 if not. */
static int parse_maps_line(char *l, struct proc_vma *v)
{
	unsigned long long s, en, off, ino;
	unsigned maj, min;
	int pos = 0;
	if (sscanf(l, "%llx-%llx %4s %llx %x:%x %llu%n", &s, &en, v->perms, &off, &maj, &min, &ino, &pos) !=
	    7)
		return 0;
	v->start = s, v->end = en, v->pgoff = off, v->dev_major = maj, v->dev_minor = min, v->ino = ino;
	char *name = l + pos;
	while (*name == ' ')
		name++;
	v->name = strdup(name);
	return 1;
}

int proc_parse_smaps(pid_t pid, struct proc_vma **vp, size_t *np, struct cr_err *e)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/smaps", pid);
	__cleanup_fclose FILE *f = fopen(path, "re");
	if (!f)
		return cr_fail_sys(e, "open %s", path);
	struct proc_vma *v = NULL;
	size_t n = 0, cap = 0, lsz = 0;
	__cleanup_free char *line = NULL;
	ssize_t len;
	while ((len = getline(&line, &lsz, f)) > 0) {
		if (line[len - 1] == '\n')
			line[len - 1] = '\0';
		if (!strncmp(line, "VmFlags:", 8)) {
			if (n)
				parse_vmflags(&v[n - 1], line + 8);
			continue;
		}
		if (!strncmp(line, "Shared_", 7)) {
			if (n && !strncmp(line + 7, "Clean:", 6))
				v[n - 1].shared_clean_kb = strtoull(line + 13, NULL, 10);
			else if (n && !strncmp(line + 7, "Dirty:", 6))
				v[n - 1].shared_dirty_kb = strtoull(line + 13, NULL, 10);
			continue;
		}
		if (arr_room(&v, &cap, n, sizeof(*v), 64))
			goto nomem;
		memset(&v[n], 0, sizeof(v[n]));
		if (!parse_maps_line(line, &v[n]))
			continue;
		if (!v[n].name) {
			n++;
			goto nomem;
		}
		n++;
	}
	if (ferror(f)) {
		proc_vmas_free(v, n);
		return cr_fail_sys(e, "read %s", path);
	}
	*vp = v;
	*np = n;
	return 0;
nomem:
	proc_vmas_free(v, n);
	return cr_fail_errno(e, ENOMEM, "%s: out of memory", path);
}

void proc_vmas_free(struct proc_vma *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].name);
	free(v);
}

int proc_find_vdso(const char *maps, uint64_t *start, uint64_t *end)
{
	for (const char *l = maps; l && *l;) {
		const char *nl = strchr(l, '\n');
		size_t len = nl ? (size_t)(nl - l) : strlen(l);
		char line[PATH_MAX + 128];
		struct proc_vma v = {0};
		if (len < sizeof(line) && memmem(l, len, "[vdso]", 6)) {
			memcpy(line, l, len);
			line[len] = '\0';
			if (parse_maps_line(line, &v)) {
				int found = v.name && !strcmp(v.name, "[vdso]");
				free(v.name);
				if (found) {
					*start = v.start, *end = v.end;
					return 0;
				}
			}
		}
		l += len + (nl != NULL);
	}
	return 1;
}

/* The number after "key:" and blanks at l (base), in *v: 0, or -1 when l is no such line. */
static int fdinfo_num(const char *l, const char *key, int base, unsigned long long *v)
{
	size_t kl = strlen(key);
	char *end;
	if (strncmp(l, key, kl))
		return -1;
	l += kl;
	while (*l == ' ' || *l == '\t')
		l++;
	*v = strtoull(l, &end, base);
	return end == l ? -1 : 0;
}

/* fdinfo text buf (NUL-terminated) into fi. */
static int parse_fdinfo(char *buf, pid_t pid, int fd, struct proc_fdinfo *fi, struct cr_err *e)
{
	int got = 0;
	unsigned long long v;
	for (char *l = buf, *nl; l && *l; l = nl ? nl + 1 : NULL) {
		nl = strchr(l, '\n');
		if (!fdinfo_num(l, "pos:", 10, &v))
			fi->pos = v, got |= 1;
		else if (!fdinfo_num(l, "flags:", 8, &v))
			fi->flags = (uint32_t)v, got |= 2;
		else if (!strncmp(l, "lock:", 5))
			fi->locks = true;
		else if (!fdinfo_num(l, "mnt_id:", 10, &v))
			fi->mnt_id = (int)v;
	}
	if (got != 3)
		return cr_fail_errno(e, EINVAL, "/proc/%d/fdinfo/%d: no pos/flags", pid, fd);
	return 0;
}

int proc_parse_fdinfo_at(int dfd, pid_t pid, int fd, struct proc_fdinfo *fi, struct cr_err *e)
{
	char name[48], small[1024];
	__cleanup_free char *buf = NULL;
	memset(fi, 0, sizeof(*fi));
	/* one read: a single_open seq file, made whole at once; one that fills the buffer (an epoll set with
	 * many targets, locks) is read again whole */
	if (dfd < 0)
		snprintf(name, sizeof(name), "/proc/%d/fdinfo/%d", pid, fd);
	else
		snprintf(name, sizeof(name), "%d", fd);
	__cleanup_close int f = openat(dfd < 0 ? AT_FDCWD : dfd, name, O_RDONLY | O_CLOEXEC);
	if (f < 0)
		return cr_fail_sys(e, "open /proc/%d/fdinfo/%d", pid, fd);
	ssize_t n;
	do
		n = read(f, small, sizeof(small) - 1);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return cr_fail_sys(e, "read /proc/%d/fdinfo/%d", pid, fd);
	if ((size_t)n < sizeof(small) - 1) {
		small[n] = '\0';
		return parse_fdinfo(small, pid, fd, fi, e);
	}
	snprintf(name, sizeof(name), "fdinfo/%d", fd);
	return proc_read(pid, name, &buf, NULL, e) ? -1 : parse_fdinfo(buf, pid, fd, fi, e);
}

int proc_parse_fdinfo(pid_t pid, int fd, struct proc_fdinfo *fi, struct cr_err *e)
{
	return proc_parse_fdinfo_at(-1, pid, fd, fi, e);
}

bool proc_in_other_userns(pid_t pid)
{
	char path[64];
	struct stat a, b;
	snprintf(path, sizeof(path), "/proc/%d/ns/user", pid);
	return !stat(path, &a) && !stat("/proc/self/ns/user", &b) && a.st_ino != b.st_ino;
}

int proc_mntns_enter(pid_t pid, int *self, int *cwd, struct cr_err *e)
{
	char p[64];
	snprintf(p, sizeof(p), "/proc/%d/ns/mnt", (int)pid);
	__cleanup_close int ns = open(p, O_RDONLY | O_CLOEXEC);
	*self = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
	*cwd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (ns < 0 || *self < 0 || *cwd < 0 || setns(ns, CLONE_NEWNS))
		return cr_fail_sys(e, "enter the mount namespace of task %d", (int)pid);
	return 0;
}

int proc_mntns_leave(int self, int cwd, struct cr_err *e)
{
	if (self < 0 && cwd < 0)
		return 0;
	int r = self < 0 || cwd < 0 || setns(self, CLONE_NEWNS) || fchdir(cwd);
	if (r)
		cr_fail_sys(e, "return to crshim's mount namespace");
	if (self >= 0)
		close(self);
	if (cwd >= 0)
		close(cwd);
	return r ? -1 : 0;
}

int cg_rmdir_wait(const char *path)
{
	for (int t = 0; t < 3000; t++) {
		if (!rmdir(path) || errno == ENOENT)
			return 0;
		if (errno != EBUSY)
			return -1;
		usleep(10000);
	}
	char f[PATH_MAX + 16], tasks[256] = "";
	snprintf(f, sizeof(f), "%s/tasks", path);
	if (proc_read_small(f, tasks, sizeof(tasks)) < 0)
		tasks[0] = '\0';
	for (char *c = tasks; *c; c++)
		*c = *c == '\n' ? ' ' : *c;
	pr_warn("cgroup %s: still busy after 30 s (tasks: %s), left behind\n", path,
		tasks[0] ? tasks : "none");
	errno = EBUSY;
	return -1;
}
