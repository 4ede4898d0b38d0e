/* SPDX-License-Identifier: Apache-2.0
 * The power-cut lab's `misdirect` device (tests/lab/powercut_lab.py): an nbdkit filter that models
 * a drive whose firmware writes a request to the wrong place. Flushes and FUA pass through
 * honestly (it loses nothing acknowledged by a cut), but every Nth write request lands at another
 * offset: its own offset plus misdirect-shift, wrapped inside the first misdirect-window bytes
 * (the region storqual writes), so the write is missing where it was meant to go and found where
 * it was not: "misdirected writes", a class of "Understanding the Robustness of SSDs under Power
 * Fault" (Zheng et al., FAST '13). `storqual powercut check` must name both places misplaced and
 * nothing lost after a flush.
 *
 * Parameters: misdirect-every=N (default 64), misdirect-shift=BYTES (default 1 MiB),
 * misdirect-window=BYTES (default 32 MiB). Built by the lab against Debian's nbdkit-plugin-dev
 * header:  cc -shared -fPIC -o nbdkit-misdirect-filter.so nbdkit-misdirect-filter.c
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <nbdkit-filter.h>

static unsigned long every = 64, seen;
static uint64_t shift = 1 << 20, window = 32 << 20;

static int misdirect_config(nbdkit_next_config* next, nbdkit_backend* nxdata, const char* key,
                            const char* value) {
  unsigned long long v;
  char* end;
  if (strcmp(key, "misdirect-every") == 0 || strcmp(key, "misdirect-shift") == 0 ||
      strcmp(key, "misdirect-window") == 0) {
    v = strtoull(value, &end, 10);
    if (*end || v == 0) {
      nbdkit_error("%s=%s: a positive number", key, value);
      return -1;
    }
    if (strcmp(key, "misdirect-every") == 0)
      every = (unsigned long)v;
    else if (strcmp(key, "misdirect-shift") == 0)
      shift = v;
    else
      window = v;
    return 0;
  }
  return next(nxdata, key, value);
}

static int misdirect_thread_model(void) {
  return NBDKIT_THREAD_MODEL_SERIALIZE_ALL_REQUESTS;
}

static int misdirect_pwrite(nbdkit_next* next, void* handle, const void* buf, uint32_t count,
                            uint64_t offset, uint32_t flags, int* err) {
  (void)handle;
  if (++seen % every != 0 || offset + count > window || count > window - shift)
    return next->pwrite(next, buf, count, offset, flags, err);
  uint64_t to = (offset + shift) % window; /* storqual's requests are aligned: it fits */
  if (to + count > window) to = 0;
  return next->pwrite(next, buf, count, to, flags, err);
}

static struct nbdkit_filter filter = {
    .name = "misdirect",
    .longname = "storqual lab: every Nth write request written at another offset",
    .config = misdirect_config,
    .config_help =
        "misdirect-every=N  misdirect every Nth write request (default 64)\n"
        "misdirect-shift=B  by this many bytes (default 1 MiB)\n"
        "misdirect-window=B  wrapped inside the first B bytes (default 32 MiB)",
    .thread_model = misdirect_thread_model,
    .pwrite = misdirect_pwrite,
};

NBDKIT_REGISTER_FILTER(filter)
