/* A packet socket bound to lo with TPACKET_V2 receive (16 frames) and transmit (8 frames) rings in one
 * mapping, sending to itself through its transmit ring: frames 0-2 sent and received, frame 3 queued in the
 * transmit ring (not sent) over the checkpoint. After restore the mapping is the same, a send() sends the
 * queued frame, which comes first, then 40 new frames through the transmit ring (round it five times), each
 * received in order. */
#include "zdtmtst.h"

int main(int argc, char **argv)
{
	struct pkring r;
	struct tpacket_req3 req = {
	    .tp_block_size = 4096, .tp_block_nr = 4, .tp_frame_size = 1024, .tp_frame_nr = 16};
	struct tpacket_req txreq = {
	    .tp_block_size = 4096, .tp_block_nr = 2, .tp_frame_size = 1024, .tp_frame_nr = 8};
	uint32_t want = 0;
	test_init(argc, argv);
	pkring_open(&r, TPACKET_V2, &req, &txreq);
	for (uint32_t s = 0; s < 3; s++)
		pkring_send(&r, s);
	pkring_expect(&r, &want, 2);
	pkring_queue(&r, 3);
	pkring_cr(&r, 3, 4);
	return test_pass();
}
