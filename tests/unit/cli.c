/* Unit tests of the command line parser (shim/cli.c), without running anything. */
#include "../../shim/cli.c"
#include "tap.h"
#include "cli-parse.h"

static void t_dump(void)
{
	ok(parse("dump -t 42 -D /tmp/img -o dump.log --shell-job") == 0, "criu-style dump line parses");
	is_int(c.verb, VERB_DUMP, "verb dump");
	is_int(c.opts.pid, 42, "-t 42");
	is_str(c.opts.images_dir, "/tmp/img", "-D");
	is_str(c.opts.log_file, "dump.log", "-o");
	ok(c.opts.shell_job && !c.log_to_stderr, "--shell-job set, logging to a file");
	ok(parse("-D d --tree=7 -R -j --tcp-established -x --file-locks --track-mem dump") == 0,
	   "options before the verb");
	ok(c.verb == VERB_DUMP && c.opts.pid == 7 && c.opts.leave_running && c.opts.shell_job &&
	       c.opts.tcp_established && c.opts.ext_unix_sk && c.opts.file_locks && c.opts.track_mem,
	   "all dump flags set");
	ok(c.log_to_stderr, "no -o: log to stderr");
	ok(parse("dump -t 1 -D d --prev-images-dir ../p --root /r -W /w --ext-unix-sk") == 0,
	   "dump with dirs");
	ok(!strcmp(c.opts.prev_images_dir, "../p") && !strcmp(c.opts.root, "/r") &&
	       !strcmp(c.opts.work_dir, "/w"),
	   "--prev-images-dir, --root, -W");
	ok(parse("pre-dump -t 1 -D d") == 0 && c.verb == VERB_PRE_DUMP, "pre-dump parses");
}

static void t_restore(void)
{
	ok(parse("restore -D d -o restore.log --restore-detached --shell-job --pidfile p.pid") == 0,
	   "criu-style restore line parses");
	ok(c.verb == VERB_RESTORE && c.opts.detach && c.opts.shell_job && !strcmp(c.opts.pidfile, "p.pid"),
	   "restore flags");
	ok(parse("restore -D d -d --inherit-fd fd[3]:pipe:[1] --inherit-fd fd[4]:x --external mnt[a]:b") == 0,
	   "repeatable options");
	ok(c.n_inherit_fd == 2 && !strcmp(c.inherit_fd[1], "fd[4]:x") && c.opts.n_inherit_fd == 2 &&
	       c.opts.inherit_fd[0] == c.inherit_fd[0],
	   "--inherit-fd list reaches cr_opts");
	ok(c.n_external == 1 && c.opts.n_external == 1 && !strcmp(c.opts.external[0], "mnt[a]:b"),
	   "--external list reaches cr_opts");
}

static void t_verbosity(void)
{
	static const struct {
		const char *line;
		int lvl;
	} cases[] = {
	    {"check", 2},
	    {"check -v", 3},
	    {"check -v4", 4},
	    {"check -v0", 0},
	    {"check -vvvv", 4},
	    {"check -vv", 4},
	    {"check -v 1", 1},
	    {"-v 3 check", 3},
	    {"check --verbosity=0", 0},
	    {"check --verbosity 1", 1},
	    {"check --verbosity", 3},
	    {"check -v 9", 4},
	    {"check --no-default-config -verbosity=0 --feature timerfd", 0}, /* zdtm.py's feature check */
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int r = parse(cases[i].line);
		ok(r == 0 && c.verb == VERB_CHECK && c.opts.verbosity == cases[i].lvl, "'%s' -> level %d",
		   cases[i].line, cases[i].lvl);
	}
	ok(parse("check -vx") < 0, "-vx is an error: %s", msg);
	ok(parse("check -v -1") < 0 || c.opts.verbosity == 3, "-v -1 is not a level");
}

static void t_ignored(void)
{
	ok(parse(
	       "dump -t 1 -D d --evasive-devices --log-pid --timeout 10 --pre-dump-mode read --link-remap") ==
	       0,
	   "ignored CRIU options are accepted");
	ok(c.verb == VERB_DUMP && c.n_notes == 5, "their arguments are not taken as operands, 5 notes");
	is_str(c.notes[2], "timeout", "note names the option");
	/* CRIU's zdtm passes these (mnt_ext_*, pty-console, inotify_irmap, ghost_multi_hole0x): no effect */
	ok(parse("restore -D d --mntns-compat-mode --no-mntns-compat-mode --ghost-fiemap --no-ghost-fiemap "
		 "--force-irmap --irmap-scan-path /zdtm/static") == 0 &&
	       c.verb == VERB_RESTORE && c.n_notes == 6,
	   "mntns-compat-mode, ghost-fiemap, irmap-scan-path DIR: accepted, 6 notes");
	is_str(c.notes[5], "irmap-scan-path", "... the scan path is the option's argument, not an operand");
	ok(parse("dump -t 1 -D d --external mnt[]") == 0 && c.opts.ext_mnt_auto && !c.opts.ext_sharing &&
	       !c.opts.ext_masters && c.opts.n_external == 0,
	   "--external mnt[]: automatic external mounts, not a named one");
	ok(parse("dump -t 1 -D d --external mnt[]:s") == 0 && c.opts.ext_sharing && !c.opts.ext_masters &&
	       parse("dump -t 1 -D d --external mnt[]:m") == 0 && c.opts.ext_masters && !c.opts.ext_sharing,
	   "mnt[]:s and mnt[]:m: external sharing, external masters");
	ok(parse("dump -t 1 -D d --external mnt[]:sm") < 0 && strstr(msg, "mnt[]:s"), "mnt[]:sm refused: %s",
	   msg);
	ok(parse("restore -D d --ext-mount-map auto --enable-external-sharing --enable-external-masters") ==
		   0 &&
	       c.opts.ext_mnt_auto && c.opts.ext_sharing && c.opts.ext_masters && c.n_ext_mount_map == 0 &&
	       c.n_notes == 0,
	   "--ext-mount-map auto, --enable-external-sharing/-masters: taken, not ignored");
	ok(parse("restore -D d --external mnt[KEY]:/p") == 0 && c.opts.n_external == 1,
	   "mnt[KEY]:PATH is fine");
	ok(parse("dump -t 1 -D d --irmap-scan-path") < 0 && strstr(msg, "needs an argument"),
	   "--irmap-scan-path without DIR: %s", msg);
	ok(parse("restore -D d --manage-cgroups=strict --cgroup-root /a --cgroup-root cpu:/b") == 0 &&
	       c.opts.manage_cgroups == CR_CG_STRICT && c.opts.n_cgroup_root == 2 && c.n_notes == 0,
	   "--manage-cgroups=MODE and --cgroup-root are options, not notes");
	ok(parse("restore -D d --manage-cgroups") == 0 && c.opts.manage_cgroups == CR_CG_SOFT,
	   "--manage-cgroups alone is soft");
	ok(parse("restore -D d --manage-cgroups=bogus") < 0 && strstr(msg, "bogus"), "an unknown mode: %s",
	   msg);
	ok(parse("restore -D d --cgroup-yard /y") == 0 && c.n_notes == 1,
	   "--cgroup-yard DIR accepted and noted (the hierarchies mounted here are used)");
	ok(parse("dump -t 1 -D d --freeze-cgroup /sys/fs/cgroup/freezer/x") == 0 && c.opts.freeze_cgroup &&
	       !strcmp(c.opts.freeze_cgroup, "/sys/fs/cgroup/freezer/x"),
	   "--freeze-cgroup PATH");
	ok(parse("restore -D d --tcp-close") == 0 && c.opts.tcp_close && c.n_notes == 0,
	   "--tcp-close is an option, not a note");
	ok(parse("dump -t 1 -D d") == 0 && c.opts.ghost_limit == 1ull << 20, "--ghost-limit defaults to 1M");
	ok(parse("dump -t 1 -D d --ghost-limit 10") == 0 && c.opts.ghost_limit == 10, "--ghost-limit 10");
	ok(parse("dump -t 1 -D d --ghost-limit 3M") == 0 && c.opts.ghost_limit == 3ull << 20,
	   "--ghost-limit 3M");
	ok(parse("dump -t 1 -D d --ghost-limit 2G") == 0 && c.opts.ghost_limit == 2ull << 30,
	   "--ghost-limit 2G");
	ok(parse("dump -t 1 -D d --ghost-limit 5X") < 0, "--ghost-limit 5X refused: %s", msg);
	ok(parse("dump -t 1 -D d --ghost-limit -1") < 0, "--ghost-limit -1 refused");
	ok(parse("dump -t 1 -D d --no-default-config --evasive-devices --auto-dedup") == 0,
	   "more ignored options");
	ok(parse("dump -t 1 -D d") == 0 && !c.display_stats, "no --display-stats by default");
	ok(parse("restore -D d --display-stats") == 0 && c.display_stats && c.n_notes == 0,
	   "--display-stats is an option, not ignored");
	ok(parse("dump -t 1 -D d") == 0 && !c.opts.skip_in_flight, "no --skip-in-flight by default");
	ok(parse("dump -t 1 -D d --skip-in-flight") == 0 && c.opts.skip_in_flight && c.n_notes == 0,
	   "--skip-in-flight is an option, not ignored");
	ok(parse("restore -D d --lazy-pages") == 0 && c.opts.lazy_pages, "restore --lazy-pages");
	ok(parse("dump -t 1 -D d --lazy-pages --port 0") == 0 && c.opts.lazy_pages, "dump --lazy-pages");
	ok(parse("pre-dump -t 1 -D d --lazy-pages") < 0, "pre-dump --lazy-pages refused");
	like(msg, "only valid with dump and restore", "... only with dump and restore");
	ok(parse("dump -t 1 -D d --lazy-pages --page-server --address a --port 1") < 0,
	   "dump --lazy-pages --page-server refused");
	like(msg, "not with --page-server", "... says so");
	ok(parse("lazy-pages -D d --daemon") == 0 && c.verb == VERB_LAZY_PAGES && c.ps_daemon,
	   "lazy-pages verb");
	ok(parse("lazy-pages") < 0, "lazy-pages without -D refused");
	like(msg, "lazy-pages needs -D", "... says so");
	ok(parse("dump -t 1 -D d --leave-stopped") < 0, "--leave-stopped refused");
}

static void t_errors(void)
{
	ok(parse("") < 0, "no command");
	like(msg, "no command", "... says so");
	ok(parse("bogus") < 0, "unknown command");
	like(msg, "unknown command 'bogus'", "... names it");
	ok(parse("dump -D d") < 0, "dump without -t");
	like(msg, "-t", "... mentions -t");
	ok(parse("dump -t 1") < 0, "dump without -D");
	like(msg, "-D", "... mentions -D");
	ok(parse("restore") < 0, "restore without -D");
	ok(parse("dump -t 1 -D d --bogus") < 0, "unknown long option");
	like(msg, "'--bogus'", "... names it");
	ok(parse("dump -t 1 -D d -Q") < 0, "unknown short option");
	like(msg, "'-Q'", "... names it");
	ok(parse("dump -D d -t") < 0, "missing argument");
	like(msg, "needs an argument", "... says so");
	ok(parse("dump -D d --pidfile") < 0, "missing argument of a long option");
	like(msg, "--pidfile", "... names it");
	ok(parse("dump -t abc -D d") < 0 && parse("dump -t 0 -D d") < 0 && parse("dump -t -3 -D d") < 0 &&
	       parse("dump -t 12x -D d") < 0,
	   "invalid PIDs refused");
	ok(parse("dump -t 1 -D d extra") < 0, "extra operand refused");
	like(msg, "extra", "... names it");
	ok(parse("dump -t 1 -D d --feature uffd") < 0, "--feature only with check");
}

static void t_misc(void)
{
	ok(parse("--version") == 0 && c.version, "--version");
	ok(parse("-V") == 0 && c.version, "-V");
	ok(parse("-h") == 0 && c.help, "-h");
	ok(parse("dump --help") == 0 && c.help, "dump --help (no -t needed)");
	ok(parse("check --feature mem_dirty_track") == 0 && !strcmp(c.feature, "mem_dirty_track"),
	   "check --feature");
	ok(parse("show /tmp/img") == 0 && c.verb == VERB_SHOW && !strcmp(c.operand, "/tmp/img"), "show DIR");
	ok(parse("show") < 0, "show needs an argument");
	ok(parse("swrk 3") == 0 && c.verb == VERB_SWRK && !strcmp(c.operand, "3"), "swrk FD");
	ok(parse("dump -t 1 -D d -o -") == 0 && c.log_to_stderr, "-o - logs to stderr");
	is_str(shim_verb_name(VERB_PRE_DUMP), "pre-dump", "verb names");
	ok(parse("dump -t 1 -D d -v4") == 0, "parse for the command line");
	is_str(c.cmdline, "crshim dump -t 1 -D d -v4", "the command line is kept for the log");
}

int main(void)
{
	t_dump();
	t_restore();
	t_verbosity();
	t_ignored();
	t_errors();
	t_misc();
	return done_testing();
}
