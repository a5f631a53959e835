/* llamp_fit.h - segmented linear regression for calibration data (GSL).
 *
 * A piecewise-linear fit y = offset_k + slope_k * x on consecutive x ranges,
 * the breakpoints searched by dynamic programming: the points sorted by x,
 * at most `max_candidates` candidate breakpoints (index quantiles, never
 * between equal x), the best split into k = 1..max_segments segments of at
 * least `min_points` each (sum of the segments' least-squares costs), k
 * chosen by BIC (n log(RSS_k / n) + penalty * 3k log n: offset, slope and
 * breakpoint per segment), then every breakpoint refined over all positions
 * between its neighbouring candidates.  Segments are independent (jumps
 * allowed): protocol switches are discontinuities.  With `relative` the
 * least squares weigh each point by 1 / y^2 (relative errors), so that
 * 1 us and 10 ms measurements count alike.
 *
 * Error rule: functions returning int return 0 on success and -1 with a
 * one-line reason in `err` on failure; the module never prints. */
#ifndef LLAMP_FIT_H
#define LLAMP_FIT_H
#include <stddef.h>

#define LLAMP_FIT_MAX_SEGMENTS 12

typedef struct {
  int max_segments;      /* 1..LLAMP_FIT_MAX_SEGMENTS (default 6) */
  size_t min_points;     /* points per segment, >= 3 (default 8) */
  double penalty;        /* BIC multiplier (default 1; larger: fewer segments) */
  int relative;          /* weights 1 / y^2 (default 1) */
  size_t max_candidates; /* coarse breakpoint grid (default 256) */
  double trim;           /* robust fit: drop points whose relative residual is
                            more than trim x 1.4826 x MAD from the median, refit
                            (up to 4 rounds); 0 = keep all (default) */
} llamp_fit_opts_t;

typedef struct {
  double from;           /* where the segment starts (inclusive): the breakpoint,
                            the geometric middle of the gap between the previous
                            segment's last x and this one's first x (rounded up);
                            the first segment: its first x */
  double first, last;    /* smallest and largest x of its data */
  double offset, slope;  /* y = offset + slope * x */
  double r2;             /* 1 - RSS / TSS of this segment (weighted as fitted) */
  size_t n;              /* points */
} llamp_fit_segment_t;

typedef struct {
  int nseg;
  llamp_fit_segment_t seg[LLAMP_FIT_MAX_SEGMENTS];
  size_t n;              /* points fitted */
  double r2;             /* 1 - RSS / TSS over all points, unweighted */
  double r2_weighted;    /* the same with the fit's weights */
  double rel_rms;        /* root mean square of (y - fit) / fit */
  double rel_max;        /* largest |y - fit| / fit */
  double bic;            /* criterion of the chosen k */
  size_t dropped;        /* points dropped by `trim` (n counts the kept ones) */
} llamp_fit_t;

void llamp_fit_opts_default(llamp_fit_opts_t *opts);

/* Fit n points (any order; x need not be distinct).  Needs n >= min_points. */
int llamp_fit_segmented(const double *x, const double *y, size_t n, const llamp_fit_opts_t *opts,
                        llamp_fit_t *fit, char *err, size_t errlen);

/* The same, with opts->trim: kept (NULL or n entries, input order) gets 1
 * for the points the final fit used, 0 for the dropped ones. */
int llamp_fit_segmented_robust(const double *x, const double *y, size_t n, const llamp_fit_opts_t *opts,
                               llamp_fit_t *fit, unsigned char *kept, char *err, size_t errlen);

/* The fitted value at x: the segment with the largest from <= x (the first
 * segment below its from). */
double llamp_fit_eval(const llamp_fit_t *fit, double x);

/* Index of the segment llamp_fit_eval uses for x. */
int llamp_fit_segment_of(const llamp_fit_t *fit, double x);

/* Coefficient of determination 1 - sum w (y - yhat)^2 / sum w (y - ybar_w)^2
 * (w NULL: unweighted).  NaN when y is constant. */
double llamp_fit_r2(const double *y, const double *yhat, const double *w, size_t n);

/* One straight line by least squares (w NULL: unweighted): y = *c0 + *c1 x;
 * *rss the (weighted) residual sum of squares. */
int llamp_fit_line(const double *x, const double *y, const double *w, size_t n, double *c0, double *c1,
                   double *rss, char *err, size_t errlen);
#endif
