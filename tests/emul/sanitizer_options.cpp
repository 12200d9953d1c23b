// emul_tests' own sanitizer options (one definition each per binary); its PMIx suppressions are
// emul/sanitizer_defaults.cpp. Compiled to nothing without AddressSanitizer.
#if defined(__SANITIZE_ADDRESS__)

// libpmix has no frame pointers: ASan's fast unwinder stops at its first frame, too shallow for
// the suppressions below, so allocations are unwound the slow way in this binary.
extern "C" const char* __asan_default_options() { return "fast_unwind_on_malloc=0"; }

// GCC 12's LeakSanitizer, checking a forked peer after earlier tests ran in the test process,
// reads a bogus dynamic-TLS range of the main thread ("DTLS 6 at 0x1c3b-0x400002d3d" with
// verbosity=2) and its tracer dies with SIGSEGV: no leak report at all. Not scanning TLS as a
// root can only add reports, never hide one (nothing of ours is held only from TLS); it adds none.
extern "C" const char* __lsan_default_options() { return "use_tls=0"; }

#endif
