/* What posix_timer_fault_count and posix_timer_fault_count_lr share: a periodic CLOCK_REALTIME POSIX timer
 * armed relative (100 ms, its signal blocked) with an overrun count (timer_getoverrun 2: its last signal
 * taken counted 2 missed expiries) whose own signal is pending again at the dump, counting far more (3 s of
 * expiries). A dump that will not let the tree go on (no --leave-running) takes that signal to tell how the
 * timer was armed, which makes timer_getoverrun read the signal's count; one with --leave-running (LR) leaves
 * the timer alone.
 * Mode fault (dump-before-kill: the dump fails after all of that; the runner leaves its one line in
 * fault.out in the test's dir): without LR the line must say "POSIX timer ID: its overrun count now reads N,
 * not 2", and the tree must see exactly that: timer_getoverrun N; with LR the line must not say it and the
 * count must still read 2. Either way the timer must be as it was: relative (on the kernel's CLOCK_MONOTONIC
 * hrtimer base, /proc/timer_list "clock 0"), its next expiry on its grid, its pending signals counting every
 * expiry since the last one taken (none lost, none twice). Other modes: the same checks after C/R (the
 * overrun count not checked: the restore gives it back only when the signal is not pending, and says so).
 */
#include <libgen.h>
#include "posix_timer.h"

#define IV (100 * 1000000LL)

/* The failed dump's line (mode fault: fault.out next to the outfile), when a dump-* point fired; "" else. */
static void fault_line(char *buf, size_t len)
{
	const char *out = test_opt("outfile");
	char dir[4096], path[4200];
	buf[0] = '\0';
	if (!out)
		return;
	snprintf(dir, sizeof(dir), "%s", out);
	snprintf(path, sizeof(path), "%s/fault.out", dirname(dir));
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	if (!fgets(buf, (int)len, f) || !strstr(buf, "fault injected at dump-"))
		buf[0] = '\0';
	fclose(f);
}

/* The overrun count the line says the timer (id) reads now (-1: it says none; -2: it says another "not"). */
static int line_count(const char *line, int id, int before)
{
	char key[64];
	int now, was;
	snprintf(key, sizeof(key), "POSIX timer %d: its overrun count now reads ", id);
	const char *p = strstr(line, key);
	if (!p)
		return -1;
	if (sscanf(p + strlen(key), "%d, not %d", &now, &was) != 2 || was != before)
		return -2;
	return now;
}

static int fault_count_main(int argc, char **argv, int lr)
{
	const int sig = SIGRTMIN + 22;
	long long first, taken;
	char line[4096];
	timer_t t;

	test_init(argc, argv);
	/* overrun 2, its signal pending again from 301 ms, and counting 3 s of expiries missed before the
	 * dump can take it: far from 2 */
	int ov = pt_rel_overrun_take(&t, sig, IV, &first, &taken);
	if (ov != 2) {
		fail("overrun %d after its first signal taken (want 2)", ov);
		return 1;
	}
	usleep(3000000);
	if (!pt_pending(sig)) {
		fail("the timer's signal not pending again");
		return 1;
	}
	test_daemon();
	test_waitsig();

	int id = (int)(intptr_t)t, now = timer_getoverrun(t);
	fault_line(line, sizeof(line));
	if (*line) {
		int said = line_count(line, id, ov);
		test_msg("after the failed dump (%s): timer %d: overrun %d (before %d), the line says %d: %s",
			 lr ? "--leave-running" : "no --leave-running", id, now, ov, said, line);
		/* (what the line says holds; under dump-before-kill, past every read of the timer, the dump
		 * without --leave-running took the signal: the line must say so) */
		if (said == -2 || said == ov || (said >= 0 ? now != said : now != ov))
			fail("the timer's overrun count reads %d, was %d; the line says it reads %d (-1: "
			     "nothing, "
			     "-2: not from the count before)",
			     now, ov, said);
		if (lr && said != -1)
			fail("--leave-running: the line says the overrun count changed (%d)", said);
		if (!lr && said == -1 && strstr(line, "fault injected at dump-before-kill"))
			fail("the dump failed past its reads but its line says nothing of the timer's count");
	}
	pt_rel_check(t, sig, IV, first, first + taken * IV,
		     "CLOCK_REALTIME timer armed relative, with an overrun count");
	pass();
	return 0;
}
