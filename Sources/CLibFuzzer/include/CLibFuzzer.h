#ifndef TVGUIDE_CLIBFUZZER_H
#define TVGUIDE_CLIBFUZZER_H

#include <stddef.h>
#include <stdint.h>

// libFuzzer's driver, for a program with its own main (SwiftPM's executables have one). Linked only when the program
// is built with -sanitize=fuzzer (scripts/fuzz); see https://llvm.org/docs/LibFuzzer.html#using-libfuzzer-as-a-library
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
