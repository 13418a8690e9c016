/* Unit tests of fault injection (engine/fault.c) and its environment parsing (shim/cli.c): names and numbers,
 * unknown values, the CRIU_FAULT mapping, the table's invariants, `check --faults`. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include "../../shim/cli.c"
#include "image/image.h"
#include "tap.h"

static struct shim_cmd c;
static char msg[512];

static int env(const char *crshim, const char *criu)
{
	memset(&c, 0, sizeof(c));
	eng_opts_init(&c.opts);
	msg[0] = '\0';
	return shim_fault_env(&c, crshim, criu, msg, sizeof(msg));
}

static void t_parse(void)
{
	struct cr_err e = {0};
	int id = -1;
	ok(fault_parse("dump-early", &id, &e) == 0 && id == FI_DUMP_EARLY, "name dump-early = 1");
	ok(fault_parse("restore-root-only", &id, &e) == 0 && id == FI_RESTORE_ROOT_ONLY,
	   "name restore-root-only = 2");
	ok(fault_parse("1", &id, &e) == 0 && id == 1, "number 1");
	ok(fault_parse("2", &id, &e) == 0 && id == 2, "number 2");
	ok(fault_parse("55", &id, &e) == 0 && id == FI_NO_PREFILL, "number 55 = no-prefill");
	ok(fault_parse("no-pagemap-scan", &id, &e) == 0 && id == FI_NO_PAGEMAP_SCAN, "degrade name");
	id = -1;
	ok(fault_parse("nonsense", &id, &e) < 0 && id == -1 && e.errnum == EINVAL, "unknown name refused");
	ok(strstr(e.msg, "unknown fault point 'nonsense'") != NULL, "message names the value: %s", e.msg);
	ok(fault_parse("0", &id, &e) < 0, "0 refused");
	ok(fault_parse("40", &id, &e) < 0, "unused number refused");
	ok(fault_parse("-1", &id, &e) < 0, "negative refused");
	ok(fault_parse("1x", &id, &e) < 0, "trailing junk refused");
	ok(fault_parse(" 1", &id, &e) < 0, "leading space refused");
	ok(fault_parse("", &id, &e) < 0, "empty refused");
	ok(fault_parse("DUMP-EARLY", &id, &e) < 0, "names are case-sensitive");
	ok(fault_parse("99999999999999999999", &id, &e) < 0, "overflow refused");
}

static void t_criu(void)
{
	struct cr_err e = {0};
	int id = -1;
	ok(fault_parse_criu("1", &id, &e) == 0 && id == FI_DUMP_EARLY, "CRIU 1 = dump-early");
	ok(fault_parse_criu("2", &id, &e) == 0 && id == FI_RESTORE_ROOT_ONLY, "CRIU 2 = restore-root-only");
	ok(fault_parse_criu("3", &id, &e) == 0 && id == FI_DUMP_MM_MID,
	   "CRIU 3 (FI_DUMP_PAGES) = dump-mm-mid");
	ok(fault_parse_criu("5", &id, &e) == 0 && id == FI_DUMP_INFECTED,
	   "CRIU 5 (parasite connect) = dump-infected");
	ok(fault_parse_criu("6", &id, &e) == 0 && id == FI_RESTORE_AFTER_DETACH, "CRIU 6 (post-restore)");
	ok(fault_parse_criu("135", &id, &e) == 0 && id == FI_NO_PAGEMAP_SCAN, "CRIU 135 = no-pagemap-scan");
	ok(fault_parse_criu("4", &id, &e) < 0 && strstr(e.msg, "no crshim equivalent"),
	   "CRIU 4: no equivalent");
	ok(fault_parse_criu("dump-early", &id, &e) < 0, "CRIU_FAULT takes numbers only");
	ok(fault_parse_criu("", &id, &e) < 0, "CRIU_FAULT empty refused");
}

static void t_env(void)
{
	ok(env(NULL, NULL) == 0 && c.opts.fault == 0 && !c.fault_src, "no variables: no fault");
	ok(env("", "") == 0 && c.opts.fault == 0, "empty variables: no fault");
	ok(env("dump-before-kill", NULL) == 0 && c.opts.fault == FI_DUMP_BEFORE_KILL &&
	       !strcmp(c.fault_src, "CRSHIM_FAULT"),
	   "CRSHIM_FAULT by name");
	ok(env("13", NULL) == 0 && c.opts.fault == FI_RESTORER_BEFORE_MM, "CRSHIM_FAULT by number");
	ok(env(NULL, "1") == 0 && c.opts.fault == FI_DUMP_EARLY && !strcmp(c.fault_src, "CRIU_FAULT"),
	   "CRIU_FAULT=1");
	ok(env(NULL, "2") == 0 && c.opts.fault == FI_RESTORE_ROOT_ONLY, "CRIU_FAULT=2");
	ok(env("no-prefill", "1") == 0 && c.opts.fault == FI_NO_PREFILL, "CRSHIM_FAULT wins over CRIU_FAULT");
	ok(env("nonsense", NULL) < 0 && strstr(msg, "CRSHIM_FAULT") && !strchr(msg, '\n'),
	   "unknown CRSHIM_FAULT: one line: %s", msg);
	ok(env(NULL, "999") < 0 && strstr(msg, "CRIU_FAULT"), "unknown CRIU_FAULT: %s", msg);
	ok(env(NULL, "x") < 0, "CRIU_FAULT=x refused");
}

static void t_table(void)
{
	size_t n, fatal = 0, degrade = 0;
	const struct fault_point *t = fault_table(&n);
	int sorted = 1, unique = 1, named = 1;
	for (size_t i = 0; i < n; i++) {
		if (i && t[i].id <= t[i - 1].id)
			sorted = 0;
		for (size_t j = 0; j < i; j++)
			if (!strcmp(t[i].name, t[j].name) || (t[i].criu_nr && t[i].criu_nr == t[j].criu_nr))
				unique = 0;
		if (!t[i].name[0] || strchr(t[i].name, ' ') || !t[i].where || !t[i].where[0])
			named = 0;
		int id = -1;
		struct cr_err e;
		char nr[16];
		snprintf(nr, sizeof(nr), "%d", t[i].id);
		if (fault_parse(t[i].name, &id, &e) || id != t[i].id || fault_parse(nr, &id, &e) ||
		    id != t[i].id)
			named = 0;
		fatal += t[i].kind == FAULT_FATAL;
		degrade += t[i].kind == FAULT_DEGRADE;
	}
	ok(n >= 20, "at least 20 points (%zu)", n);
	ok(fatal >= 14 && degrade >= 5, "%zu fatal, %zu degrade", fatal, degrade);
	ok(sorted, "table in increasing number order");
	ok(unique, "names and CRIU numbers unique");
	ok(named, "every point parses by name and number and has a place");
	ok(!strcmp(fault_name(1), "dump-early") && !strcmp(fault_name(2), "restore-root-only"),
	   "1, 2 as in CRIU");
	ok(!strcmp(fault_name(12345), "?") && !fault_point(12345), "unknown id");
	struct cr_opts o;
	eng_opts_init(&o);
	ok(!fault_injected(&o, FI_DUMP_EARLY) && !fault_injected(NULL, FI_DUMP_EARLY), "nothing selected");
	o.fault = FI_DUMP_EARLY;
	ok(fault_injected(&o, FI_DUMP_EARLY) && !fault_injected(&o, FI_RESTORE_ROOT_ONLY),
	   "selected point only");
	struct cr_err e = {0};
	ok(fault_check(&o, FI_DUMP_EARLY, &e) < 0 && !strcmp(e.msg, "fault injected at dump-early"),
	   "fault_check fails naming the point");
	ok(fault_check(&o, FI_DUMP_MM_MID, &e) == 0, "fault_check passes other points");
}

static int parse_check_faults(void)
{
	char a0[] = "crshim", a1[] = "check", a2[] = "--faults", a3[] = "dump", a4[] = "-t", a5[] = "1",
	     a6[] = "-D", a7[] = "d";
	char *ok1[] = {a0, a1, a2, NULL};
	char *bad[] = {a0, a3, a4, a5, a6, a7, a2, NULL};
	int r1 = shim_parse(3, ok1, &c, msg, sizeof(msg)) == 0 && c.faults && c.verb == VERB_CHECK;
	int r2 = shim_parse(7, bad, &c, msg, sizeof(msg)) < 0 && strstr(msg, "--faults");
	return r1 && r2;
}

static void t_list(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	fault_list(f);
	fclose(f);
	ok(buf && strstr(buf, "dump-early") && strstr(buf, "restore-root-only") && strstr(buf, "degrade") &&
	       strstr(buf, "fatal"),
	   "check --faults lists names and kinds");
	size_t n, lines = 0;
	fault_table(&n);
	for (char *p = buf; p && *p; p++)
		lines += *p == '\n';
	ok(lines == n + 1, "one line per point plus a header (%zu)", lines);
	free(buf);
	ok(parse_check_faults(), "crshim check --faults parses");
}

static int dir_entries(int dfd)
{
	int n = 0, fd = dup(dfd);
	DIR *d = fdopendir(fd);
	if (!d)
		return -1;
	rewinddir(d);
	for (struct dirent *de; (de = readdir(d));)
		n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	closedir(d);
	return n;
}

/* The image layer's injected write errors (dump-img-write, dump-enospc) fail like real ones and leave no
 * file. */
static void t_inject(void)
{
	char tmpdir[] = "/tmp/crshim-unit-fault.XXXXXX";
	int dfd;
	if (!mkdtemp(tmpdir) || (dfd = open(tmpdir, O_RDONLY | O_DIRECTORY)) < 0) {
		ok(0, "temp dir");
		return;
	}
	struct cr_err e = {0};
	InventoryEntry inv = INVENTORY_ENTRY__INIT;
	inv.root_pid = 42, inv.has_root_pid = 1;
	ok(img_write_one_fault(dfd, IMG_INVENTORY, 0, &inv.base, EIO, &e) < 0 && e.errnum == EIO,
	   "injected EIO fails the image write: %s", e.msg);
	ok(dir_entries(dfd) == 0, "no image and no temporary file left");
	ok(img_write_one_fault(dfd, IMG_INVENTORY, 0, &inv.base, 0, &e) == 0 && dir_entries(dfd) == 1,
	   "without injection the image is written");
	unlinkat(dfd, "inventory.img", 0);

	size_t psz = (size_t)sysconf(_SC_PAGESIZE), len = 4 * psz;
	void *buf = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct page_writer *pw;
	struct page_block b[4];
	for (int i = 0; i < 4; i++)
		b[i] = (struct page_block){0x10000 + i * psz, i * psz, psz, 0, 0, 0};
	ok(buf != MAP_FAILED && pw_open(dfd, 7, &pw, &e) == 0, "pw_open");
	pw_inject_error(pw, ENOSPC);
	ok(pw_add_batch(pw, buf, len, b, 4, &e) < 0 && e.errnum == ENOSPC, "injected ENOSPC: %s", e.msg);
	ok(dir_entries(dfd) == 1, "the partial pages file exists until the abort");
	pw_abort(pw);
	ok(dir_entries(dfd) == 0, "pw_abort removes it");
	munmap(buf, len);
	close(dfd);
	rmdir(tmpdir);
}

int main(void)
{
	t_inject();
	t_parse();
	t_criu();
	t_env();
	t_table();
	t_list();
	return done_testing();
}
