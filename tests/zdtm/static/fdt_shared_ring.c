/* A child made with clone(CLONE_FILES) maps a packet socket's receive ring (a copy of its parent's mapping)
 * through an fd of the table it shares: 5 frames received, 3 read, 2 held over the checkpoint. After restore
 * the two still share one fd table, both mappings are where they were; the test reads the 2 held frames and
 * 10 new ones, hands its ring position to the child, which reads 20 frames it sends itself through its own
 * mapping, and back to the test, which reads 10 more from where the child stopped (one ring). The table is
 * restored after the child's turn (engine/files/restore-fdtable.c): the restoring process puts a copy of the
 * socket in a slot the child kept. Before: refused at dump ("maps a packet socket's ring"). */
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <linux/kcmp.h>
#include "zdtmtst.h"

static struct pkring r;

static void take(uint32_t *s, uint32_t n)
{
	for (uint32_t end = *s + n; *s < end && !test_failures; (*s)++) {
		uint32_t want = *s;
		pkring_send(&r, *s);
		pkring_expect(&r, &want, *s);
	}
}

/* The child: its mapping as before the checkpoint, then 20 frames of its own at the test's position. */
static int child(int go, int done)
{
	char before[128], after[128], fl[256];
	uint32_t idx, s = 1000;
	if (vma_info(r.map, before, sizeof(before), fl, sizeof(fl)))
		return 2;
	if (write(done, "r", 1) != 1 || read(go, &idx, sizeof(idx)) != sizeof(idx))
		return 3;
	if (vma_info(r.map, after, sizeof(after), fl, sizeof(fl)) || strcmp(before, after))
		return 4;
	r.idx = idx;
	take(&s, 20);
	if (test_failures || write(done, &r.idx, sizeof(r.idx)) != sizeof(r.idx))
		return 5;
	return 0;
}

int main(int argc, char **argv)
{
	struct tpacket_req3 req = {
	    .tp_block_size = 4096, .tp_block_nr = 4, .tp_frame_size = 1024, .tp_frame_nr = 16};
	char before[128], after[128], fl[256], c;
	uint32_t want = 0, s = 5, idx;
	int go[2], done[2];
	test_init(argc, argv);
	pkring_open(&r, TPACKET_V2, &req, NULL);
	for (uint32_t k = 0; k < 5; k++)
		pkring_send(&r, k);
	pkring_expect(&r, &want, 2);
	if (pipe(go) || pipe(done)) {
		fail("pipe");
		return 1;
	}
	pid_t ch = (pid_t)syscall(SYS_clone, CLONE_FILES | SIGCHLD, 0, 0, 0, 0);
	if (ch == 0)
		_exit(child(go[0], done[1]));
	if (ch < 0 || read(done[0], &c, 1) != 1) {
		fail("clone(CLONE_FILES) or the child's setup");
		return 1;
	}
	if (vma_info(r.map, before, sizeof(before), fl, sizeof(fl)))
		fail("no mapping of the ring");
	test_daemon();
	test_waitsig();
	if (syscall(SYS_kcmp, getpid(), ch, KCMP_FILES, 0, 0))
		fail("the test and its child do not share one fd table any more");
	if (vma_info(r.map, after, sizeof(after), fl, sizeof(fl)) || strcmp(before, after))
		fail("the ring's mapping was \"%s\", now \"%s\"", before, after);
	pkring_expect(&r, &want, 4); /* the 2 held over the checkpoint */
	take(&s, 10);
	idx = r.idx;
	if (write(go[1], &idx, sizeof(idx)) != sizeof(idx) || read(done[0], &idx, sizeof(idx)) != sizeof(idx))
		fail("the child did not read its frames in the shared ring");
	child_exit_ok(ch, "2 no mapping, 3 pipe, 4 mapping changed, 5 frames wrong");
	if (idx != (r.idx + 20) % req.tp_frame_nr)
		fail("the child stopped at frame %u, not %u", idx, (r.idx + 20) % req.tp_frame_nr);
	r.idx = idx;
	take(&s, 10);
	return test_pass();
}
