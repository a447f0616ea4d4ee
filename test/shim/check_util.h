/* What the shim's C test programs (nccl_check.c, split_check.c) share:
 * the NCCL call check and the unique id of a run with one process per
 * rank (ccl-run), passed through a file. */
#ifndef CCL_TEST_SHIM_CHECK_UTIL_H
#define CCL_TEST_SHIM_CHECK_UTIL_H

#include <nccl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define NCCLCHECK(call)                                                        \
  do {                                                                         \
    ncclResult_t r_ = (call);                                                  \
    if (r_ != ncclSuccess) {                                                   \
      fprintf(stderr, "%s:%d: %s: %s: %s\n", __FILE__, __LINE__, #call,        \
              ncclGetErrorString(r_), ncclGetLastError(NULL));                 \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

/* Under ccl-run: this process's rank and the rank count from CCL_RANK and
 * CCL_NRANKS, and the unique id rank 0 made, passed through the file
 * `path` (written to PATH.tmp and renamed; the others wait up to 60 s).
 * Returns 0, or 1 / 2 after saying why on stderr. */
static int procRankAndId(const char *path, int *rank, int *n,
                         ncclUniqueId *id) {
  const char *re = getenv("CCL_RANK"), *ne = getenv("CCL_NRANKS");
  if (!re || !ne) {
    fprintf(stderr, "proc: CCL_RANK/CCL_NRANKS not set (run under ccl-run)\n");
    return 2;
  }
  *rank = atoi(re);
  *n = atoi(ne);
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  if (*rank == 0) {
    NCCLCHECK(ncclGetUniqueId(id));
    FILE *f = fopen(tmp, "wb");
    if (!f || fwrite(id, sizeof *id, 1, f) != 1 || fclose(f)) {
      perror(tmp);
      return 1;
    }
    rename(tmp, path);
    return 0;
  }
  FILE *f = NULL;
  for (int t = 0; t < 6000 && !(f = fopen(path, "rb")); t++)
    usleep(10000);
  if (!f || fread(id, sizeof *id, 1, f) != 1) {
    fprintf(stderr, "no id in %s\n", path);
    return 1;
  }
  fclose(f);
  return 0;
}

#endif
