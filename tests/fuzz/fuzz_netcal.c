/* libFuzzer harness for the raw files of the network calibration
 * (calib/netfit.c: read_raw, what `llamp-calibrate network` feeds
 * calib_netfit).  The fitter is a program: the harness compiles its source
 * with `main` renamed and calls the reader.
 *
 * Oracle: failure gives a one-line message; samples read have a size in
 * 0 .. 2^31-1 and a finite duration in 0 .. 3600 s, and the count adds up. */
#include "fuzz_util.h"

#define main calib_netfit_main
#include "netfit.c"
#undef main

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t size) {
  char path[64], err[2048] = "";
  int fd = fuzz_memfile(in, size, path, sizeof path);
  nsamples_total = 0;
  if (read_raw(path, err, sizeof err)) fuzz_check_error(err);
  size_t n = 0;
  for (int s = 0; s < NSCOPES; s++)
    for (int l = 0; l < 2; l++)
      for (int k = 0; k < NETCAL_NKINDS; k++) {
        series_t *d = &data[s][l][k];
        for (size_t i = 0; i < d->n; i++)
          if (!(d->x[i] >= 0 && d->x[i] <= 2147483647.0) || !isfinite(d->y[i]) || d->y[i] < 0 ||
              d->y[i] > 3600)
            abort();
        n += d->n;
        free(d->x);
        free(d->y);
        memset(d, 0, sizeof *d);
      }
  if (n != nsamples_total) abort();
  source_note[0] = 0;
  close(fd);
  return 0;
}
