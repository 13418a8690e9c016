/* overmount.h: a file held as fd 5 in an over-mounted directory. */
#include "overmount.h"

int main(int argc, char **argv)
{
	return overmount_run(argc, argv, 0);
}
