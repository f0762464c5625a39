/*
 * simd.h - whether the readers use their SSE2 paths (REPLAY_SSE2 1) or the
 * portable ones (0): SSE2 where the compiler targets it (every x86-64)
 * unless the build asks for the portable paths (cmake -DREPLAY_PORTABLE=ON,
 * `scripts/test --portable`), which is what runs on CPUs without SSE2
 * (aarch64, ppc64le) and is tested on this one that way.  Test this macro,
 * never __SSE2__: <x86intrin.h> defines __SSE2__ again after a -U.
 */
#ifndef REPLAY_UTIL_SIMD_H
#define REPLAY_UTIL_SIMD_H

#if defined(__SSE2__) && !defined(REPLAY_PORTABLE)
#define REPLAY_SSE2 1
#include <emmintrin.h>
#else
#define REPLAY_SSE2 0
#endif

#endif
