/* netns_veth_which at restore: the dump (--leave-running, mode checkpoint) saves both veths ve0, whose other
 * ends are the host's, without a name for those ends; a restore given --external veth[ve0]:nswvwout (.desc
 * ropts) does not say which one's, so it must refuse with one line asking for veth[INO/ve0] before it makes
 * anything (flags restore-busy: also its --check-only), the test running on with both pairs. Before: the
 * restore went on (and failed later, on the pids in use). */
#include "netns_which.h"

int main(int argc, char **argv)
{
	return nsw_which_main(argc, argv);
}
