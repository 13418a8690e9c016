/* CRC32C on arm64: not by instruction yet (the ARMv8 CRC extension could), the engine's tables serve. */
#include "arch.h"

arch_crc32c_fn arch_crc32c_hw(void)
{
	return NULL;
}
