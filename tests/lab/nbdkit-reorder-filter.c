/* SPDX-License-Identifier: Apache-2.0
 * The power-cut lab's `reorder` device (tests/lab/powercut_lab.py): an nbdkit filter that models a
 * drive whose volatile write cache destages in its own order and lies about durability. Every
 * write is acknowledged into an in-memory cache of 4 KiB blocks; when the cache is full, a block
 * chosen at random is written back to the plugin below (the medium) to make room; FLUSH returns
 * success without writing anything back and the FUA flag is ignored. A power cut (SIGKILL) loses
 * whatever the cache held, so after the cut some early writes that a flush covered are missing
 * while later writes that happened to be destaged are present: unserializable writes, the class
 * of "Understanding the Robustness of SSDs under Power Fault" (Zheng et al., FAST '13).
 *
 * Parameters: reorder-blocks=N (cache size in 4 KiB blocks, default 256), reorder-seed=S (the
 * destage order's seed, default from the clock). Built by the lab against Debian's
 * nbdkit-plugin-dev header:  cc -shared -fPIC -o nbdkit-reorder-filter.so nbdkit-reorder-filter.c
 * Zero and trim are not offered (the client writes zeroes itself), so every change of the medium
 * goes through the cache. A clean disconnect writes the whole cache back (a drive with power).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <nbdkit-filter.h>

#define BLOCK 4096

struct slot {
  uint64_t block;
  unsigned char data[BLOCK];
};

static struct slot* slots;
static unsigned capacity = 256, used;
static uint64_t rng;

static uint64_t next_random(void) {
  /* xorshift64 */
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

static int reorder_config(nbdkit_next_config* next, nbdkit_backend* nxdata, const char* key,
                          const char* value) {
  if (strcmp(key, "reorder-blocks") == 0) {
    char* end;
    unsigned long n = strtoul(value, &end, 10);
    if (*end || n == 0 || n > 1u << 20) {
      nbdkit_error("reorder-blocks=%s: a number of 4 KiB blocks, 1 to 1048576", value);
      return -1;
    }
    capacity = (unsigned)n;
    return 0;
  }
  if (strcmp(key, "reorder-seed") == 0) {
    char* end;
    rng = strtoull(value, &end, 10);
    if (*end || rng == 0) {
      nbdkit_error("reorder-seed=%s: a positive number", value);
      return -1;
    }
    return 0;
  }
  return next(nxdata, key, value);
}

static int reorder_get_ready(int thread_model) {
  (void)thread_model;
  slots = calloc(capacity, sizeof *slots);
  if (!slots) {
    nbdkit_error("reorder: no memory for %u blocks", capacity);
    return -1;
  }
  if (rng == 0) rng = (uint64_t)time(NULL) * 2654435761u | 1;
  nbdkit_debug("reorder: %u blocks, seed %llu", capacity, (unsigned long long)rng);
  return 0;
}

static void reorder_unload(void) {
  free(slots);
}

static int reorder_thread_model(void) {
  return NBDKIT_THREAD_MODEL_SERIALIZE_ALL_REQUESTS;
}

static int reorder_can_flush(nbdkit_next* next, void* handle) {
  return 1;
}
static int reorder_can_fua(nbdkit_next* next, void* handle) {
  return NBDKIT_FUA_NATIVE;
}
static int reorder_can_trim(nbdkit_next* next, void* handle) {
  return 0;
}
static int reorder_can_zero(nbdkit_next* next, void* handle) {
  return NBDKIT_ZERO_NONE;
}
static int reorder_can_fast_zero(nbdkit_next* next, void* handle) {
  return 0;
}
static int reorder_can_extents(nbdkit_next* next, void* handle) {
  return 0;
}
static int reorder_can_cache(nbdkit_next* next, void* handle) {
  return NBDKIT_CACHE_NONE;
}
static int reorder_can_multi_conn(nbdkit_next* next, void* handle) {
  return 0;
}

static struct slot* find(uint64_t block) {
  for (unsigned i = 0; i < used; ++i)
    if (slots[i].block == block) return &slots[i];
  return NULL;
}

static int destage(nbdkit_next* next, unsigned i, int* err) {
  if (next->pwrite(next, slots[i].data, BLOCK, slots[i].block * BLOCK, 0, err) == -1) return -1;
  slots[i] = slots[--used];
  return 0;
}

/* The cached block `block`, read from the medium into a free slot when absent (destaging a random
 * block first when the cache is full). */
static struct slot* cached(nbdkit_next* next, uint64_t block, int* err) {
  struct slot* s = find(block);
  if (s) return s;
  if (used == capacity && destage(next, (unsigned)(next_random() % used), err) == -1) return NULL;
  s = &slots[used];
  if (next->pread(next, s->data, BLOCK, block * BLOCK, 0, err) == -1) return NULL;
  s->block = block;
  ++used;
  return s;
}

static int reorder_pread(nbdkit_next* next, void* handle, void* buf, uint32_t count,
                         uint64_t offset, uint32_t flags, int* err) {
  unsigned char* out = buf;
  while (count > 0) {
    const uint64_t block = offset / BLOCK;
    const uint32_t within = offset % BLOCK;
    const uint32_t n = count < BLOCK - within ? count : BLOCK - within;
    const struct slot* s = find(block);
    if (s)
      memcpy(out, s->data + within, n);
    else if (next->pread(next, out, n, offset, 0, err) == -1)
      return -1;
    out += n;
    offset += n;
    count -= n;
  }
  return 0;
}

static int reorder_pwrite(nbdkit_next* next, void* handle, const void* buf, uint32_t count,
                          uint64_t offset, uint32_t flags, int* err) {
  const unsigned char* in = buf;
  (void)flags; /* FUA acknowledged, not honoured: the lie */
  while (count > 0) {
    const uint64_t block = offset / BLOCK;
    const uint32_t within = offset % BLOCK;
    const uint32_t n = count < BLOCK - within ? count : BLOCK - within;
    struct slot* s = cached(next, block, err);
    if (!s) return -1;
    memcpy(s->data + within, in, n);
    in += n;
    offset += n;
    count -= n;
  }
  return 0;
}

/* Success, nothing written back: the lie. */
static int reorder_flush(nbdkit_next* next, void* handle, uint32_t flags, int* err) {
  return 0;
}

/* A clean disconnect: the drive keeps power, the cache reaches the medium. */
static int reorder_finalize(nbdkit_next* next, void* handle) {
  int err = 0;
  while (used > 0)
    if (destage(next, used - 1, &err) == -1) {
      nbdkit_error("reorder: writing the cache back failed: %s", strerror(err));
      return -1;
    }
  return next->flush(next, 0, &err);
}

static struct nbdkit_filter filter = {
    .name = "reorder",
    .longname = "storqual lab: write-back cache destaged in random order, flush and FUA ignored",
    .config = reorder_config,
    .config_help =
        "reorder-blocks=N  cache size in 4 KiB blocks (default 256)\n"
        "reorder-seed=S    destage order's seed (default: the clock)",
    .thread_model = reorder_thread_model,
    .get_ready = reorder_get_ready,
    .unload = reorder_unload,
    .finalize = reorder_finalize,
    .can_flush = reorder_can_flush,
    .can_fua = reorder_can_fua,
    .can_trim = reorder_can_trim,
    .can_zero = reorder_can_zero,
    .can_fast_zero = reorder_can_fast_zero,
    .can_extents = reorder_can_extents,
    .can_cache = reorder_can_cache,
    .can_multi_conn = reorder_can_multi_conn,
    .pread = reorder_pread,
    .pwrite = reorder_pwrite,
    .flush = reorder_flush,
};

NBDKIT_REGISTER_FILTER(filter)
