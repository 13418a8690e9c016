/* overmount.h: a file mapped shared (no fd) in an over-mounted directory. */
#include "overmount.h"

int main(int argc, char **argv)
{
	return overmount_run(argc, argv, 1);
}
