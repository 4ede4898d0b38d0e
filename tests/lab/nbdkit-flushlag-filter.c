/* SPDX-License-Identifier: Apache-2.0
 * The power-cut lab's `flushlag` device (tests/lab/powercut_lab.py): an nbdkit filter over the
 * cache filter's write-back cache that models a drive whose firmware acknowledges a flush early
 * when it follows the previous one within flushlag-ms: that flush returns success and writes
 * nothing back, so the writes it covered die with a cut until a later flush really happens
 * (lost after a completed flush). Writes and the other flushes pass through.
 *
 * Parameter: flushlag-ms=N (default 50). Built by the lab against Debian's nbdkit-plugin-dev
 * header:  cc -shared -fPIC -o nbdkit-flushlag-filter.so nbdkit-flushlag-filter.c
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <nbdkit-filter.h>

static uint64_t lag_ns = 50ull * 1000 * 1000, last_ns;

static uint64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static int flushlag_config(nbdkit_next_config* next, nbdkit_backend* nxdata, const char* key,
                           const char* value) {
  if (strcmp(key, "flushlag-ms") == 0) {
    char* end;
    const unsigned long ms = strtoul(value, &end, 10);
    if (*end || ms == 0) {
      nbdkit_error("flushlag-ms=%s: a positive number of milliseconds", value);
      return -1;
    }
    lag_ns = (uint64_t)ms * 1000 * 1000;
    return 0;
  }
  return next(nxdata, key, value);
}

static int flushlag_thread_model(void) {
  return NBDKIT_THREAD_MODEL_SERIALIZE_ALL_REQUESTS;
}

static int flushlag_flush(nbdkit_next* next, void* handle, uint32_t flags, int* err) {
  (void)handle;
  const uint64_t now = now_ns();
  const int early = last_ns != 0 && now - last_ns < lag_ns;
  last_ns = now;
  if (early) return 0; /* acknowledged, nothing written back */
  return next->flush(next, flags, err);
}

static struct nbdkit_filter filter = {
    .name = "flushlag",
    .longname = "storqual lab: a flush within N ms of the last acknowledged and not done",
    .config = flushlag_config,
    .config_help = "flushlag-ms=N  a flush this soon after the last is acknowledged early (50)",
    .thread_model = flushlag_thread_model,
    .flush = flushlag_flush,
};

NBDKIT_REGISTER_FILTER(filter)
