/* A packet socket with a mapped TPACKET_V2 receive ring (4 blocks of 4 KiB, 16 frames) bound to lo: 5 frames
 * received, 3 read and given back, so 2 are held by the program over the checkpoint. After restore the ring
 * is mapped at the same address with the same size and protection, the 2 held frames come first, then 40
 * new frames in order, around the ring more than twice (the kernel writes where the program reads). */
#include "zdtmtst.h"

int main(int argc, char **argv)
{
	struct pkring r;
	struct tpacket_req3 req = {
	    .tp_block_size = 4096, .tp_block_nr = 4, .tp_frame_size = 1024, .tp_frame_nr = 16};
	uint32_t want = 0;
	test_init(argc, argv);
	pkring_open(&r, TPACKET_V2, &req, NULL);
	for (uint32_t s = 0; s < 5; s++)
		pkring_send(&r, s);
	pkring_expect(&r, &want, 2);
	pkring_cr(&r, 3, 5);
	return test_pass();
}
