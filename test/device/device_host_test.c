/* Host unit test of the device primitive library (runtime/device/ccl_device.c
 * compiled natively): chunk and scratch math, copy, LL16 packets between two
 * threads for every dtype and op, epoch handling, timeout and abort, and the
 * f16/bf16 conversions. Plain asserts; prints "PASS" at the end. */
#define _GNU_SOURCE
#include <assert.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "runtime/device/ccl_device.h"

/* Not in ccl_device.h: host-only and test helpers defined by the library. */
void __ccl_host_set_block(uint32_t block);
uint16_t __ccl_f32_to_f16(float f);
float __ccl_f16_to_f32(uint16_t h);
uint16_t __ccl_f32_to_bf16(float f);
float __ccl_bf16_to_f32(uint16_t h);

#define CHECK(c)                                                               \
  do {                                                                         \
    if (!(c)) {                                                                \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #c);    \
      abort();                                                                 \
    }                                                                          \
  } while (0)

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}
static void sleep_ms(int ms) { usleep(ms * 1000); }

static uint32_t f2u(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}
static float u2f(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint32_t rnd(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return (uint32_t)(rng_state >> 16);
}
/* Uniform in [lo, hi). */
static float rndf(float lo, float hi) {
  return lo + (hi - lo) * (float)(rnd() & 0xffffff) / 16777216.0f;
}

/* ---------------------------------------------------------------------- */
/* Context                                                                 */
/* ---------------------------------------------------------------------- */

typedef struct test_ctx {
  ccl_dev_ctx ctx;
  uint32_t epoch[8]; /* one per block */
  volatile uint32_t abort_flag;
  ccl_error_record err;
  void *scratch[16];
  /* Simple-protocol counters: 8 channels, 4 semaphores, 4 barriers. */
  uint64_t signal[8];
  uint64_t *signal_ptr[8];
  uint64_t consumed[8];
  uint64_t sem[8];
  uint64_t barrier[4];
} test_ctx;

static void ctx_init(test_ctx *t, uint32_t rank, uint32_t nranks,
                     uint32_t nblocks, uint64_t timeout_ns) {
  memset(t, 0, sizeof *t);
  t->ctx.rank = rank;
  t->ctx.nranks = nranks;
  t->ctx.nblocks = nblocks;
  t->ctx.num_scratch = 0;
  t->ctx.timeout_ns = timeout_ns;
  t->ctx.epoch = t->epoch;
  t->ctx.abort_flag = &t->abort_flag;
  t->ctx.error = &t->err;
  t->ctx.scratch = t->scratch;
  t->ctx.num_channels = 8;
  t->ctx.num_semaphores = 4;
  t->ctx.num_barriers = 4;
  for (int c = 0; c < 8; c++)
    t->signal_ptr[c] = &t->signal[c];
  t->ctx.signal = t->signal_ptr;
  t->ctx.consumed = t->consumed;
  t->ctx.sem = t->sem;
  t->ctx.barrier = t->barrier;
}

/* ---------------------------------------------------------------------- */
/* Chunk math                                                              */
/* ---------------------------------------------------------------------- */

static void test_chunks(void) {
  static char base[1024];
  for (uint64_t n = 0; n <= 70; n++) {
    for (uint32_t k = 1; k <= 11; k++) {
      uint64_t total = 0;
      for (uint32_t i = 0; i <= k; i++) {
        uint64_t start = (uint64_t)i * n / k;
        for (uint32_t es = 1; es <= 4; es *= 2)
          CHECK(__ccl_chunk_ptr(base, n, es, i, k) == base + start * es);
        if (i == k)
          break;
        uint64_t e = __ccl_chunk_elems(n, i, 1, k);
        CHECK(e == ((uint64_t)(i + 1) * n / k) - start);
        CHECK(e == n / k || e == n / k + 1);
        if (n < k)
          CHECK(e <= 1);
        total += e;
        for (uint32_t m = 0; i + m <= k; m++)
          CHECK(__ccl_chunk_elems(n, i, m, k) ==
                ((uint64_t)(i + m) * n / k) - start);
      }
      CHECK(total == n);
      CHECK(__ccl_chunk_elems(n, 0, k, k) == n);
    }
  }
  /* Empty chunks: 3 elements in 8 chunks. */
  CHECK(__ccl_chunk_elems(3, 0, 1, 8) == 0);
  CHECK(__ccl_chunk_elems(3, 2, 1, 8) == 1);
  CHECK(__ccl_chunk_elems(3, 3, 1, 8) == 0);
  CHECK(__ccl_chunk_elems(0, 0, 8, 8) == 0);
  /* 10 elements in 3 chunks: [0,3) [3,6) [6,10). */
  CHECK(__ccl_chunk_elems(10, 0, 1, 3) == 3);
  CHECK(__ccl_chunk_elems(10, 1, 1, 3) == 3);
  CHECK(__ccl_chunk_elems(10, 2, 1, 3) == 4);
  CHECK(__ccl_chunk_ptr(base, 10, 4, 2, 3) == base + 24);
  /* Large counts: i * n overflows 64 bits, the result must not. */
  uint64_t big = (1ull << 62) + 12345;
  for (uint32_t k = 1; k < 40; k += 3)
    for (uint32_t i = 0; i <= k; i++) {
      unsigned __int128 s = (unsigned __int128)i * big / k;
      CHECK(__ccl_chunk_elems(big, 0, i, k) == (uint64_t)s);
    }
}

/* ---------------------------------------------------------------------- */
/* Scratch layout                                                          */
/* ---------------------------------------------------------------------- */

static void test_scratch(void) {
  test_ctx t;
  ctx_init(&t, 1, 3, 1, 0);
  static char mem[6][1 << 16];
  for (int i = 0; i < 6; i++)
    t.scratch[i] = mem[i];
  t.ctx.num_scratch = 2;
  for (uint32_t buf = 0; buf < 2; buf++)
    for (uint32_t rank = 0; rank < 3; rank++) {
      char *b = mem[buf * 3 + rank];
      /* Simple: 10 f32 elements, 4 chunks -> unit 3 elements = 12 bytes. */
      for (uint32_t slot = 0; slot < 5; slot++)
        for (uint32_t ep = 0; ep < 3; ep++)
          CHECK(__ccl_scratch_ptr(&t.ctx, buf, rank, slot, 5, 10, 4, 4, ep,
                                  0) == b + slot * 12);
      /* Packets: unit 3 f32 = 12 bytes -> 2 packets = 32 bytes per slot;
       * odd epochs use the second half (5 slots further). */
      for (uint32_t slot = 0; slot < 5; slot++) {
        CHECK(__ccl_scratch_ptr(&t.ctx, buf, rank, slot, 5, 10, 4, 4, 0, 1) ==
              b + slot * 32);
        CHECK(__ccl_scratch_ptr(&t.ctx, buf, rank, slot, 5, 10, 4, 4, 2, 1) ==
              b + slot * 32);
        CHECK(__ccl_scratch_ptr(&t.ctx, buf, rank, slot, 5, 10, 4, 4, 1, 1) ==
              b + 5 * 32 + slot * 32);
        CHECK(__ccl_scratch_ptr(&t.ctx, buf, rank, slot, 5, 10, 4, 4, 7, 1) ==
              b + 5 * 32 + slot * 32);
      }
      /* f16, 7 elements, 2 chunks: unit 4 elements = 8 bytes -> 16 bytes. */
      CHECK(__ccl_scratch_ptr(&t.ctx, buf, rank, 3, 4, 7, 2, 2, 1, 1) ==
            b + 4 * 16 + 3 * 16);
      /* f16, 5 elements, 1 chunk: 10 bytes -> 2 packets = 32 bytes. */
      CHECK(__ccl_scratch_ptr(&t.ctx, buf, rank, 1, 2, 5, 1, 2, 1, 1) ==
            b + 2 * 32 + 32);
      CHECK(__ccl_scratch_ptr(&t.ctx, buf, rank, 1, 2, 5, 1, 2, 1, 0) ==
            b + 10);
      /* Fewer elements than chunks: unit 1 element. */
      CHECK(__ccl_scratch_ptr(&t.ctx, buf, rank, 2, 3, 2, 8, 4, 0, 0) ==
            b + 8);
      CHECK(__ccl_scratch_ptr(&t.ctx, buf, rank, 2, 3, 2, 8, 4, 1, 1) ==
            b + 3 * 16 + 2 * 16);
    }
}

/* ---------------------------------------------------------------------- */
/* Guarded buffers                                                         */
/* ---------------------------------------------------------------------- */

/* `nbytes` readable bytes ending exactly at a PROT_NONE page. */
typedef struct guarded {
  char *map;
  size_t maplen;
  char *p;
} guarded;

static guarded guarded_alloc(size_t nbytes) {
  long pg = sysconf(_SC_PAGESIZE);
  size_t data_pages = (nbytes + pg - 1) / pg;
  if (data_pages == 0)
    data_pages = 1;
  guarded g;
  g.maplen = (data_pages + 1) * pg;
  g.map = mmap(NULL, g.maplen, PROT_READ | PROT_WRITE,
               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(g.map != MAP_FAILED);
  CHECK(mprotect(g.map + data_pages * pg, pg, PROT_NONE) == 0);
  g.p = g.map + data_pages * pg - nbytes;
  return g;
}
static void guarded_free(guarded g) { munmap(g.map, g.maplen); }

#define GUARD 64
#define GUARD_BYTE 0xA5

/* 16-byte aligned buffer of n bytes followed by GUARD guard bytes. */
static char *buf_alloc(size_t n) {
  char *p = aligned_alloc(16, (n + GUARD + 15) / 16 * 16);
  CHECK(p);
  memset(p + n, GUARD_BYTE, GUARD);
  return p;
}
static void buf_check_guard(const char *p, size_t n) {
  for (size_t i = 0; i < GUARD; i++)
    CHECK((unsigned char)p[n + i] == GUARD_BYTE);
}

/* ---------------------------------------------------------------------- */
/* Copy and local reduce                                                   */
/* ---------------------------------------------------------------------- */

static void test_copy(void) {
  for (size_t n = 0; n <= 100; n++)
    for (size_t so = 0; so < 16; so += 1)
      for (size_t doff = 0; doff < 16; doff += (so == 0 ? 1 : 4)) {
        guarded src = guarded_alloc(n + so);
        char *s = src.p + so;
        /* Align the guarded source by shifting within its page. */
        for (size_t i = 0; i < n; i++)
          s[i] = (char)rnd();
        char *d = buf_alloc(doff + n);
        memset(d, 0x11, doff);
        __ccl_copy(d + doff, s, n);
        CHECK(memcmp(d + doff, s, n) == 0);
        for (size_t i = 0; i < doff; i++)
          CHECK(d[i] == 0x11);
        buf_check_guard(d, doff + n);
        free(d);
        guarded_free(src);
      }
}

/* copy_fwd writes the same bytes to dst and fwd, whatever their alignment
 * (16-byte vectors when all three pointers allow, two copies otherwise),
 * and nothing outside either range. */
static void test_copy_fwd(void) {
  for (size_t n = 0; n <= 100; n++)
    for (size_t foff = 0; foff < 16; foff += 4)
      for (size_t doff = 0; doff < 16; doff += 8) {
        guarded src = guarded_alloc(n);
        for (size_t i = 0; i < n; i++)
          src.p[i] = (char)rnd();
        char *d = buf_alloc(doff + n), *f = buf_alloc(foff + n);
        memset(d, 0x11, doff);
        memset(f, 0x22, foff);
        __ccl_copy_fwd(d + doff, f + foff, src.p, n);
        CHECK(memcmp(d + doff, src.p, n) == 0);
        CHECK(memcmp(f + foff, src.p, n) == 0);
        for (size_t i = 0; i < doff; i++)
          CHECK(d[i] == 0x11);
        for (size_t i = 0; i < foff; i++)
          CHECK(f[i] == 0x22);
        buf_check_guard(d, doff + n);
        buf_check_guard(f, foff + n);
        free(d);
        free(f);
        guarded_free(src);
      }
}

/* ---------------------------------------------------------------------- */
/* Reference element types (independent of the library).                  */
/* ---------------------------------------------------------------------- */

enum { DT_F32, DT_F16, DT_BF16 };
enum { OP_SUM, OP_PROD, OP_MAX, OP_MIN };
static const uint32_t esize_of[3] = {4, 2, 2};
static const char *dt_name[3] = {"f32", "f16", "bf16"};
static const char *op_name[4] = {"sum", "prod", "max", "min"};

static uint16_t ref_f32_to_f16(float f) {
  _Float16 h = (_Float16)f;
  uint16_t u;
  memcpy(&u, &h, 2);
  return u;
}
static float ref_f16_to_f32(uint16_t u) {
  _Float16 h;
  memcpy(&h, &u, 2);
  return (float)h;
}
/* bf16 by brute force: the nearest of the two neighbours, ties to even. */
static uint16_t ref_f32_to_bf16(float f) {
  uint32_t x = f2u(f);
  if (isnan(f))
    return (uint16_t)((x >> 16) | 0x40);
  uint16_t lo = (uint16_t)(x >> 16);
  if ((x & 0xffff) == 0)
    return lo;
  uint16_t hi = (uint16_t)(lo + 1); /* next magnitude */
  double dl = fabs((double)u2f((uint32_t)lo << 16) - (double)f);
  double dh;
  if (((uint32_t)hi << 16 & 0x7fffffffu) == 0x7f800000u)
    dh = fabs(ldexp(1.0, 128) - fabs((double)f)); /* rounding to infinity */
  else
    dh = fabs((double)u2f((uint32_t)hi << 16) - (double)f);
  if (dl < dh)
    return lo;
  if (dh < dl)
    return hi;
  return (lo & 1) ? hi : lo;
}
static float ref_bf16_to_f32(uint16_t u) { return u2f((uint32_t)u << 16); }

static float ref_ld(int dt, const char *p) {
  uint16_t h;
  switch (dt) {
  case DT_F32: {
    float f;
    memcpy(&f, p, 4);
    return f;
  }
  case DT_F16:
    memcpy(&h, p, 2);
    return ref_f16_to_f32(h);
  default:
    memcpy(&h, p, 2);
    return ref_bf16_to_f32(h);
  }
}
static void ref_st(int dt, char *p, float v) {
  uint16_t h;
  switch (dt) {
  case DT_F32:
    memcpy(p, &v, 4);
    break;
  case DT_F16:
    h = ref_f32_to_f16(v);
    memcpy(p, &h, 2);
    break;
  default:
    h = ref_f32_to_bf16(v);
    memcpy(p, &h, 2);
    break;
  }
}
static float ref_op(int op, float a, float b) {
  switch (op) {
  case OP_SUM:
    return a + b;
  case OP_PROD:
    return a * b;
  case OP_MAX:
    return fmaxf(a, b);
  default:
    return fminf(a, b);
  }
}

typedef void (*reduce_packets_fn)(const ccl_dev_ctx *, char *, const char *,
                                  uint64_t, uint32_t, uint32_t);
typedef void (*reduce_fn)(char *, const char *, uint64_t);

static reduce_packets_fn reduce_packets_fns[3][4] = {
    {__ccl_reduce_packets_f32_sum, __ccl_reduce_packets_f32_prod,
     __ccl_reduce_packets_f32_max, __ccl_reduce_packets_f32_min},
    {__ccl_reduce_packets_f16_sum, __ccl_reduce_packets_f16_prod,
     __ccl_reduce_packets_f16_max, __ccl_reduce_packets_f16_min},
    {__ccl_reduce_packets_bf16_sum, __ccl_reduce_packets_bf16_prod,
     __ccl_reduce_packets_bf16_max, __ccl_reduce_packets_bf16_min},
};
static reduce_fn reduce_fns[3][4] = {
    {__ccl_reduce_f32_sum, __ccl_reduce_f32_prod, __ccl_reduce_f32_max,
     __ccl_reduce_f32_min},
    {__ccl_reduce_f16_sum, __ccl_reduce_f16_prod, __ccl_reduce_f16_max,
     __ccl_reduce_f16_min},
    {__ccl_reduce_bf16_sum, __ccl_reduce_bf16_prod, __ccl_reduce_bf16_max,
     __ccl_reduce_bf16_min},
};

/* Random element values of dtype dt (exactly representable). */
static void fill_random(int dt, int op, char *p, uint64_t n) {
  for (uint64_t i = 0; i < n; i++) {
    float v = op == OP_PROD ? rndf(0.5f, 2.0f) : rndf(-100.0f, 100.0f);
    if (op >= OP_MAX && (rnd() % 9) == 0)
      v = NAN; /* maxNum/minNum ignore a NaN operand */
    ref_st(dt, p + i * esize_of[dt], v);
  }
}

static void test_local_reduce(void) {
  for (int dt = 0; dt < 3; dt++)
    for (int op = 0; op < 4; op++)
      for (uint64_t n = 0; n <= 67; n++) {
        uint32_t es = esize_of[dt];
        guarded src = guarded_alloc(n * es);
        char *dst = buf_alloc(n * es), *want = malloc(n * es + 1);
        fill_random(dt, op, src.p, n);
        fill_random(dt, op, dst, n);
        for (uint64_t i = 0; i < n; i++)
          ref_st(dt, want + i * es,
                 ref_op(op, ref_ld(dt, dst + i * es), ref_ld(dt, src.p + i * es)));
        reduce_fns[dt][op](dst, src.p, n);
        for (uint64_t i = 0; i < n; i++) {
          float a = ref_ld(dt, dst + i * es), b = ref_ld(dt, want + i * es);
          CHECK(memcmp(dst + i * es, want + i * es, es) == 0 ||
                (isnan(a) && isnan(b)));
        }
        buf_check_guard(dst, n * es);
        free(dst);
        free(want);
        guarded_free(src);
      }
}

typedef void (*reduce_fwd_fn)(char *, const char *, char *, uint64_t);
static reduce_fwd_fn reduce_fwd_fns[3][4] = {
    {__ccl_reduce_fwd_f32_sum, __ccl_reduce_fwd_f32_prod,
     __ccl_reduce_fwd_f32_max, __ccl_reduce_fwd_f32_min},
    {__ccl_reduce_fwd_f16_sum, __ccl_reduce_fwd_f16_prod,
     __ccl_reduce_fwd_f16_max, __ccl_reduce_fwd_f16_min},
    {__ccl_reduce_fwd_bf16_sum, __ccl_reduce_fwd_bf16_prod,
     __ccl_reduce_fwd_bf16_max, __ccl_reduce_fwd_bf16_min},
};

/* reduce_fwd leaves dst as reduce does and the same result in fwd, for an
 * aligned fwd (vector path) and a misaligned one (element path). */
static void test_reduce_fwd(void) {
  for (int dt = 0; dt < 3; dt++)
    for (int op = 0; op < 4; op++)
      for (uint64_t n = 0; n <= 67; n++)
        for (size_t foff = 0; foff <= 4; foff += 4) {
          uint32_t es = esize_of[dt];
          char *src = buf_alloc(n * es), *dst = buf_alloc(n * es);
          char *f = buf_alloc(foff + n * es), *want = malloc(n * es + 1);
          fill_random(dt, op, src, n);
          fill_random(dt, op, dst, n);
          memset(f, 0x33, foff);
          for (uint64_t i = 0; i < n; i++)
            ref_st(dt, want + i * es,
                   ref_op(op, ref_ld(dt, dst + i * es), ref_ld(dt, src + i * es)));
          reduce_fwd_fns[dt][op](dst, src, f + foff, n);
          for (uint64_t i = 0; i < n; i++) {
            float a = ref_ld(dt, dst + i * es), b = ref_ld(dt, want + i * es);
            CHECK(memcmp(dst + i * es, want + i * es, es) == 0 ||
                  (isnan(a) && isnan(b)));
            CHECK(memcmp(f + foff + i * es, dst + i * es, es) == 0);
          }
          for (size_t i = 0; i < foff; i++)
            CHECK(f[i] == 0x33);
          buf_check_guard(dst, n * es);
          buf_check_guard(f, foff + n * es);
          free(src);
          free(dst);
          free(f);
          free(want);
        }
}

typedef void (*reduce_base_fn)(char *, const char *, const char *, char *,
                               uint64_t);
static reduce_base_fn reduce_base_fns[3][4] = {
    {__ccl_reduce_base_f32_sum, __ccl_reduce_base_f32_prod,
     __ccl_reduce_base_f32_max, __ccl_reduce_base_f32_min},
    {__ccl_reduce_base_f16_sum, __ccl_reduce_base_f16_prod,
     __ccl_reduce_base_f16_max, __ccl_reduce_base_f16_min},
    {__ccl_reduce_base_bf16_sum, __ccl_reduce_base_bf16_prod,
     __ccl_reduce_base_bf16_max, __ccl_reduce_base_bf16_min},
};

/* reduce_base writes base OP src into dst without reading dst (filled
 * with a poison first), and into fwd unless it is NULL; base misaligned by
 * 4 bytes takes the element path; base == dst is the in-place form, which
 * is what reduce gives. */
static void test_reduce_base(void) {
  for (int dt = 0; dt < 3; dt++)
    for (int op = 0; op < 4; op++)
      for (uint64_t n = 0; n <= 67; n++)
        for (int mode = 0; mode < 4; mode++) {
          /* mode 0: aligned, no fwd; 1: aligned, fwd; 2: base misaligned,
           * fwd; 3: base == dst. */
          uint32_t es = esize_of[dt];
          size_t boff = mode == 2 ? 4 : 0;
          char *src = buf_alloc(n * es), *dst = buf_alloc(n * es);
          char *b = buf_alloc(boff + n * es), *f = buf_alloc(n * es);
          char *want = malloc(n * es + 1);
          char *base = mode == 3 ? dst : b + boff;
          fill_random(dt, op, src, n);
          fill_random(dt, op, base, n);
          if (mode != 3)
            memset(dst, 0x7f, n * es);
          for (uint64_t i = 0; i < n; i++)
            ref_st(dt, want + i * es,
                   ref_op(op, ref_ld(dt, base + i * es),
                          ref_ld(dt, src + i * es)));
          reduce_base_fns[dt][op](dst, base, src, mode == 0 ? NULL : f, n);
          for (uint64_t i = 0; i < n; i++) {
            float x = ref_ld(dt, dst + i * es), y = ref_ld(dt, want + i * es);
            CHECK(memcmp(dst + i * es, want + i * es, es) == 0 ||
                  (isnan(x) && isnan(y)));
            if (mode != 0)
              CHECK(memcmp(f + i * es, dst + i * es, es) == 0);
          }
          buf_check_guard(dst, n * es);
          buf_check_guard(b, boff + n * es);
          buf_check_guard(f, n * es);
          free(src);
          free(dst);
          free(b);
          free(f);
          free(want);
        }
}

/* ---------------------------------------------------------------------- */
/* Packets between two threads                                             */
/* ---------------------------------------------------------------------- */

typedef struct writer_arg {
  char *pkts;
  const char *src;
  uint64_t nbytes;
  uint32_t flag;
  int delay_ms;
} writer_arg;

static void *writer_main(void *p) {
  writer_arg *a = p;
  if (a->delay_ms)
    sleep_ms(a->delay_ms);
  __ccl_put_packets(a->pkts, a->src, a->nbytes, a->flag);
  return NULL;
}

/* Fills npkts packets with a stale flag and junk data. */
static void fill_stale(char *pkts, uint64_t npkts, uint32_t stale) {
  for (uint64_t i = 0; i < npkts; i++) {
    uint32_t w[4] = {rnd(), stale, rnd(), stale};
    memcpy(pkts + 16 * i, w, 16);
  }
}

/* Checks what put_packets wrote: the payload, zero padding, both flags. */
static void check_packets(const char *pkts, const char *src, uint64_t nbytes,
                          uint32_t flag) {
  uint64_t npkts = (nbytes + 7) / 8;
  for (uint64_t i = 0; i < npkts; i++) {
    uint32_t w[4];
    memcpy(w, pkts + 16 * i, 16);
    CHECK(w[1] == flag && w[3] == flag);
    unsigned char payload[8];
    memcpy(payload, &w[0], 4);
    memcpy(payload + 4, &w[2], 4);
    for (uint64_t b = 0; b < 8; b++) {
      uint64_t off = i * 8 + b;
      CHECK(payload[b] == (off < nbytes ? (unsigned char)src[off] : 0));
    }
  }
}

static void test_unpack(void) {
  test_ctx t;
  ctx_init(&t, 0, 1, 1, 0);
  for (uint64_t nbytes = 0; nbytes <= 67 * 4; nbytes++) {
    for (int mis = 0; mis < 2; mis++) {
      uint64_t npkts = (nbytes + 7) / 8;
      guarded src = guarded_alloc(nbytes); /* ends at the guard page */
      for (uint64_t i = 0; i < nbytes; i++)
        src.p[i] = (char)rnd();
      char *pkts = buf_alloc(npkts * 16);
      fill_stale(pkts, npkts, 41);
      char *dst = buf_alloc(nbytes + mis);
      writer_arg wa = {pkts, src.p, nbytes, 42, (nbytes % 5 == 0) ? 1 : 0};
      pthread_t th;
      CHECK(pthread_create(&th, NULL, writer_main, &wa) == 0);
      __ccl_unpack_packets(&t.ctx, dst + mis, pkts, nbytes, 42, 0);
      CHECK(pthread_join(th, NULL) == 0);
      CHECK(memcmp(dst + mis, src.p, nbytes) == 0);
      buf_check_guard(dst, nbytes + mis);
      buf_check_guard(pkts, npkts * 16);
      check_packets(pkts, src.p, nbytes, 42);
      CHECK(t.abort_flag == 0 && t.err.state == 0);
      free(dst);
      free(pkts);
      guarded_free(src);
    }
  }
}

static void test_reduce_packets(void) {
  test_ctx t;
  ctx_init(&t, 0, 1, 1, 0);
  for (int dt = 0; dt < 3; dt++)
    for (int op = 0; op < 4; op++)
      for (uint64_t n = 1; n <= 67; n++) {
        uint32_t es = esize_of[dt];
        uint64_t nbytes = n * es, npkts = (nbytes + 7) / 8;
        guarded src = guarded_alloc(nbytes);
        char *dst = buf_alloc(nbytes), *want = malloc(nbytes);
        fill_random(dt, op, src.p, n);
        fill_random(dt, op, dst, n);
        for (uint64_t i = 0; i < n; i++)
          ref_st(dt, want + i * es,
                 ref_op(op, ref_ld(dt, dst + i * es),
                        ref_ld(dt, src.p + i * es)));
        char *pkts = buf_alloc(npkts * 16);
        uint32_t flag = 1000 + (uint32_t)n;
        fill_stale(pkts, npkts, flag - 1);
        writer_arg wa = {pkts, src.p, nbytes, flag, (n % 7 == 0) ? 1 : 0};
        pthread_t th;
        CHECK(pthread_create(&th, NULL, writer_main, &wa) == 0);
        reduce_packets_fns[dt][op](&t.ctx, dst, pkts, n, flag, 0);
        CHECK(pthread_join(th, NULL) == 0);
        for (uint64_t i = 0; i < n; i++) {
          float a = ref_ld(dt, dst + i * es), b = ref_ld(dt, want + i * es);
          if (!(memcmp(dst + i * es, want + i * es, es) == 0 ||
                (isnan(a) && isnan(b)))) {
            fprintf(stderr, "reduce_packets_%s_%s n=%lu i=%lu got %g want %g\n",
                    dt_name[dt], op_name[op], (unsigned long)n,
                    (unsigned long)i, a, b);
            CHECK(0);
          }
        }
        buf_check_guard(dst, nbytes);
        buf_check_guard(pkts, npkts * 16);
        check_packets(pkts, src.p, nbytes, flag);
        CHECK(t.abort_flag == 0 && t.err.state == 0);
        free(dst);
        free(want);
        free(pkts);
        guarded_free(src);
      }
}

/* ---------------------------------------------------------------------- */
/* Stale flags are not accepted                                            */
/* ---------------------------------------------------------------------- */

typedef struct reader_arg {
  test_ctx *t;
  char *dst;
  const char *pkts;
  uint64_t nbytes;
  uint32_t flag;
  uint32_t op_id;
  uint32_t block;
  volatile int done;
  uint64_t elapsed_ns;
} reader_arg;

static void *reader_main(void *p) {
  reader_arg *a = p;
  __ccl_host_set_block(a->block);
  uint64_t t0 = now_ns();
  __ccl_unpack_packets(&a->t->ctx, a->dst, a->pkts, a->nbytes, a->flag,
                       a->op_id);
  a->elapsed_ns = now_ns() - t0;
  __atomic_store_n(&a->done, 1, __ATOMIC_SEQ_CST);
  return NULL;
}

static void test_stale_flags(void) {
  test_ctx t;
  ctx_init(&t, 0, 1, 1, 0);
  enum { NB = 40, NP = 5 };
  char src[NB];
  for (int i = 0; i < NB; i++)
    src[i] = (char)(i + 1);
  char *pkts = buf_alloc(NP * 16);
  char dst[NB];
  memset(dst, 0, NB);
  /* Previous epoch's packets (flag 6) with valid-looking data. */
  __ccl_put_packets(pkts, src, NB, 6);
  reader_arg ra = {&t, dst, pkts, NB, 7, 0, 0, 0, 0};
  pthread_t th;
  CHECK(pthread_create(&th, NULL, reader_main, &ra) == 0);
  sleep_ms(30);
  CHECK(!__atomic_load_n(&ra.done, __ATOMIC_SEQ_CST));
  /* Torn packets: only one of the two flag words is current. */
  for (int i = 0; i < NP; i++) {
    uint32_t *w = (uint32_t *)(pkts + 16 * i);
    if (i % 2)
      __atomic_store_n(&w[1], 7, __ATOMIC_SEQ_CST);
    else
      __atomic_store_n(&w[3], 7, __ATOMIC_SEQ_CST);
  }
  sleep_ms(30);
  CHECK(!__atomic_load_n(&ra.done, __ATOMIC_SEQ_CST));
  /* A later epoch is not accepted either. */
  __ccl_put_packets(pkts, src, NB, 8);
  sleep_ms(20);
  CHECK(!__atomic_load_n(&ra.done, __ATOMIC_SEQ_CST));
  for (int i = 0; i < NB; i++)
    src[i] = (char)(100 + i);
  __ccl_put_packets(pkts, src, NB, 7);
  CHECK(pthread_join(th, NULL) == 0);
  CHECK(ra.done);
  CHECK(memcmp(dst, src, NB) == 0);
  CHECK(t.abort_flag == 0 && t.err.state == 0);
  free(pkts);
}

/* ---------------------------------------------------------------------- */
/* Timeout and abort                                                       */
/* ---------------------------------------------------------------------- */

static void test_timeout(void) {
  test_ctx t;
  ctx_init(&t, 3, 4, 2, 20 * 1000000ull); /* 20 ms */
  enum { NB = 24, NP = 3 };
  char *pkts = buf_alloc(NP * 16);
  fill_stale(pkts, NP, 5);
  char dst[NB];
  memset(dst, 0x5a, NB);

  /* Wait on packets that never come: times out, fills the record. */
  reader_arg ra = {&t, dst, pkts, NB, 6, 42, 7, 0, 0};
  pthread_t th;
  CHECK(pthread_create(&th, NULL, reader_main, &ra) == 0);
  CHECK(pthread_join(th, NULL) == 0);
  CHECK(t.abort_flag == 1);
  CHECK(t.err.state == CCL_ERR_TIMEOUT);
  CHECK(t.err.rank == 3);
  CHECK(t.err.block == 7);
  CHECK(t.err.op_id == 42);
  CHECK(t.err.expected == 6);
  CHECK(t.err.observed == 5);
  CHECK(t.err.waited_ns >= 20 * 1000000ull);
  CHECK(t.err.waited_ns < 2000 * 1000000ull);
  CHECK(ra.elapsed_ns >= 20 * 1000000ull && ra.elapsed_ns < 2000000000ull);
  for (int i = 0; i < NB; i++)
    CHECK((unsigned char)dst[i] == 0x5a); /* left as is */

  /* Abort raised: later waits return at once, even with no timeout. */
  t.ctx.timeout_ns = 0;
  uint64_t t0 = now_ns();
  __ccl_unpack_packets(&t.ctx, dst, pkts, NB, 6, 43);
  __ccl_reduce_packets_f32_sum(&t.ctx, dst, pkts, NB / 4, 6, 44);
  __ccl_reduce_packets_bf16_max(&t.ctx, dst, pkts, NB / 2, 6, 45);
  CHECK(now_ns() - t0 < 50 * 1000000ull);
  CHECK(t.err.op_id == 42);
  for (int i = 0; i < NB; i++)
    CHECK((unsigned char)dst[i] == 0x5a);

  /* The record is claimed once: a second timeout gives up its wait but
   * keeps the first record and leaves the abort flag to the thread that
   * wrote the record (the runtime reads the record once it sees the flag,
   * so a loser must not raise it before the winner's record is complete). */
  t.abort_flag = 0;
  t.ctx.timeout_ns = 5 * 1000000ull;
  ra = (reader_arg){&t, dst, pkts, NB, 9, 50, 1, 0, 0};
  CHECK(pthread_create(&th, NULL, reader_main, &ra) == 0);
  CHECK(pthread_join(th, NULL) == 0);
  CHECK(t.abort_flag == 0);
  CHECK(t.err.op_id == 42 && t.err.expected == 6 && t.err.block == 7);

  free(pkts);
}

static void *unset_block_reader(void *p) {
  test_ctx *t = p;
  char pk[16] = {0};
  char d[8];
  __ccl_unpack_packets(&t->ctx, d, pk, 8, 1, 77);
  return NULL;
}

static void test_timeout_unset_block(void) {
  test_ctx t;
  ctx_init(&t, 0, 1, 1, 2 * 1000000ull);
  pthread_t th;
  CHECK(pthread_create(&th, NULL, unset_block_reader, &t) == 0);
  CHECK(pthread_join(th, NULL) == 0);
  CHECK(t.abort_flag == 1 && t.err.state == CCL_ERR_TIMEOUT);
  CHECK(t.err.block == 0xFFFFFFFFu && t.err.op_id == 77 &&
        t.err.observed == 0 && t.err.expected == 1);
}

/* ---------------------------------------------------------------------- */
/* Epochs                                                                  */
/* ---------------------------------------------------------------------- */

typedef struct block_arg {
  test_ctx *t;
  uint32_t block;
  uint32_t seen;
} block_arg;

static void *block_main(void *p) {
  block_arg *a = p;
  __ccl_host_set_block(a->block);
  a->seen = __ccl_begin(&a->t->ctx);
  __ccl_barrier();
  if (rnd() & 1)
    sched_yield();
  __ccl_end(&a->t->ctx, a->seen);
  return NULL;
}

/* Each block counts its own calls in epoch[block]; __ccl_end advances only
 * that counter, and another block's progress does not change what a block
 * reads. */
static void test_epochs(void) {
  for (uint32_t nblocks = 1; nblocks <= 6; nblocks++) {
    test_ctx t;
    ctx_init(&t, 0, 1, nblocks, 0);
    const uint32_t start = 0xfffffffeu - 3; /* also crosses the 32-bit wrap */
    for (uint32_t b = 0; b < nblocks; b++)
      t.epoch[b] = start;
    for (uint32_t round = 0; round < 8; round++) {
      block_arg a[6];
      pthread_t th[6];
      for (uint32_t b = 0; b < nblocks; b++) {
        a[b].t = &t;
        a[b].block = b;
        CHECK(pthread_create(&th[b], NULL, block_main, &a[b]) == 0);
      }
      for (uint32_t b = 0; b < nblocks; b++)
        CHECK(pthread_join(th[b], NULL) == 0);
      for (uint32_t b = 0; b < nblocks; b++) {
        CHECK(a[b].seen == start + round);
        CHECK(t.epoch[b] == start + round + 1);
      }
      for (uint32_t b = nblocks; b < 8; b++)
        CHECK(t.epoch[b] == 0); /* untouched */
    }
  }
  /* One block two calls ahead of another (as on a GPU, where a block's
   * counter is only its own): each still reads its own count. */
  test_ctx t;
  ctx_init(&t, 0, 1, 2, 0);
  __ccl_host_set_block(0);
  for (uint32_t i = 0; i < 2; i++)
    __ccl_end(&t.ctx, __ccl_begin(&t.ctx));
  CHECK(t.epoch[0] == 2 && t.epoch[1] == 0);
  __ccl_host_set_block(1);
  CHECK(__ccl_begin(&t.ctx) == 0);
}

/* The start delay of __ccl_begin (cclCommDebugSetDelay): only the selected
 * block waits, for at least delay_ns, every call; CCL_DELAY_ALL_BLOCKS
 * selects every block; 0 turns it off; a raised abort flag cuts it short.
 * The epoch is still returned. */
static uint64_t timed_begin(test_ctx *t, uint32_t block, uint32_t *epoch) {
  __ccl_host_set_block(block);
  uint64_t t0 = now_ns();
  *epoch = __ccl_begin(&t->ctx);
  return now_ns() - t0;
}

static void test_start_delay(void) {
  const uint64_t delay = 30000000ull; /* 30 ms */
  test_ctx t;
  ctx_init(&t, 0, 1, 3, 0);
  for (uint32_t b = 0; b < 3; b++)
    t.epoch[b] = 41;
  uint32_t e = 0;
  /* Off by default (the context is zeroed). */
  CHECK(timed_begin(&t, 1, &e) < delay && e == 41);
  t.ctx.delay_ns = delay;
  t.ctx.delay_block = 1;
  for (int call = 0; call < 3; call++) {
    uint64_t d0 = timed_begin(&t, 0, &e);
    CHECK(e == 41);
    uint64_t d1 = timed_begin(&t, 1, &e);
    CHECK(e == 41);
    uint64_t d2 = timed_begin(&t, 2, &e);
    CHECK(d1 >= delay);
    CHECK(d0 < delay && d2 < delay);
  }
  t.ctx.delay_block = CCL_DELAY_ALL_BLOCKS;
  for (uint32_t b = 0; b < 3; b++)
    CHECK(timed_begin(&t, b, &e) >= delay);
  /* An aborted communicator does not wait out a long delay. */
  t.ctx.delay_ns = 60ull * 1000000000ull;
  t.abort_flag = 1;
  CHECK(timed_begin(&t, 2, &e) < 1000000000ull);
  t.abort_flag = 0;
  t.ctx.delay_ns = 0;
  CHECK(timed_begin(&t, 2, &e) < delay);
  __ccl_host_set_block(0xFFFFFFFFu);
}

/* ---------------------------------------------------------------------- */
/* f16 / bf16 conversions                                                  */
/* ---------------------------------------------------------------------- */

static void test_conversions(void) {
  /* Known f16 values. */
  struct {
    float f;
    uint16_t h;
  } f16_cases[] = {
      {0.0f, 0x0000},
      {-0.0f, 0x8000},
      {1.0f, 0x3c00},
      {-2.0f, 0xc000},
      {0.5f, 0x3800},
      {65504.0f, 0x7bff},
      {65519.99f, 0x7bff},
      {65520.0f, 0x7c00}, /* tie -> even -> infinity */
      {1e10f, 0x7c00},
      {-1e10f, 0xfc00},
      {INFINITY, 0x7c00},
      {-INFINITY, 0xfc00},
      {0x1p-14f, 0x0400},            /* smallest normal */
      {0x1p-14f - 0x1p-26f, 0x0400}, /* rounds up into the normals */
      {0x1p-24f, 0x0001},            /* smallest subnormal */
      {0x1p-25f, 0x0000},            /* tie -> even (0) */
      {0x1.000002p-25f, 0x0001},     /* just above the tie */
      {0x1.8p-24f, 0x0002},          /* 1.5 ulp: tie -> even (2) */
      {0x1.4p-24f, 0x0001},          /* 1.25 ulp */
      {0x1.002p0f, 0x3c00},          /* 1 + 2^-11: tie -> even (1.0) */
      {0x1.006p0f, 0x3c02},          /* 1 + 3*2^-11: tie -> even (1+2^-9) */
      {0x1.0021p0f, 0x3c01},         /* just above the tie */
      {3.14159265f, 0x4248},
      {1e-10f, 0x0000},
  };
  for (size_t i = 0; i < sizeof f16_cases / sizeof f16_cases[0]; i++) {
    uint16_t h = __ccl_f32_to_f16(f16_cases[i].f);
    if (h != f16_cases[i].h) {
      fprintf(stderr, "f32_to_f16(%a) = %#x, want %#x\n", f16_cases[i].f, h,
              f16_cases[i].h);
      CHECK(0);
    }
  }
  /* NaN stays NaN (quiet), with sign. */
  uint16_t hn = __ccl_f32_to_f16(NAN);
  CHECK((hn & 0x7c00) == 0x7c00 && (hn & 0x3ff) != 0 && (hn & 0x200));
  hn = __ccl_f32_to_f16(u2f(0xff800001u)); /* signalling, payload in low bits */
  CHECK((hn & 0xfc00) == 0xfc00 && (hn & 0x3ff) != 0);
  CHECK(isnan(__ccl_f16_to_f32(0x7c01)) && isnan(__ccl_f16_to_f32(0xfe00)));

  /* Every f16: decode matches the reference; round trip is exact. */
  for (uint32_t u = 0; u < 65536; u++) {
    float f = __ccl_f16_to_f32((uint16_t)u);
    float r = ref_f16_to_f32((uint16_t)u);
    if (isnan(r)) {
      CHECK(isnan(f));
      CHECK(isnan(__ccl_f16_to_f32(__ccl_f32_to_f16(f))));
      continue;
    }
    CHECK(f2u(f) == f2u(r));
    CHECK(__ccl_f32_to_f16(f) == u);
  }
  /* Random and near-boundary floats vs the compiler's conversion. */
  for (int i = 0; i < 2000000; i++) {
    uint32_t x = rnd() ^ (rnd() << 16);
    if (i & 1) /* concentrate on the f16 range */
      x = (x & 0x80001fffu) | ((0x33000000u + (rnd() % 0x14800u) * 0x1000u) &
                               0x7fffe000u);
    float f = u2f(x);
    if (isnan(f))
      continue;
    CHECK(__ccl_f32_to_f16(f) == ref_f32_to_f16(f));
  }

  /* bf16 known values. */
  struct {
    float f;
    uint16_t h;
  } bf_cases[] = {
      {0.0f, 0x0000},       {-0.0f, 0x8000},         {1.0f, 0x3f80},
      {-1.0f, 0xbf80},      {0x1.01p0f, 0x3f80},     /* tie -> even */
      {0x1.03p0f, 0x3f82},  /* tie -> even (up) */   {0x1.0101p0f, 0x3f81},
      {3.14159265f, 0x4049}, {INFINITY, 0x7f80},     {-INFINITY, 0xff80},
      {0x1.fffffep127f, 0x7f80}, /* FLT_MAX rounds to infinity */
      {0x1p-133f, 0x0001},  /* subnormal */
  };
  for (size_t i = 0; i < sizeof bf_cases / sizeof bf_cases[0]; i++) {
    uint16_t h = __ccl_f32_to_bf16(bf_cases[i].f);
    if (h != bf_cases[i].h) {
      fprintf(stderr, "f32_to_bf16(%a) = %#x, want %#x\n", bf_cases[i].f, h,
              bf_cases[i].h);
      CHECK(0);
    }
  }
  uint16_t bn = __ccl_f32_to_bf16(u2f(0x7f800001u)); /* would round to inf */
  CHECK((bn & 0x7f80) == 0x7f80 && (bn & 0x7f) != 0);
  CHECK(isnan(__ccl_bf16_to_f32(__ccl_f32_to_bf16(NAN))));
  for (uint32_t u = 0; u < 65536; u++) {
    float f = __ccl_bf16_to_f32((uint16_t)u);
    CHECK(f2u(f) == (u << 16));
    if (!isnan(f))
      CHECK(__ccl_f32_to_bf16(f) == u);
  }
  for (int i = 0; i < 2000000; i++) {
    float f = u2f(rnd() ^ (rnd() << 16));
    if (isnan(f))
      continue;
    CHECK(__ccl_f32_to_bf16(f) == ref_f32_to_bf16(f));
  }
}


/* ---------------------------------------------------------------------- */
/* Simple protocol: put/get, read-reduce, signals, semaphores, barriers    */
/* ---------------------------------------------------------------------- */

typedef void (*read_reduce_fn)(char *, uint32_t, uint64_t, const char *,
                               const char *, const char *, const char *,
                               const char *, const char *, const char *,
                               const char *);
static read_reduce_fn read_reduce_fns[3][4] = {
    {__ccl_read_reduce_f32_sum, __ccl_read_reduce_f32_prod,
     __ccl_read_reduce_f32_max, __ccl_read_reduce_f32_min},
    {__ccl_read_reduce_f16_sum, __ccl_read_reduce_f16_prod,
     __ccl_read_reduce_f16_max, __ccl_read_reduce_f16_min},
    {__ccl_read_reduce_bf16_sum, __ccl_read_reduce_bf16_prod,
     __ccl_read_reduce_bf16_max, __ccl_read_reduce_bf16_min},
};

static void test_put_get(void) {
  /* Same copy as __ccl_copy, under the channel names. */
  for (size_t n = 0; n <= 70; n += 7)
    for (size_t off = 0; off < 16; off += 3) {
      char *s = buf_alloc(n + off), *d = buf_alloc(n + off);
      for (size_t i = 0; i < n; i++)
        s[off + i] = (char)rnd();
      __ccl_put(d + off, s + off, n);
      CHECK(memcmp(d + off, s + off, n) == 0);
      buf_check_guard(d, n + off);
      memset(d, 0, n + off);
      __ccl_get(d, s + off, n);
      CHECK(memcmp(d, s + off, n) == 0);
      buf_check_guard(d, n + off);
      free(s);
      free(d);
    }
  CHECK(__ccl_scratch_elems(10, 4, 1) == 3);
  CHECK(__ccl_scratch_elems(10, 4, 3) == 9);
  CHECK(__ccl_scratch_elems(2, 8, 2) == 2);
  CHECK(__ccl_scratch_elems(0, 8, 2) == 0);
  CHECK(__ccl_scratch_elems((1ull << 40) + 1, 2, 2) == (1ull << 40) + 2);
}

/* n-ary read-reduce against a reference that folds left to right, rounding
 * each step to the dtype, for aligned and misaligned pointers (vector and
 * element paths). */
static void test_read_reduce(void) {
  for (int dt = 0; dt < 3; dt++)
    for (int op = 0; op < 4; op++)
      for (uint32_t nsrc = 1; nsrc <= 8; nsrc += (nsrc < 3 ? 1 : 5))
        for (uint64_t n = 0; n <= 41; n++)
          for (int mis = 0; mis < 2; mis++) {
            uint32_t es = esize_of[dt];
            guarded src[8];
            const char *sp[8] = {0};
            for (uint32_t j = 0; j < nsrc; j++) {
              src[j] = guarded_alloc(n * es + 16);
              /* 16-byte aligned, or shifted by one element. */
              char *p = (char *)(((uintptr_t)src[j].p + 15) & ~(uintptr_t)15);
              p += (mis && j == nsrc - 1) ? es : 0;
              fill_random(dt, op, p, n);
              sp[j] = p;
            }
            char *dst = buf_alloc(n * es), *want = malloc(n * es + 1);
            fill_random(dt, op, dst, n);
            for (uint64_t i = 0; i < n; i++) {
              memcpy(want + i * es, dst + i * es, es);
              for (uint32_t j = 0; j < nsrc; j++)
                ref_st(dt, want + i * es,
                       ref_op(op, ref_ld(dt, want + i * es),
                              ref_ld(dt, sp[j] + i * es)));
            }
            read_reduce_fns[dt][op](dst, nsrc, n, sp[0], sp[1], sp[2], sp[3],
                                    sp[4], sp[5], sp[6], sp[7]);
            for (uint64_t i = 0; i < n; i++) {
              float a = ref_ld(dt, dst + i * es), b = ref_ld(dt, want + i * es);
              CHECK(memcmp(dst + i * es, want + i * es, es) == 0 ||
                    (isnan(a) && isnan(b)));
            }
            buf_check_guard(dst, n * es);
            free(dst);
            free(want);
            for (uint32_t j = 0; j < nsrc; j++)
              guarded_free(src[j]);
          }
}

/* A sender thread puts `rounds` x `per` messages on channel 3, each
 * followed by a signal; the receiver waits for each (ordinal k within a
 * "call" of `per` waits), checks the data, and commits `per` waits at the
 * end of each call, the way generated kernels do. */
typedef struct chan_arg {
  test_ctx *t;
  char *slot; /* receiver's scratch: per slots of 64 bytes */
  int rounds, per, relaxed;
} chan_arg;

static void *chan_sender(void *p) {
  chan_arg *a = p;
  for (int r = 0; r < a->rounds; r++) {
    for (int k = 0; k < a->per; k++) {
      char msg[64];
      for (int i = 0; i < 64; i++)
        msg[i] = (char)(r * 31 + k * 7 + i);
      /* The receiver must be done with the slot of the previous round:
       * it acknowledges each round on channel 4. */
      __ccl_put(a->slot + 64 * k, msg, 64);
      if (a->relaxed) {
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        __ccl_signal_relaxed(&a->t->ctx, 3);
      } else {
        __ccl_signal(&a->t->ctx, 3);
      }
      if (rnd() % 3 == 0)
        sched_yield();
    }
    __ccl_wait(&a->t->ctx, 4, 0, 99);
    __ccl_wait_commit(&a->t->ctx, 4, 1);
  }
  return NULL;
}

static void test_signal_wait(void) {
  for (int relaxed = 0; relaxed < 2; relaxed++)
    for (int per = 1; per <= 3; per++) {
      test_ctx t;
      ctx_init(&t, 0, 2, 2, 0);
      char *slot = buf_alloc(64 * 3);
      chan_arg a = {&t, slot, 50, per, relaxed};
      pthread_t th;
      CHECK(pthread_create(&th, NULL, chan_sender, &a) == 0);
      for (int r = 0; r < a.rounds; r++) {
        for (int k = 0; k < per; k++) {
          if (relaxed) {
            __ccl_wait_relaxed(&t.ctx, 3, k, 98);
            __atomic_thread_fence(__ATOMIC_SEQ_CST);
          } else {
            __ccl_wait(&t.ctx, 3, k, 98);
          }
          /* Counter semantics: at least this many signals arrived. */
          CHECK(__atomic_load_n(&t.signal[3], __ATOMIC_SEQ_CST) >=
                (uint64_t)(r * per + k + 1));
          for (int i = 0; i < 64; i++)
            CHECK(slot[64 * k + i] == (char)(r * 31 + k * 7 + i));
        }
        __ccl_wait_commit(&t.ctx, 3, per);
        CHECK(t.consumed[3] == (uint64_t)((r + 1) * per));
        __ccl_signal(&t.ctx, 4); /* round consumed */
      }
      CHECK(pthread_join(th, NULL) == 0);
      CHECK(t.signal[3] == (uint64_t)(a.rounds * per));
      CHECK(t.consumed[4] == (uint64_t)a.rounds);
      CHECK(t.abort_flag == 0 && t.err.state == 0);
      free(slot);
    }
}

/* A sender that signals channel 3 once, after `delay_ms`. */
typedef struct {
  test_ctx *t;
  int delay_ms;
  uint64_t sent_ns;
} late_arg;
static void *late_sender(void *p) {
  late_arg *a = (late_arg *)p;
  __ccl_host_set_block(0);
  sleep_ms(a->delay_ms);
  a->sent_ns = now_ns();
  __ccl_signal(&a->t->ctx, 3);
  return NULL;
}
static uint64_t thread_cpu_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* Tests that a long wait sleeps rather than spins (its thread's CPU time is
 * a small part of the wait) and ends soon after the signal (50 ms: room
 * for a loaded machine). */
static void test_wait_sleeps(void) {
  test_ctx t;
  ctx_init(&t, 0, 2, 2, 0);
  late_arg a = {&t, 200, 0};
  pthread_t th;
  uint64_t cpu0 = thread_cpu_ns(), t0 = now_ns();
  CHECK(pthread_create(&th, NULL, late_sender, &a) == 0);
  __ccl_wait(&t.ctx, 3, 0, 99);
  uint64_t t1 = now_ns(), cpu = thread_cpu_ns() - cpu0;
  CHECK(pthread_join(th, NULL) == 0);
  CHECK(t.abort_flag == 0 && t.err.state == 0);
  CHECK(t1 - t0 >= 200 * 1000000ull);
  /* Spinning would take all of the 200 ms; the spin and yield phases take
   * about a millisecond. */
  CHECK(cpu < (t1 - t0) / 4);
  CHECK(t1 - a.sent_ns < 50 * 1000000ull);
  CHECK(cclrtHostWaiters == 0); /* disarmed */
}

static void test_wait_timeout(void) {
  test_ctx t;
  ctx_init(&t, 2, 4, 3, 10 * 1000000ull); /* 10 ms */
  t.signal[5] = 7;
  t.consumed[5] = 6;
  __ccl_host_set_block(2);
  /* Ordinal 1: waits for signal 8, 7 arrived: times out. */
  uint64_t t0 = now_ns();
  __ccl_wait(&t.ctx, 5, 1, 31);
  CHECK(now_ns() - t0 >= 10 * 1000000ull);
  CHECK(t.abort_flag == 1 && t.err.state == CCL_ERR_TIMEOUT);
  CHECK(t.err.rank == 2 && t.err.block == 2 && t.err.op_id == 31);
  CHECK(t.err.expected == 8 && t.err.observed == 7);
  /* Aborted: the other waits give up at once. */
  t.ctx.timeout_ns = 0;
  t0 = now_ns();
  __ccl_wait(&t.ctx, 5, 3, 32);
  __ccl_acquire(&t.ctx, 1, 33);
  __ccl_tb_barrier(&t.ctx, 0, 2, 34);
  CHECK(now_ns() - t0 < 50 * 1000000ull);
  CHECK(t.err.op_id == 31);
  /* Ordinal 0 is satisfied by signal 7: returns at once. */
  t.abort_flag = 0;
  __ccl_wait(&t.ctx, 5, 0, 35);
  CHECK(t.abort_flag == 0);

  /* A semaphore acquire with no release times out with its op id. */
  test_ctx u;
  ctx_init(&u, 1, 2, 2, 5 * 1000000ull);
  __ccl_acquire(&u.ctx, 2, 40);
  CHECK(u.abort_flag == 1 && u.err.op_id == 40 && u.err.expected == 1 &&
        u.err.observed == 0);
  CHECK(u.sem[5] == 1); /* the ticket was taken */
  /* A barrier of 3 blocks with one arrival times out. */
  test_ctx v;
  ctx_init(&v, 0, 1, 3, 5 * 1000000ull);
  __ccl_tb_barrier(&v.ctx, 3, 3, 41);
  CHECK(v.abort_flag == 1 && v.err.op_id == 41 && v.err.expected == 3 &&
        v.err.observed == 1);
}

/* Semaphore: producers release, consumers acquire; every acquire returns
 * only after as many releases as acquires before it (tickets). */
typedef struct sem_arg {
  test_ctx *t;
  int n;
  volatile int *data;
} sem_arg;

static void *sem_producer(void *p) {
  sem_arg *a = p;
  for (int i = 0; i < a->n; i++) {
    a->data[i] = i + 1;
    __ccl_release(&a->t->ctx, 1);
    if (rnd() % 4 == 0)
      sched_yield();
  }
  return NULL;
}

static void test_semaphores(void) {
  test_ctx t;
  ctx_init(&t, 0, 1, 2, 0);
  enum { N = 2000 };
  static volatile int data[N];
  sem_arg a = {&t, N, data};
  pthread_t th;
  CHECK(pthread_create(&th, NULL, sem_producer, &a) == 0);
  for (int i = 0; i < N; i++) {
    __ccl_acquire(&t.ctx, 1, 0);
    CHECK(data[i] == i + 1); /* the i-th release happened before */
  }
  CHECK(pthread_join(th, NULL) == 0);
  CHECK(t.sem[2] == N && t.sem[3] == N);
  CHECK(t.abort_flag == 0);
}

/* Multi-block barrier: 4 blocks, 300 phases; in each phase every block
 * writes its slot, and after the barrier reads all slots of that phase. */
typedef struct bar_arg {
  test_ctx *t;
  uint32_t block;
  volatile uint32_t *slots; /* [4] */
  int bad;
} bar_arg;

static void *bar_block(void *p) {
  bar_arg *a = p;
  for (uint32_t phase = 1; phase <= 300; phase++) {
    a->slots[a->block] = phase;
    if (rnd() % 5 == 0)
      sched_yield();
    __ccl_tb_barrier(&a->t->ctx, 2, 4, 0);
    for (int b = 0; b < 4; b++)
      if (a->slots[b] < phase)
        a->bad = 1;
    __ccl_tb_barrier(&a->t->ctx, 2, 4, 0);
  }
  return NULL;
}

static void test_tb_barrier(void) {
  test_ctx t;
  ctx_init(&t, 0, 1, 4, 0);
  volatile uint32_t slots[4] = {0, 0, 0, 0};
  bar_arg a[4];
  pthread_t th[4];
  for (uint32_t b = 0; b < 4; b++) {
    a[b] = (bar_arg){&t, b, slots, 0};
    CHECK(pthread_create(&th[b], NULL, bar_block, &a[b]) == 0);
  }
  for (int b = 0; b < 4; b++) {
    CHECK(pthread_join(th[b], NULL) == 0);
    CHECK(!a[b].bad);
  }
  CHECK(t.barrier[2] == 4 * 600);
  CHECK(t.abort_flag == 0);
}

/* put_packets + padding to a slot range, copy_packets of the range, then
 * unpack of the real bytes from the copy. */
static void test_copy_packets(void) {
  test_ctx t;
  ctx_init(&t, 0, 1, 1, 0);
  for (uint64_t nbytes = 0; nbytes <= 100; nbytes += 3) {
    uint64_t total = nbytes + (nbytes % 4) * 4; /* slot range >= data */
    uint64_t npk = (total + 7) / 8;
    char *src = buf_alloc(nbytes), *a = buf_alloc(npk * 16),
         *b = buf_alloc(npk * 16), *out = buf_alloc(nbytes);
    for (uint64_t i = 0; i < nbytes; i++)
      src[i] = (char)rnd();
    fill_stale(a, npk, 3);
    fill_stale(b, npk, 3);
    __ccl_put_packets(a, src, nbytes, 4);
    __ccl_put_packets_pad(a, nbytes, total, 4);
    buf_check_guard(a, npk * 16);
    for (uint64_t i = 0; i < npk; i++) {
      uint32_t w[4];
      memcpy(w, a + 16 * i, 16);
      CHECK(w[1] == 4 && w[3] == 4);
      if (i >= (nbytes + 7) / 8)
        CHECK(w[0] == 0 && w[2] == 0);
    }
    __ccl_copy_packets(&t.ctx, b, a, total, 4, 0);
    CHECK(memcmp(a, b, npk * 16) == 0);
    buf_check_guard(b, npk * 16);
    __ccl_unpack_packets(&t.ctx, out, b, nbytes, 4, 0);
    CHECK(memcmp(out, src, nbytes) == 0);
    CHECK(t.abort_flag == 0);
    free(src);
    free(a);
    free(b);
    free(out);
  }
}

/* Tests that the type-generic forms (the host target's kernels, lowered
 * once for every type and operator) take the kind as dtype code * 4 +
 * operator code (ccl/types.def; the order of reduce_fns) and give the
 * bytes of the typed form of that kind, for every kind; an unknown kind
 * has size 0 and its reductions touch nothing. */
static void test_type_generic(void) {
  enum { N = 37 };
  for (int dt = 0; dt < 3; dt++)
    for (int op = 0; op < 4; op++) {
      uint32_t kind = (uint32_t)(dt * 4 + op), es = esize_of[dt];
      CHECK(__ccl_dtype_size(kind) == es);
      char src[N * 4], s1[N * 4], base[N * 4];
      char a[N * 4], b[N * 4], fa[N * 4], fb[N * 4];
      fill_random(dt, op, src, N);
      fill_random(dt, op, s1, N);
      fill_random(dt, op, base, N);
      fill_random(dt, op, a, N);
      memcpy(b, a, sizeof a);
      __ccl_reduce_any(kind, a, src, N);
      reduce_fns[dt][op](b, src, N);
      CHECK(memcmp(a, b, N * es) == 0);
      __ccl_reduce_fwd_any(kind, a, src, fa, N);
      reduce_fwd_fns[dt][op](b, src, fb, N);
      CHECK(memcmp(a, b, N * es) == 0 && memcmp(fa, fb, N * es) == 0);
      __ccl_reduce_base_any(kind, a, base, src, fa, N);
      reduce_base_fns[dt][op](b, base, src, fb, N);
      CHECK(memcmp(a, b, N * es) == 0 && memcmp(fa, fb, N * es) == 0);
      __ccl_read_reduce_any(kind, a, 2, N, src, s1, 0, 0, 0, 0, 0, 0);
      read_reduce_fns[dt][op](b, 2, N, src, s1, 0, 0, 0, 0, 0, 0);
      CHECK(memcmp(a, b, N * es) == 0);
    }
  for (uint32_t kind = 12; kind < 20; kind++) {
    CHECK(__ccl_dtype_size(kind) == 0);
    char a[16] = {1, 2, 3}, b[16] = {1, 2, 3}, src[16] = {9, 9, 9, 9};
    __ccl_reduce_any(kind, a, src, 4);
    CHECK(memcmp(a, b, sizeof a) == 0);
  }
}

int main(void) {
  test_chunks();
  puts("chunks ok");
  test_scratch();
  puts("scratch ok");
  test_conversions();
  puts("conversions ok");
  test_copy();
  test_copy_fwd();
  puts("copy ok");
  test_local_reduce();
  test_reduce_fwd();
  test_reduce_base();
  puts("local reduce ok");
  test_type_generic();
  puts("type-generic forms ok");
  test_unpack();
  puts("unpack ok");
  test_reduce_packets();
  puts("reduce_packets ok");
  test_stale_flags();
  puts("stale flags ok");
  test_timeout();
  test_timeout_unset_block();
  puts("timeout ok");
  test_epochs();
  puts("epochs ok");
  test_start_delay();
  puts("start delay ok");
  test_put_get();
  puts("put/get ok");
  test_read_reduce();
  puts("read_reduce ok");
  test_signal_wait();
  puts("signal/wait ok");
  test_wait_timeout();
  puts("wait timeouts ok");
  test_wait_sleeps();
  puts("sleeping waits ok");
  test_semaphores();
  puts("semaphores ok");
  test_tb_barrier();
  puts("tb_barrier ok");
  test_copy_packets();
  puts("copy_packets ok");
  puts("PASS");
  return 0;
}
