/* nccl_check.c - a C program written against NCCL's API (nccl.h), linked
 * against libcclnccl.so (test/shim/shim_test.sh, test/hw/shim.sh). It runs
 * every collective the stdlib serves, K calls of each issued back to back
 * without synchronising, then checks every output.
 *
 *   nccl_check all N [K]        ncclCommInitAll, one thread drives N ranks
 *   nccl_check group N [K]      one thread: ncclCommInitRank x N in a group
 *   nccl_check threads N [K]    a thread per rank with ncclCommInitRank
 *   nccl_check proc IDFILE [K]  one process per rank (ccl-run: CCL_RANK,
 *                               CCL_NRANKS); rank 0 writes the id to IDFILE
 *   nccl_check forward N        calls the stdlib does not serve: they are
 *                               forwarded, and fail when NCCL cannot run
 *
 * Built with -DSHIM_CUDA it uses device memory and a stream per rank (on
 * the device of CUDA_DEVICE, default 0: several ranks may share it);
 * otherwise host memory and NULL streams (CCL_NCCL_TARGET=host). Exit 0
 * when every check passed. */
#define _DEFAULT_SOURCE /* usleep */
#include "test/shim/check_util.h"
#include <nccl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef SHIM_CUDA
#include <cuda_runtime.h>
#endif

#define MAXR 16
#define NCOLL 9

static int failures;
static pthread_mutex_t outMu = PTHREAD_MUTEX_INITIALIZER;


#ifdef SHIM_CUDA
static int devOf(void) {
  const char *e = getenv("CUDA_DEVICE");
  return e ? atoi(e) : 0;
}
#endif

static void *dalloc(size_t bytes) {
#ifdef SHIM_CUDA
  void *p = NULL;
  if (cudaMalloc(&p, bytes ? bytes : 1) != cudaSuccess) {
    fprintf(stderr, "cudaMalloc(%zu) failed\n", bytes);
    exit(1);
  }
  return p;
#else
  return malloc(bytes ? bytes : 1);
#endif
}
static void dfree(void *p) {
#ifdef SHIM_CUDA
  cudaFree(p);
#else
  free(p);
#endif
}
static void toDev(void *d, const void *h, size_t bytes) {
#ifdef SHIM_CUDA
  cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice);
#else
  memcpy(d, h, bytes);
#endif
}
static void fromDev(void *h, const void *d, size_t bytes) {
#ifdef SHIM_CUDA
  cudaMemcpy(h, d, bytes, cudaMemcpyDeviceToHost);
#else
  memcpy(h, d, bytes);
#endif
}

/* Input values: small integers, exact in float32 sums and products. */
static float val(int r, int k, size_t i) {
  return (float)(r + 1 + 3 * k + (int)(i % 7));
}
static float pval(int r, int k, size_t i) {
  return (float)(1 + (int)((r + k + i) % 2));
}
static int32_t code(int from, int to, int k, size_t i) {
  return (int32_t)(from * 1000003 + to * 10007 + k * 101 + (int)(i % 97));
}

/* The collectives of one round, in issue order. */
enum { C_SUM, C_MAX, C_MIN, C_PROD, C_AG, C_RS, C_A2A, C_BC, C_RED };
static const char *const names[NCOLL] = {
    "AllReduce(sum)",  "AllReduce(max)", "AllReduce(min)",
    "AllReduce(prod)", "AllGather",      "ReduceScatter",
    "AlltoAll",        "Broadcast",      "Reduce"};

struct rankState {
  ncclComm_t comm;
  int rank, n, K;
  size_t count;
  void *send[NCOLL][8], *recv[NCOLL][8];
#ifdef SHIM_CUDA
  cudaStream_t stream;
#endif
};

static void *stream(struct rankState *s) {
#ifdef SHIM_CUDA
  return s->stream;
#else
  (void)s;
  return NULL;
#endif
}

static size_t sendElems(int c, size_t count, int n) {
  return c == C_RS || c == C_A2A ? count * n : count;
}
static size_t recvElems(int c, size_t count, int n) {
  return c == C_AG || c == C_A2A ? count * n : count;
}

/* Allocates and fills the buffers of every call of rank s. */
static void prepare(struct rankState *s) {
  int n = s->n, r = s->rank;
  for (int c = 0; c < NCOLL; c++)
    for (int k = 0; k < s->K; k++) {
      size_t ns = sendElems(c, s->count, n), nr = recvElems(c, s->count, n);
      void *h = malloc(ns * 4 + 4);
      for (size_t i = 0; i < ns; i++) {
        if (c == C_AG || c == C_A2A) {
          int32_t v = c == C_AG ? code(r, 0, k, i)
                                : code(r, (int)(i / s->count), k, i % s->count);
          ((int32_t *)h)[i] = v;
        } else {
          ((float *)h)[i] = c == C_PROD ? pval(r, k, i) : val(r, k, i);
        }
      }
      s->send[c][k] = dalloc(ns * 4);
      s->recv[c][k] = dalloc(nr * 4);
      toDev(s->send[c][k], h, ns * 4);
      free(h);
    }
}

/* Issues every call of rank s (K of each collective, back to back). */
static void issue(struct rankState *s, int k) {
  ncclComm_t cm = s->comm;
  int n = s->n;
  size_t cnt = s->count;
  void *st = stream(s);
  NCCLCHECK(ncclAllReduce(s->send[C_SUM][k], s->recv[C_SUM][k], cnt,
                          ncclFloat32, ncclSum, cm, st));
  NCCLCHECK(ncclAllReduce(s->send[C_MAX][k], s->recv[C_MAX][k], cnt,
                          ncclFloat32, ncclMax, cm, st));
  NCCLCHECK(ncclAllReduce(s->send[C_MIN][k], s->recv[C_MIN][k], cnt,
                          ncclFloat32, ncclMin, cm, st));
  NCCLCHECK(ncclAllReduce(s->send[C_PROD][k], s->recv[C_PROD][k], cnt,
                          ncclFloat32, ncclProd, cm, st));
  NCCLCHECK(ncclAllGather(s->send[C_AG][k], s->recv[C_AG][k], cnt, ncclInt32,
                          cm, st));
  NCCLCHECK(ncclReduceScatter(s->send[C_RS][k], s->recv[C_RS][k], cnt,
                              ncclFloat32, ncclSum, cm, st));
  NCCLCHECK(ncclAlltoAll(s->send[C_A2A][k], s->recv[C_A2A][k], cnt, ncclInt32,
                         cm, st));
  if (k % 2) /* in place, through the old API */
    NCCLCHECK(ncclBcast(s->send[C_BC][k], cnt, ncclFloat32, k % n, cm, st));
  else
    NCCLCHECK(ncclBroadcast(s->send[C_BC][k], s->recv[C_BC][k], cnt,
                            ncclFloat32, k % n, cm, st));
  NCCLCHECK(ncclReduce(s->send[C_RED][k], s->recv[C_RED][k], cnt, ncclFloat32,
                       ncclSum, (k + 1) % n, cm, st));
}

static void mismatch(struct rankState *s, int c, int k, size_t i, double got,
                     double want) {
  pthread_mutex_lock(&outMu);
  if (failures++ < 20)
    fprintf(stderr,
            "MISMATCH rank %d/%d count %zu %s call %d element %zu: got %g, "
            "want %g\n",
            s->rank, s->n, s->count, names[c], k, i, got, want);
  pthread_mutex_unlock(&outMu);
}

/* Waits for rank s's calls and checks every output. */
static void check(struct rankState *s) {
  int n = s->n, r = s->rank;
  size_t cnt = s->count;
#ifdef SHIM_CUDA
  if (cudaStreamSynchronize(s->stream) != cudaSuccess) {
    fprintf(stderr, "cudaStreamSynchronize failed\n");
    exit(1);
  }
#endif
  /* On the host target this waits for the rank's queued calls. */
  ncclResult_t async;
  NCCLCHECK(ncclCommGetAsyncError(s->comm, &async));
  if (async != ncclSuccess) {
    fprintf(stderr, "rank %d: asynchronous error %s: %s\n", r,
            ncclGetErrorString(async), ncclGetLastError(s->comm));
    exit(1);
  }
  for (int c = 0; c < NCOLL; c++)
    for (int k = 0; k < s->K; k++) {
      size_t nr = recvElems(c, cnt, n);
      void *h = malloc(nr * 4 + 4);
      int inPlaceBc = c == C_BC && k % 2;
      fromDev(h, inPlaceBc ? s->send[c][k] : s->recv[c][k], nr * 4);
      float *f = (float *)h;
      int32_t *w = (int32_t *)h;
      for (size_t i = 0; i < nr; i++) {
        double want = 0,
               got = c == C_AG || c == C_A2A ? (double)w[i] : (double)f[i];
        switch (c) {
        case C_SUM:
          for (int j = 0; j < n; j++)
            want += val(j, k, i);
          break;
        case C_MAX:
          want = val(n - 1, k, i);
          break;
        case C_MIN:
          want = val(0, k, i);
          break;
        case C_PROD:
          want = 1;
          for (int j = 0; j < n; j++)
            want *= pval(j, k, i);
          break;
        case C_AG:
          want = code((int)(i / cnt), 0, k, i % cnt);
          break;
        case C_RS:
          for (int j = 0; j < n; j++)
            want += val(j, k, r * cnt + i);
          break;
        case C_A2A:
          want = code((int)(i / cnt), r, k, i % cnt);
          break;
        case C_BC:
          want = val(k % n, k, i);
          break;
        case C_RED:
          if (r != (k + 1) % n)
            continue;
          for (int j = 0; j < n; j++)
            want += val(j, k, i);
          break;
        }
        if (got != want)
          mismatch(s, c, k, i, got, want);
      }
      free(h);
    }
  for (int c = 0; c < NCOLL; c++)
    for (int k = 0; k < s->K; k++) {
      dfree(s->send[c][k]);
      dfree(s->recv[c][k]);
    }
}

static const size_t counts[] = {1, 1000, 20000};
#define NCOUNTS (sizeof counts / sizeof counts[0])

static void setupRank(struct rankState *s) {
#ifdef SHIM_CUDA
  cudaSetDevice(devOf());
  cudaStreamCreateWithFlags(&s->stream, cudaStreamNonBlocking);
#else
  (void)s;
#endif
}

/* One thread drives every rank: each round's calls in one group. */
static void runOneThread(struct rankState *st, int n) {
  for (size_t ci = 0; ci < NCOUNTS; ci++) {
    for (int r = 0; r < n; r++) {
      st[r].count = counts[ci];
      prepare(&st[r]);
    }
    for (int k = 0; k < st[0].K; k++) {
      NCCLCHECK(ncclGroupStart());
      for (int r = 0; r < n; r++)
        issue(&st[r], k);
      NCCLCHECK(ncclGroupEnd());
    }
    for (int r = 0; r < n; r++)
      check(&st[r]);
  }
}

static void runRank(struct rankState *s) {
  for (size_t ci = 0; ci < NCOUNTS; ci++) {
    s->count = counts[ci];
    prepare(s);
    for (int k = 0; k < s->K; k++)
      issue(s, k);
    check(s);
  }
}

static ncclUniqueId sharedId;
static void *threadMain(void *arg) {
  struct rankState *s = arg;
  setupRank(s);
  NCCLCHECK(ncclCommInitRank(&s->comm, s->n, sharedId, s->rank));
  runRank(s);
  NCCLCHECK(ncclCommDestroy(s->comm));
  return NULL;
}

static int forwardCheck(int n) {
  ncclComm_t comms[MAXR];
  NCCLCHECK(ncclCommInitAll(comms, n, NULL));
  int bad = 0;
  float *buf[MAXR];
  for (int r = 0; r < n; r++) {
    buf[r] = dalloc(64 * 4);
    float h[64] = {0};
    toDev(buf[r], h, sizeof h);
  }
  /* A Send/Recv pair: the stdlib has no point-to-point calls. */
  NCCLCHECK(ncclGroupStart());
  NCCLCHECK(ncclSend(buf[0], 16, ncclFloat32, 1, comms[0], NULL));
  NCCLCHECK(ncclRecv(buf[1], 16, ncclFloat32, 0, comms[1], NULL));
  ncclResult_t r = ncclGroupEnd();
  printf("ncclSend/ncclRecv group: %s: %s\n", ncclGetErrorString(r),
         ncclGetLastError(comms[0]));
  if (r == ncclSuccess)
    bad++;
  /* ncclAvg and a reduction of int32: forwarded, one rank at a time. */
  r = ncclAllReduce(buf[0], buf[0], 16, ncclFloat32, ncclAvg, comms[0], NULL);
  printf("ncclAllReduce(avg): %s: %s\n", ncclGetErrorString(r),
         ncclGetLastError(comms[0]));
  if (r == ncclSuccess)
    bad++;
  r = ncclAllReduce(buf[0], buf[0], 16, ncclInt32, ncclSum, comms[0], NULL);
  printf("ncclAllReduce(int32): %s: %s\n", ncclGetErrorString(r),
         ncclGetLastError(comms[0]));
  if (r == ncclSuccess)
    bad++;
  /* A served call still works after the failed forwards. */
  NCCLCHECK(ncclGroupStart());
  for (int q = 0; q < n; q++)
    NCCLCHECK(ncclAllReduce(buf[q], buf[q], 64, ncclFloat32, ncclSum, comms[q],
                            NULL));
  NCCLCHECK(ncclGroupEnd());
  for (int q = 0; q < n; q++) {
    ncclResult_t a;
    NCCLCHECK(ncclCommGetAsyncError(comms[q], &a));
    if (a != ncclSuccess)
      bad++;
  }
  for (int q = 0; q < n; q++) {
    dfree(buf[q]);
    NCCLCHECK(ncclCommDestroy(comms[q]));
  }
  /* The shim turned NVLS off before the first real-NCCL call. */
  const char *nvls = getenv("NCCL_NVLS_ENABLE");
  printf("NCCL_NVLS_ENABLE=%s\n", nvls ? nvls : "(unset)");
  /* A handle that is not the shim's is refused, not passed on. */
  int cnt = 0;
  r = ncclCommCount((ncclComm_t)buf, &cnt);
  printf("foreign handle: %s: %s\n", ncclGetErrorString(r),
         ncclGetLastError(NULL));
  if (r != ncclInvalidArgument)
    bad++;
  return bad;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr,
            "usage: %s all|group|threads|forward N [K] | proc IDFILE [K]\n",
            argv[0]);
    return 2;
  }
  const char *mode = argv[1];
  int K = argc > 3 ? atoi(argv[3]) : 4;
  if (K < 1 || K > 8)
    K = 4;
  struct rankState st[MAXR];
  memset(st, 0, sizeof st);
  int version = 0;
  NCCLCHECK(ncclGetVersion(&version));
  if (strcmp(mode, "proc") == 0) {
    int rank, n;
    ncclUniqueId id;
    int rc = procRankAndId(argv[2], &rank, &n, &id);
    if (rc)
      return rc;
    st[0].rank = rank;
    st[0].n = n;
    st[0].K = K;
    setupRank(&st[0]);
    NCCLCHECK(ncclCommInitRank(&st[0].comm, n, id, rank));
    runRank(&st[0]);
    NCCLCHECK(ncclCommDestroy(st[0].comm));
  } else {
    int n = atoi(argv[2]);
    if (n < 1 || n > MAXR) {
      fprintf(stderr, "N must be 1..%d\n", MAXR);
      return 2;
    }
    if (strcmp(mode, "forward") == 0) {
      int bad = forwardCheck(n);
      printf(bad ? "FAILED: %d forward checks\n" : "forward: ok\n", bad);
      return bad ? 1 : 0;
    }
    for (int r = 0; r < n; r++) {
      st[r].rank = r;
      st[r].n = n;
      st[r].K = K;
    }
    if (strcmp(mode, "all") == 0) {
      ncclComm_t comms[MAXR];
      for (int r = 0; r < n; r++)
        setupRank(&st[r]);
#ifdef SHIM_CUDA
      int devs[MAXR];
      for (int r = 0; r < n; r++)
        devs[r] = devOf();
      NCCLCHECK(ncclCommInitAll(comms, n, devs));
#else
      NCCLCHECK(ncclCommInitAll(comms, n, NULL));
#endif
      for (int r = 0; r < n; r++)
        st[r].comm = comms[r];
      runOneThread(st, n);
    } else if (strcmp(mode, "group") == 0) {
      ncclUniqueId id;
      NCCLCHECK(ncclGetUniqueId(&id));
      for (int r = 0; r < n; r++)
        setupRank(&st[r]);
      NCCLCHECK(ncclGroupStart());
      for (int r = 0; r < n; r++)
        NCCLCHECK(ncclCommInitRank(&st[r].comm, n, id, r));
      NCCLCHECK(ncclGroupEnd());
      runOneThread(st, n);
    } else if (strcmp(mode, "threads") == 0) {
      NCCLCHECK(ncclGetUniqueId(&sharedId));
      pthread_t th[MAXR];
      for (int r = 0; r < n; r++)
        pthread_create(&th[r], NULL, threadMain, &st[r]);
      for (int r = 0; r < n; r++)
        pthread_join(th[r], NULL);
      n = 0; /* destroyed by the threads */
    } else {
      fprintf(stderr, "unknown mode %s\n", mode);
      return 2;
    }
    for (int r = 0; r < n; r++)
      NCCLCHECK(ncclCommDestroy(st[r].comm));
  }
  if (failures) {
    printf("FAILED: %d mismatches (%s)\n", failures, mode);
    return 1;
  }
  printf("ok: %s, version %d, counts 1 1000 20000, %d calls of each collective "
         "back to back\n",
         mode, version, K);
  return 0;
}
