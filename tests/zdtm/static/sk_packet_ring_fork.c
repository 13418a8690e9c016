/* A packet socket with a mapped TPACKET_V2 receive ring, forked after the mmap: the test and its child hold
 * one open file description of it (kcmp) and each a mapping of its ring. 5 frames received, 3 read, so 2 are
 * held over the checkpoint. After restore both fds are still one description, both mappings are where they
 * were; the test reads the 2 held frames and 10 new ones, then hands its ring position to the child, which
 * reads 20 frames it sends itself through its own mapping (the kernel writes into the pages the child maps),
 * and back to the test, which reads 10 more from where the child stopped (the child's reads gave the frames
 * back in the test's mapping too: one ring). Before: the restore failed after the tree was killed ("vma ...
 * maps the rings of fd N, which is no packet socket": the shared socket was inherited from crshim). */
#include <string.h>
#include <sys/syscall.h>
#include <linux/kcmp.h>
#include "zdtmtst.h"

static struct pkring r;

/* The child: the ring's mapping as before the checkpoint, then 20 frames of its own at the test's position.
 */
static void child(int go, int done, void *arg)
{
	char before[128], after[128], fl[256];
	uint32_t idx;
	(void)arg;
	if (vma_info(r.map, before, sizeof(before), fl, sizeof(fl)))
		_exit(2);
	if (write(done, "r", 1) != 1 || read(go, &idx, sizeof(idx)) != sizeof(idx))
		_exit(3);
	if (vma_info(r.map, after, sizeof(after), fl, sizeof(fl)) || strcmp(before, after))
		_exit(4);
	r.idx = idx;
	for (uint32_t s = 1000; s < 1020 && !test_failures; s++) {
		uint32_t want = s;
		pkring_send(&r, s);
		pkring_expect(&r, &want, s);
	}
	if (test_failures || write(done, &r.idx, sizeof(r.idx)) != sizeof(r.idx))
		_exit(5);
}

static void take(struct pkring *p, uint32_t *s, uint32_t n)
{
	for (uint32_t end = *s + n; *s < end && !test_failures; (*s)++) {
		uint32_t want = *s;
		pkring_send(p, *s);
		pkring_expect(p, &want, *s);
	}
}

int main(int argc, char **argv)
{
	struct tpacket_req3 req = {
	    .tp_block_size = 4096, .tp_block_nr = 4, .tp_frame_size = 1024, .tp_frame_nr = 16};
	char before[128], after[128], fl[256], c;
	uint32_t want = 0, s = 5;
	int go, done;
	test_init(argc, argv);
	pkring_open(&r, TPACKET_V2, &req, NULL);
	for (uint32_t k = 0; k < 5; k++)
		pkring_send(&r, k);
	pkring_expect(&r, &want, 2);
	pid_t ch = fork_talker(child, NULL, &go, &done);
	if (ch < 0 || read(done, &c, 1) != 1)
		fail("child not ready");
	if (vma_info(r.map, before, sizeof(before), fl, sizeof(fl)))
		fail("no mapping of the ring");
	test_daemon();
	test_waitsig();
	if (vma_info(r.map, after, sizeof(after), fl, sizeof(fl)) || strcmp(before, after))
		fail("the ring's mapping was \"%s\", now \"%s\"", before, after);
	if (syscall(SYS_kcmp, getpid(), ch, KCMP_FILE, r.sk, r.sk))
		fail("the test's and the child's packet socket are not one description any more");
	pkring_expect(&r, &want, 4); /* the 2 held over the checkpoint */
	take(&r, &s, 10);
	uint32_t idx = r.idx;
	if (write(go, &idx, sizeof(idx)) != sizeof(idx) || read(done, &idx, sizeof(idx)) != sizeof(idx))
		fail("the child did not read its frames in the shared ring");
	child_exit_ok(ch, "2 no mapping, 3 pipe, 4 mapping changed, 5 frames wrong");
	if (idx != (r.idx + 20) % req.tp_frame_nr)
		fail("the child stopped at frame %u, not %u", idx, (r.idx + 20) % req.tp_frame_nr);
	r.idx = idx;
	take(&r, &s, 10);
	return test_pass();
}
