/* llamp_plot.h - figures as SVG, written directly (no plotting program
 * needed): vertically stacked panels sharing one x axis, each with line,
 * step, point, bar or segment series, shaded bands and marker lines.  The
 * plot only draws what it is given; it never evaluates anything.
 *
 * Every series is one <g class="series" data-name=.. data-style=..
 * data-points=N> element, every band <g class="band">, every marker
 * <g class="marker">, so scripts and tests can check a picture's content.
 * Errors: -1 / NULL with a message in the caller's buffer; never prints. */
#ifndef LLAMP_PLOT_H
#define LLAMP_PLOT_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  LLAMP_PLOT_LINE,    /* points joined in order */
  LLAMP_PLOT_STEP,    /* piecewise constant: y[i] holds from x[i] to x[i+1] */
  LLAMP_PLOT_POINTS,  /* markers only */
  LLAMP_PLOT_BARS,    /* histogram: bar i spans [x[i], x[i+1]) with height y[i]; n+1 edges */
  LLAMP_PLOT_SEGMENTS /* horizontal bars [x0, x1] on row y (timelines) */
} llamp_plot_style_t;

typedef struct llamp_plot llamp_plot_t;

/* A figure of width x height pixels (0 = 800 x 500). */
llamp_plot_t *llamp_plot_create(const char *title, int width, int height);
void llamp_plot_destroy(llamp_plot_t *p);

/* Add a panel below the previous ones; `weight` is its share of the height.
 * Returns the panel index, -1 when out of memory. */
int llamp_plot_panel(llamp_plot_t *p, double weight, const char *ylabel);
void llamp_plot_xlabel(llamp_plot_t *p, const char *xlabel);
/* Fix a panel's y range (default: from its data, with 0 included for bars
 * and segments). */
void llamp_plot_yrange(llamp_plot_t *p, int panel, double lo, double hi);
/* Fix the shared x range (default: from the data of every panel). */
void llamp_plot_xrange(llamp_plot_t *p, double lo, double hi);
/* Categorical y axis: row i is labelled labels[i] (timelines).  Copied. */
int llamp_plot_rows(llamp_plot_t *p, int panel, const char *const *labels, size_t n);

/* Series: data is copied.  BARS takes n bars and n+1 edges in x.
 * SEGMENTS takes x = starts, y = rows, and x1 = ends (x1 ignored otherwise).
 * Non-finite points are skipped (a line breaks there).  Colours follow the
 * order of series in the figure unless `color` (an SVG colour) is given. */
int llamp_plot_series(llamp_plot_t *p, int panel, const char *name, llamp_plot_style_t style,
                      const double *x, const double *y, const double *x1, size_t n,
                      const char *color);
/* A shaded band over [lo, hi] along x (axis 'x') or y (axis 'y'). */
int llamp_plot_band(llamp_plot_t *p, int panel, char axis, double lo, double hi,
                    const char *label, const char *color, double opacity);
/* A dashed marker line at x = value (axis 'x') or y = value (axis 'y'). */
int llamp_plot_marker(llamp_plot_t *p, int panel, char axis, double value, const char *label);

int llamp_plot_write_svg(const llamp_plot_t *p, FILE *f, char *err, size_t errlen);

/* "Nice" axis ticks for [lo, hi] (1-2-5 steps, about `target` of them):
 * writes up to max ticks, returns how many. */
size_t llamp_plot_ticks(double lo, double hi, int target, double *ticks, size_t max);

#ifdef __cplusplus
}
#endif
#endif
