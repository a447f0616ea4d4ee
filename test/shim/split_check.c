/* split_check.c - ncclCommSplit through libcclnccl.so on the host target
 * (CCL_NCCL_TARGET=host; test/shim/shim_test.sh). A C program written
 * against nccl.h. N ranks (N >= 3) split their communicator
 *
 *   half:   color = rank % 2, key = rank        (cclc when served)
 *   whole:  color = 7, key = N - rank           (one group, reversed order)
 *   single: color = rank                        (1-rank groups: the stdlib
 *                                                has no 1-rank kernels, so
 *                                                forwarded; fails on a CPU)
 *   mixed:  color = NCCL_SPLIT_NOCOLOR for rank 0, 5 for rank N-1, 3 for the
 *           others (rank 0: NULL; rank N-1: a forwarded 1-rank group that
 *           fails; the others: an (N-2)-rank cclc communicator)
 *
 * checks each new communicator's rank and size, then runs AllReduce and
 * AllGather on half, whole and mixed, K rounds back to back without
 * synchronising, checks every output, and an AllReduce on the parent.
 *
 *   split_check threads N [K]     a thread per rank, ncclCommInitRank
 *   split_check all N [K]         ncclCommInitAll; one thread drives every
 *                                 rank (each split in a group)
 *   split_check group N [K]       one thread: ncclCommInitRank x N in a group
 *   split_check proc IDFILE [K]   one process per rank (ccl-run)
 *
 * Prints "ok: MODE ..." and exits 0 when every check passed. */
#define _DEFAULT_SOURCE /* usleep */
#include "test/shim/check_util.h"
#include <nccl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAXR 16
#define MAXK 8
#define NSPLIT 3 /* half, whole, mixed: the communicators used */

static int failures;
static pthread_mutex_t outMu = PTHREAD_MUTEX_INITIALIZER;


static void bad(const char *fmt, ...) {
  pthread_mutex_lock(&outMu);
  if (failures++ < 30) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "CHECK FAILED: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
  }
  pthread_mutex_unlock(&outMu);
}

static int N, K = 3;

/* The splits: color and key of parent rank r. */
static int colorOf(int s, int r) {
  switch (s) {
  case 0: /* half */
    return r % 2;
  case 1: /* whole */
    return 7;
  case 2: /* mixed */
    return r == 0 ? NCCL_SPLIT_NOCOLOR : r == N - 1 ? 5 : 3;
  default: /* single */
    return r;
  }
}
static int keyOf(int s, int r) { return s == 0 ? r : s == 1 ? N - r : 0; }
/* Whether the stdlib serves the new communicator of rank r in split s
 * (its bundle has kernels for 2..8 ranks). */
static int servedSize(int size) { return size >= 2 && size <= 8; }

/* The members of rank r's group in split s, in new-rank order (the parent
 * ranks); returns their number and r's new rank in *me. */
static int members(int s, int r, int *out, int *me) {
  int c = colorOf(s, r), m = 0;
  for (int q = 0; q < N; q++)
    if (colorOf(s, q) == c)
      out[m++] = q;
  /* (key, parent rank) order: insertion sort. */
  for (int i = 1; i < m; i++)
    for (int j = i; j > 0; j--) {
      int a = out[j - 1], b = out[j];
      if (keyOf(s, a) > keyOf(s, b) || (keyOf(s, a) == keyOf(s, b) && a > b)) {
        out[j - 1] = b;
        out[j] = a;
      }
    }
  for (int i = 0; i < m; i++)
    if (out[i] == r)
      *me = i;
  return m;
}

static float val(int s, int r, int k, size_t i) {
  return (float)(r + 1 + 3 * k + 5 * s + (int)(i % 7));
}
static int32_t code(int s, int r, int k, size_t i) {
  return (int32_t)(r * 1000003 + s * 10007 + k * 101 + (int)(i % 97));
}

static const size_t counts[] = {1000, 20000};
#define NCOUNTS (sizeof counts / sizeof counts[0])

struct rankState {
  int rank;
  ncclComm_t parent;
  ncclComm_t sub[NSPLIT]; /* half, whole, mixed (NULL: none) */
  ncclComm_t single;
  ncclResult_t singleResult;
  size_t count;
  float *arIn[NSPLIT][MAXK], *arOut[NSPLIT][MAXK];
  int32_t *agIn[NSPLIT][MAXK], *agOut[NSPLIT][MAXK];
};

/* Rank s's split of kind `which` (0..2, 3: single). */
static ncclResult_t doSplit(struct rankState *st, int which) {
  ncclComm_t *out = which < NSPLIT ? &st->sub[which] : &st->single;
  ncclResult_t r = ncclCommSplit(st->parent, colorOf(which, st->rank),
                                 keyOf(which, st->rank), out, NULL);
  if (which == 3)
    st->singleResult = r;
  return r;
}

/* Whether rank st's split `which` should have made a working communicator. */
static int expectComm(int which, int r) {
  if (colorOf(which, r) == NCCL_SPLIT_NOCOLOR)
    return 0;
  int m[MAXR], me = -1;
  return servedSize(members(which, r, m, &me));
}

/* Whether rank r's split `which` is forwarded (a group the stdlib does not
 * serve: 1 rank), which fails on a CPU. */
static int expectFail(int which, int r) {
  return which == 3 ||
         (colorOf(which, r) != NCCL_SPLIT_NOCOLOR && !expectComm(which, r));
}

/* Checks the new communicators' ranks and sizes (after the splits). */
static void checkComms(struct rankState *st) {
  for (int s = 0; s < NSPLIT; s++) {
    int m[MAXR], me = -1, size = members(s, st->rank, m, &me);
    if (colorOf(s, st->rank) == NCCL_SPLIT_NOCOLOR) {
      if (st->sub[s])
        bad("rank %d split %d: NCCL_SPLIT_NOCOLOR gave a communicator",
            st->rank, s);
      continue;
    }
    if (!expectComm(s, st->rank))
      continue; /* the forwarded 1-rank group: checked by the caller */
    int got = -1, n = -1;
    if (!st->sub[s]) {
      bad("rank %d split %d: no communicator", st->rank, s);
      continue;
    }
    NCCLCHECK(ncclCommUserRank(st->sub[s], &got));
    NCCLCHECK(ncclCommCount(st->sub[s], &n));
    if (got != me || n != size)
      bad("rank %d split %d: new rank/size %d/%d, want %d/%d", st->rank, s, got,
          n, me, size);
  }
}

static void prepare(struct rankState *st) {
  for (int s = 0; s < NSPLIT; s++) {
    if (!expectComm(s, st->rank))
      continue;
    int m[MAXR], me = -1, size = members(s, st->rank, m, &me);
    for (int k = 0; k < K; k++) {
      st->arIn[s][k] = malloc(st->count * 4);
      st->arOut[s][k] = malloc(st->count * 4);
      st->agIn[s][k] = malloc(st->count * 4);
      st->agOut[s][k] = malloc(st->count * 4 * size);
      for (size_t i = 0; i < st->count; i++) {
        st->arIn[s][k][i] = val(s, st->rank, k, i);
        st->agIn[s][k][i] = code(s, st->rank, k, i);
      }
    }
  }
}

/* Round k of rank st: AllReduce and AllGather on each new communicator. */
static void issue(struct rankState *st, int k) {
  for (int s = 0; s < NSPLIT; s++) {
    if (!expectComm(s, st->rank))
      continue;
    NCCLCHECK(ncclAllReduce(st->arIn[s][k], st->arOut[s][k], st->count,
                            ncclFloat32, ncclSum, st->sub[s], NULL));
    NCCLCHECK(ncclAllGather(st->agIn[s][k], st->agOut[s][k], st->count,
                            ncclInt32, st->sub[s], NULL));
  }
}

static void check(struct rankState *st) {
  for (int s = 0; s < NSPLIT; s++) {
    if (!expectComm(s, st->rank))
      continue;
    ncclResult_t async;
    NCCLCHECK(ncclCommGetAsyncError(st->sub[s], &async)); /* waits */
    if (async != ncclSuccess)
      bad("rank %d split %d: asynchronous error %d", st->rank, s, async);
    int m[MAXR], me = -1, size = members(s, st->rank, m, &me);
    for (int k = 0; k < K; k++) {
      for (size_t i = 0; i < st->count; i++) {
        float want = 0;
        for (int j = 0; j < size; j++)
          want += val(s, m[j], k, i);
        if (st->arOut[s][k][i] != want)
          bad("rank %d split %d AllReduce: element %d wrong", st->rank, s,
              (int)i);
        for (int j = 0; j < size; j++)
          if (st->agOut[s][k][j * st->count + i] != code(s, m[j], k, i))
            bad("rank %d split %d AllGather: element %d wrong", st->rank, s,
                (int)(j * st->count + i));
      }
      free(st->arIn[s][k]);
      free(st->arOut[s][k]);
      free(st->agIn[s][k]);
      free(st->agOut[s][k]);
    }
  }
}

/* The parent still serves calls after the splits. */
static float parentBuf[MAXR][64];
static void parentIssue(struct rankState *st) {
  for (int i = 0; i < 64; i++)
    parentBuf[st->rank][i] = (float)(st->rank + i);
  NCCLCHECK(ncclAllReduce(parentBuf[st->rank], parentBuf[st->rank], 64,
                          ncclFloat32, ncclSum, st->parent, NULL));
}
static void parentCheck(struct rankState *st) {
  ncclResult_t async;
  NCCLCHECK(ncclCommGetAsyncError(st->parent, &async));
  for (int i = 0; i < 64; i++)
    if (parentBuf[st->rank][i] != (float)(N * (N - 1) / 2 + N * i))
      bad("rank %d parent AllReduce element %d wrong (async %d)", st->rank, i,
          async);
}

static void report(struct rankState *st, const char *what, ncclResult_t r) {
  pthread_mutex_lock(&outMu);
  printf("rank %d %s: %s: %s\n", st->rank, what, ncclGetErrorString(r),
         ncclGetLastError(NULL));
  pthread_mutex_unlock(&outMu);
}

static void destroyAll(struct rankState *st) {
  for (int s = 0; s < NSPLIT; s++)
    if (st->sub[s])
      NCCLCHECK(ncclCommDestroy(st->sub[s]));
  if (st->single)
    NCCLCHECK(ncclCommDestroy(st->single));
  NCCLCHECK(ncclCommDestroy(st->parent));
}

/* One rank, driven by its own thread (or process). */
static void runRank(struct rankState *st) {
  for (int s = 0; s < NSPLIT; s++) {
    ncclResult_t r = doSplit(st, s);
    if (expectComm(s, st->rank) || colorOf(s, st->rank) == NCCL_SPLIT_NOCOLOR) {
      if (r != ncclSuccess) {
        report(st, "split", r);
        bad("rank %d split %d failed (%d)", st->rank, s, r);
      }
    } else { /* the mixed split's 1-rank group: forwarded, fails here */
      report(st, "mixed split", r);
      if (r == ncclSuccess || st->sub[s])
        bad("rank %d split %d: the forwarded split succeeded (%d)", st->rank, s,
            r);
    }
  }
  doSplit(st, 3);
  report(st, "single split", st->singleResult);
  if (st->singleResult == ncclSuccess || st->single)
    bad("rank %d: the 1-rank split succeeded on a CPU", st->rank);
  checkComms(st);
  for (size_t ci = 0; ci < NCOUNTS; ci++) {
    st->count = counts[ci];
    prepare(st);
    for (int k = 0; k < K; k++)
      issue(st, k);
    check(st);
  }
  parentIssue(st);
  parentCheck(st);
  destroyAll(st);
}

/* Every rank from one thread: each split in one group. */
static void runOneThread(struct rankState *st) {
  for (int s = 0; s <= NSPLIT; s++) {
    NCCLCHECK(ncclGroupStart());
    for (int r = 0; r < N; r++)
      NCCLCHECK(doSplit(&st[r], s)); /* in a group: made at ncclGroupEnd */
    ncclResult_t r = ncclGroupEnd();
    int fails = 0; /* a forwarded group fails on a CPU */
    for (int q = 0; q < N; q++)
      fails |= expectFail(s, q);
    printf("split %d group: %s: %s\n", s, ncclGetErrorString(r),
           ncclGetLastError(NULL));
    if ((r != ncclSuccess) != fails)
      bad("split %d: ncclGroupEnd returned %d (a failure expected: %d)", s, r,
          fails);
    /* A failed rank's handle reports its failure; destroy it. */
    for (int q = 0; q < N; q++) {
      ncclComm_t *c = s < NSPLIT ? &st[q].sub[s] : &st[q].single;
      if (expectFail(s, q)) {
        ncclResult_t async = ncclSuccess;
        if (!*c || ncclCommGetAsyncError(*c, &async) != ncclSuccess ||
            async == ncclSuccess)
          bad("rank %d split %d: the failed split's handle reports %d", q, s,
              async);
        if (*c)
          NCCLCHECK(ncclCommDestroy(*c));
        *c = NULL;
      }
    }
  }
  for (int r = 0; r < N; r++)
    checkComms(&st[r]);
  for (size_t ci = 0; ci < NCOUNTS; ci++) {
    for (int r = 0; r < N; r++) {
      st[r].count = counts[ci];
      prepare(&st[r]);
    }
    for (int k = 0; k < K; k++) {
      NCCLCHECK(ncclGroupStart());
      for (int r = 0; r < N; r++)
        issue(&st[r], k);
      NCCLCHECK(ncclGroupEnd());
    }
    for (int r = 0; r < N; r++)
      check(&st[r]);
  }
  NCCLCHECK(ncclGroupStart());
  for (int r = 0; r < N; r++)
    parentIssue(&st[r]);
  NCCLCHECK(ncclGroupEnd());
  for (int r = 0; r < N; r++) {
    parentCheck(&st[r]);
    destroyAll(&st[r]);
  }
}

static ncclUniqueId sharedId;
static void *threadMain(void *arg) {
  struct rankState *st = arg;
  NCCLCHECK(ncclCommInitRank(&st->parent, N, sharedId, st->rank));
  runRank(st);
  return NULL;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s threads|all|group N [K] | proc IDFILE [K]\n",
            argv[0]);
    return 2;
  }
  const char *mode = argv[1];
  if (argc > 3)
    K = atoi(argv[3]);
  if (K < 1 || K > MAXK)
    K = 3;
  struct rankState st[MAXR];
  memset(st, 0, sizeof st);
  if (strcmp(mode, "proc") == 0) {
    int rank;
    ncclUniqueId id;
    int rc = procRankAndId(argv[2], &rank, &N, &id);
    if (rc)
      return rc;
    if (N < 3 || N > MAXR || rank < 0 || rank >= N) {
      fprintf(stderr, "N must be 3..%d\n", MAXR);
      return 2;
    }
    st[0].rank = rank;
    NCCLCHECK(ncclCommInitRank(&st[0].parent, N, id, rank));
    runRank(&st[0]);
  } else {
    N = atoi(argv[2]);
    if (N < 3 || N > MAXR) {
      fprintf(stderr, "N must be 3..%d\n", MAXR);
      return 2;
    }
    for (int r = 0; r < N; r++)
      st[r].rank = r;
    if (strcmp(mode, "threads") == 0) {
      NCCLCHECK(ncclGetUniqueId(&sharedId));
      pthread_t th[MAXR];
      for (int r = 0; r < N; r++)
        pthread_create(&th[r], NULL, threadMain, &st[r]);
      for (int r = 0; r < N; r++)
        pthread_join(th[r], NULL);
    } else if (strcmp(mode, "all") == 0 || strcmp(mode, "group") == 0) {
      if (mode[0] == 'a') {
        ncclComm_t comms[MAXR];
        NCCLCHECK(ncclCommInitAll(comms, N, NULL));
        for (int r = 0; r < N; r++)
          st[r].parent = comms[r];
      } else {
        ncclUniqueId id;
        NCCLCHECK(ncclGetUniqueId(&id));
        NCCLCHECK(ncclGroupStart());
        for (int r = 0; r < N; r++)
          NCCLCHECK(ncclCommInitRank(&st[r].parent, N, id, r));
        NCCLCHECK(ncclGroupEnd());
      }
      runOneThread(st);
    } else {
      fprintf(stderr, "unknown mode %s\n", mode);
      return 2;
    }
  }
  if (failures) {
    printf("FAILED: %d checks (%s)\n", failures, mode);
    return 1;
  }
  printf("ok: %s, %d ranks split by rank %% 2, as one, with NOCOLOR and a "
         "forwarded 1-rank group, into 1-rank groups; %d rounds of "
         "AllReduce and AllGather back to back\n",
         mode, N, K);
  return 0;
}
