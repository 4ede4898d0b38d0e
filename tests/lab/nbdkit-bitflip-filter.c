/* SPDX-License-Identifier: Apache-2.0
 * The power-cut lab's `bitflip` device (tests/lab/powercut_lab.py): an nbdkit filter that models a
 * drive whose media corrupts what it stores. Writes, flushes and FUA pass through honestly (it
 * loses nothing acknowledged), but every Nth write request reaches the plugin below with one bit
 * of its first sector inverted (byte 200: inside the payload of the sub-record storqual writes
 * there, so the record's magic and ids stay readable and its checksum does not match): bit
 * corruption, the first class of "Understanding the Robustness of SSDs under Power Fault"
 * (Zheng et al., FAST '13).
 *
 * Parameter: bitflip-every=N (default 64). Built by the lab against Debian's nbdkit-plugin-dev
 * header:  cc -shared -fPIC -o nbdkit-bitflip-filter.so nbdkit-bitflip-filter.c
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <nbdkit-filter.h>

#define FLIP_BYTE 200

static unsigned long every = 64, seen;

static int bitflip_config(nbdkit_next_config* next, nbdkit_backend* nxdata, const char* key,
                          const char* value) {
  if (strcmp(key, "bitflip-every") == 0) {
    char* end;
    every = strtoul(value, &end, 10);
    if (*end || every == 0) {
      nbdkit_error("bitflip-every=%s: a positive number of write requests", value);
      return -1;
    }
    return 0;
  }
  return next(nxdata, key, value);
}

static int bitflip_thread_model(void) {
  return NBDKIT_THREAD_MODEL_SERIALIZE_ALL_REQUESTS;
}

static int bitflip_pwrite(nbdkit_next* next, void* handle, const void* buf, uint32_t count,
                          uint64_t offset, uint32_t flags, int* err) {
  if (++seen % every != 0 || count <= FLIP_BYTE)
    return next->pwrite(next, buf, count, offset, flags, err);
  unsigned char* copy = malloc(count);
  if (!copy) {
    *err = ENOMEM;
    return -1;
  }
  memcpy(copy, buf, count);
  copy[FLIP_BYTE] ^= 0x10;
  const int r = next->pwrite(next, copy, count, offset, flags, err);
  free(copy);
  return r;
}

static struct nbdkit_filter filter = {
    .name = "bitflip",
    .longname = "storqual lab: one bit inverted in every Nth write request",
    .config = bitflip_config,
    .config_help = "bitflip-every=N  invert a bit of every Nth write request (default 64)",
    .thread_model = bitflip_thread_model,
    .pwrite = bitflip_pwrite,
};

NBDKIT_REGISTER_FILTER(filter)
