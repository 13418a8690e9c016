/* Unit tests of the OCI verbs' command lines (shim/cli.c): checkpoint, restore --bundle, state, kill, delete,
 * list. */
#include "../../shim/cli.c"
#include "tap.h"
#include "cli-parse.h"

int main(void)
{
	ok(parse("checkpoint oci-1 --image-path /i --work-path /w --leave-running --tcp-established") == 0 &&
	       c.verb == VERB_CHECKPOINT && !strcmp(c.oci_id, "oci-1") && !strcmp(c.opts.images_dir, "/i") &&
	       !strcmp(c.opts.work_dir, "/w") && c.opts.leave_running && c.opts.tcp_established,
	   "checkpoint ID with runc's options");
	ok(parse("checkpoint --bundle /b --pid 42 --image-path /i") == 0 && c.opts.pid == 42 &&
	       !strcmp(c.bundle, "/b") && !c.oci_id,
	   "checkpoint --pid --bundle");
	ok(parse("checkpoint oci-1") < 0 && strstr(msg, "--image-path"), "checkpoint needs --image-path: %s",
	   msg);
	ok(parse("checkpoint --image-path /i") < 0 && strstr(msg, "container ID or --pid"),
	   "checkpoint needs ID");
	ok(parse("checkpoint --image-path /i --pid x") < 0 && strstr(msg, "--pid"), "bad --pid");
	ok(parse("restore --bundle /b --image-path /i oci-2 --detach --pid-file /p") == 0 &&
	       c.verb == VERB_RESTORE && !strcmp(c.oci_id, "oci-2") && c.opts.detach &&
	       !strcmp(c.opts.pidfile, "/p"),
	   "restore --bundle ID");
	ok(parse("restore --bundle /b oci-2") < 0 && strstr(msg, "--image-path"),
	   "restore --bundle needs images");
	ok(parse("restore -D /i oci-2") < 0 && strstr(msg, "unexpected argument"),
	   "plain restore takes no ID");
	ok(parse("state oci-3") == 0 && c.verb == VERB_STATE && !strcmp(c.oci_id, "oci-3"), "state ID");
	ok(parse("state") < 0 && strstr(msg, "container ID"), "state needs an ID");
	ok(parse("kill oci-3 KILL") == 0 && c.verb == VERB_KILL && !strcmp(c.oci_signal, "KILL"),
	   "kill ID SIG");
	ok(parse("kill oci-3 KILL x") < 0, "kill: one signal");
	ok(parse("delete --force oci-3") == 0 && c.verb == VERB_DELETE && c.oci_force, "delete --force");
	ok(parse("list") == 0 && c.verb == VERB_LIST, "list");
	ok(parse("list x") < 0, "list takes nothing");
	ok(parse("dump -t 1 -D d --bundle /b") < 0 && strstr(msg, "--bundle"), "--bundle only for OCI verbs");
	return done_testing();
}
