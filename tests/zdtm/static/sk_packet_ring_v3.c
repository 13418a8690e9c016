/* A packet socket with a mapped TPACKET_V3 receive ring (4 blocks of 4 KiB, blocks retired after 10 ms)
 * bound to lo: block 0 (frames 0, 1) read and given back, blocks 1 (frames 2, 3) and 2 (frame 4) handed to
 * the program and held over the checkpoint. After restore the ring is mapped at the same address and size,
 * the held blocks come first, then 40 new frames in order (the kernel fills the block after them). */
#include "zdtmtst.h"

int main(int argc, char **argv)
{
	struct pkring r;
	struct tpacket_req3 req = {.tp_block_size = 4096,
				   .tp_block_nr = 4,
				   .tp_frame_size = 2048,
				   .tp_frame_nr = 8,
				   .tp_retire_blk_tov = 10};
	uint32_t want = 0;
	test_init(argc, argv);
	pkring_open(&r, TPACKET_V3, &req, NULL);
	pkring_send(&r, 0);
	pkring_send(&r, 1);
	pkring_expect(&r, &want, 1);
	pkring_send(&r, 2);
	pkring_send(&r, 3);
	usleep(100 * 1000); /* block 1 retired by its timer */
	pkring_send(&r, 4);
	usleep(100 * 1000); /* block 2 */
	pkring_cr(&r, 2, 5);
	return test_pass();
}
