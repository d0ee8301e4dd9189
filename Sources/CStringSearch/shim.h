// The C library's memmem, which Swift's Glibc module leaves out (glibc declares it only for _GNU_SOURCE).
#include <stddef.h>

void *memmem(const void *haystack, size_t haystacklen, const void *needle, size_t needlelen);
