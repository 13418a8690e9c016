/* A packet socket with a mapped receive ring (PACKET_RX_RING): refused at dump with one line (.desc); the
 * ring is still mapped afterwards. */
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include "zdtmtst.h"

int main(int argc, char **argv)
{
	struct tpacket_req req = {
	    .tp_block_size = 4096, .tp_block_nr = 4, .tp_frame_size = 2048, .tp_frame_nr = 8};
	test_init(argc, argv);
	int s = socket(AF_PACKET, SOCK_RAW, 0); /* protocol 0: receives nothing */
	if (s < 0)
		test_skip("no packet sockets here");
	if (setsockopt(s, SOL_PACKET, PACKET_RX_RING, &req, sizeof(req)))
		fail("PACKET_RX_RING");
	void *ring = mmap(NULL, 4 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, s, 0);
	if (ring == MAP_FAILED)
		fail("mmap the ring");
	test_daemon();
	test_waitsig();
	if (mem_probe(ring, 0))
		fail("the ring is no longer readable");
	return test_pass();
}
