// The write recorder is loaded with LD_PRELOAD into a process under test; it has no interface to call.
