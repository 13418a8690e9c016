/* Placeholder: the restorer blob entry. Replaced by the real restorer. */
__attribute__((section(".text.entry"), used)) void __blob_entry(void)
{
	for (;;)
		;
}
