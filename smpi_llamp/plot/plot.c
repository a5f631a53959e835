/* plot.c - SVG figures (llamp_plot.h). */
#include "llamp_plot.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Okabe-Ito: distinguishable with the common colour-vision deficiencies. */
static const char *palette[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                "#E69F00", "#56B4E9", "#F0E442", "#000000"};
#define NPAL (sizeof palette / sizeof *palette)

typedef struct {
  char *name, *color;
  llamp_plot_style_t style;
  double *x, *y, *x1;
  size_t n;
} series_t;

typedef struct {
  char axis;
  double lo, hi, opacity;
  char *label, *color;
} band_t;

typedef struct {
  char axis;
  double value;
  char *label;
} marker_t;

typedef struct {
  double weight;
  char *ylabel;
  int have_yrange;
  double ylo, yhi;
  char **rows;
  size_t nrows;
  series_t *series;
  size_t nseries;
  band_t *bands;
  size_t nbands;
  marker_t *markers;
  size_t nmarkers;
} panel_t;

struct llamp_plot {
  char *title, *xlabel;
  int width, height;
  int have_xrange;
  double xlo, xhi;
  panel_t *panels;
  size_t npanels;
  size_t nseries_total;
};

static char *dupstr(const char *s) { return s ? strdup(s) : NULL; }

llamp_plot_t *llamp_plot_create(const char *title, int width, int height) {
  llamp_plot_t *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  p->title = dupstr(title);
  p->width = width > 0 ? width : 800;
  p->height = height > 0 ? height : 500;
  return p;
}

void llamp_plot_destroy(llamp_plot_t *p) {
  if (!p) return;
  for (size_t i = 0; i < p->npanels; i++) {
    panel_t *q = &p->panels[i];
    for (size_t s = 0; s < q->nseries; s++) {
      free(q->series[s].name);
      free(q->series[s].color);
      free(q->series[s].x);
      free(q->series[s].y);
      free(q->series[s].x1);
    }
    for (size_t b = 0; b < q->nbands; b++) {
      free(q->bands[b].label);
      free(q->bands[b].color);
    }
    for (size_t m = 0; m < q->nmarkers; m++) free(q->markers[m].label);
    for (size_t r = 0; r < q->nrows; r++) free(q->rows[r]);
    free(q->rows);
    free(q->series);
    free(q->bands);
    free(q->markers);
    free(q->ylabel);
  }
  free(p->panels);
  free(p->title);
  free(p->xlabel);
  free(p);
}

int llamp_plot_panel(llamp_plot_t *p, double weight, const char *ylabel) {
  panel_t *np = realloc(p->panels, (p->npanels + 1) * sizeof *np);
  if (!np) return -1;
  p->panels = np;
  panel_t *q = &np[p->npanels];
  memset(q, 0, sizeof *q);
  q->weight = weight > 0 ? weight : 1;
  q->ylabel = dupstr(ylabel);
  return (int)p->npanels++;
}

void llamp_plot_xlabel(llamp_plot_t *p, const char *xlabel) {
  free(p->xlabel);
  p->xlabel = dupstr(xlabel);
}

void llamp_plot_yrange(llamp_plot_t *p, int panel, double lo, double hi) {
  if (panel < 0 || (size_t)panel >= p->npanels) return;
  p->panels[panel].have_yrange = 1;
  p->panels[panel].ylo = lo;
  p->panels[panel].yhi = hi;
}

void llamp_plot_xrange(llamp_plot_t *p, double lo, double hi) {
  p->have_xrange = 1;
  p->xlo = lo;
  p->xhi = hi;
}

int llamp_plot_rows(llamp_plot_t *p, int panel, const char *const *labels, size_t n) {
  if (panel < 0 || (size_t)panel >= p->npanels) return -1;
  panel_t *q = &p->panels[panel];
  char **r = calloc(n ? n : 1, sizeof *r);
  if (!r) return -1;
  for (size_t i = 0; i < n; i++) r[i] = dupstr(labels[i]);
  q->rows = r;
  q->nrows = n;
  return 0;
}

static double *copy(const double *a, size_t n) {
  double *c = malloc((n ? n : 1) * sizeof *c);
  if (c && n) memcpy(c, a, n * sizeof *c);
  return c;
}

int llamp_plot_series(llamp_plot_t *p, int panel, const char *name, llamp_plot_style_t style,
                      const double *x, const double *y, const double *x1, size_t n,
                      const char *color) {
  if (panel < 0 || (size_t)panel >= p->npanels) return -1;
  panel_t *q = &p->panels[panel];
  series_t *ns = realloc(q->series, (q->nseries + 1) * sizeof *ns);
  if (!ns) return -1;
  q->series = ns;
  series_t *s = &ns[q->nseries];
  memset(s, 0, sizeof *s);
  s->style = style;
  s->n = n;
  s->x = copy(x, style == LLAMP_PLOT_BARS ? n + 1 : n);
  s->y = copy(y, n);
  if (style == LLAMP_PLOT_SEGMENTS) s->x1 = copy(x1, n);
  s->name = dupstr(name);
  s->color = dupstr(color ? color : palette[p->nseries_total % NPAL]);
  q->nseries++;
  p->nseries_total++;
  return s->x && s->y && (style != LLAMP_PLOT_SEGMENTS || s->x1) ? 0 : -1;
}

int llamp_plot_band(llamp_plot_t *p, int panel, char axis, double lo, double hi,
                    const char *label, const char *color, double opacity) {
  if (panel < 0 || (size_t)panel >= p->npanels) return -1;
  panel_t *q = &p->panels[panel];
  band_t *nb = realloc(q->bands, (q->nbands + 1) * sizeof *nb);
  if (!nb) return -1;
  q->bands = nb;
  nb[q->nbands++] = (band_t){axis, fmin(lo, hi), fmax(lo, hi), opacity > 0 ? opacity : 0.2,
                             dupstr(label), dupstr(color ? color : "#009E73")};
  return 0;
}

int llamp_plot_marker(llamp_plot_t *p, int panel, char axis, double value, const char *label) {
  if (panel < 0 || (size_t)panel >= p->npanels) return -1;
  panel_t *q = &p->panels[panel];
  marker_t *nm = realloc(q->markers, (q->nmarkers + 1) * sizeof *nm);
  if (!nm) return -1;
  q->markers = nm;
  nm[q->nmarkers++] = (marker_t){axis, value, dupstr(label)};
  return 0;
}

size_t llamp_plot_ticks(double lo, double hi, int target, double *ticks, size_t max) {
  if (!(hi > lo) || !isfinite(lo) || !isfinite(hi) || max == 0) return 0;
  if (target < 2) target = 2;
  double raw = (hi - lo) / target, mag = pow(10, floor(log10(raw))), f = raw / mag;
  double step = (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * mag;
  size_t n = 0;
  for (double t = ceil(lo / step - 1e-9) * step; t <= hi + step * 1e-9 && n < max; t += step)
    ticks[n++] = fabs(t) < step * 1e-9 ? 0 : t;
  return n;
}

/* ---- writing ---------------------------------------------------------------------- */

static void xml_text(FILE *f, const char *s) {
  for (; s && *s; s++) {
    switch (*s) {
    case '<': fputs("&lt;", f); break;
    case '>': fputs("&gt;", f); break;
    case '&': fputs("&amp;", f); break;
    case '"': fputs("&quot;", f); break;
    default:
      if ((unsigned char)*s >= 0x20 || *s == '\n' || *s == '\t') fputc(*s, f);
    }
  }
}

static void extend(double *lo, double *hi, double v) {
  if (!isfinite(v)) return;
  if (v < *lo) *lo = v;
  if (v > *hi) *hi = v;
}

static void pad_range(double *lo, double *hi) {
  if (!(*lo <= *hi)) { /* nothing to show */
    *lo = 0;
    *hi = 1;
  } else if (*hi == *lo) {
    double d = *lo ? fabs(*lo) * 0.1 : 1;
    *lo -= d;
    *hi += d;
  }
}

typedef struct {
  double x0, x1, y0, y1; /* pixel box */
  double dlo, dhi;       /* data x */
  double vlo, vhi;       /* data y */
  int rows;              /* categorical: row 0 at the top */
} frame_t;

static double px(const frame_t *fr, double x) {
  return fr->x0 + (x - fr->dlo) / (fr->dhi - fr->dlo) * (fr->x1 - fr->x0);
}
static double py(const frame_t *fr, double y) {
  double t = (y - fr->vlo) / (fr->vhi - fr->vlo);
  return fr->rows ? fr->y0 + t * (fr->y1 - fr->y0) : fr->y1 - t * (fr->y1 - fr->y0);
}
static double clampx(const frame_t *fr, double v) { return fmin(fmax(v, fr->x0), fr->x1); }
static double clampy(const frame_t *fr, double v) { return fmin(fmax(v, fr->y0), fr->y1); }

static void write_series(FILE *f, const frame_t *fr, const series_t *s) {
  static const char *names[] = {"line", "step", "points", "bars", "segments"};
  fprintf(f, "<g class=\"series\" data-name=\"");
  xml_text(f, s->name);
  fprintf(f, "\" data-style=\"%s\" data-points=\"%zu\">\n", names[s->style], s->n);
  switch (s->style) {
  case LLAMP_PLOT_LINE:
  case LLAMP_PLOT_STEP: {
    fprintf(f, "<path fill=\"none\" stroke=\"%s\" stroke-width=\"1.8\" d=\"", s->color);
    int pen = 0;
    for (size_t i = 0; i < s->n; i++) {
      if (!isfinite(s->x[i]) || !isfinite(s->y[i])) {
        pen = 0;
        continue;
      }
      double X = px(fr, s->x[i]), Y = clampy(fr, py(fr, s->y[i]));
      if (s->style == LLAMP_PLOT_STEP && pen) fprintf(f, "H%.2f", X);
      fprintf(f, "%c%.2f,%.2f", pen ? 'L' : 'M', X, Y);
      pen = 1;
      if (s->style == LLAMP_PLOT_STEP && i + 1 == s->n) fprintf(f, "H%.2f", fr->x1);
    }
    fprintf(f, "\"/>\n");
    break;
  }
  case LLAMP_PLOT_POINTS:
    for (size_t i = 0; i < s->n; i++)
      if (isfinite(s->x[i]) && isfinite(s->y[i]))
        fprintf(f, "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"3\" fill=\"%s\"/>\n", px(fr, s->x[i]),
                clampy(fr, py(fr, s->y[i])), s->color);
    break;
  case LLAMP_PLOT_BARS:
    for (size_t i = 0; i < s->n; i++) {
      if (!isfinite(s->x[i]) || !isfinite(s->x[i + 1]) || !isfinite(s->y[i])) continue;
      double a = px(fr, s->x[i]), b = px(fr, s->x[i + 1]), top = clampy(fr, py(fr, s->y[i])),
             base = clampy(fr, py(fr, 0));
      fprintf(f,
              "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\" "
              "fill-opacity=\"0.7\" stroke=\"white\" stroke-width=\"0.5\"/>\n",
              fmin(a, b), fmin(top, base), fabs(b - a), fabs(base - top), s->color);
    }
    break;
  case LLAMP_PLOT_SEGMENTS: {
    double h = fr->rows ? 0.7 * fabs(py(fr, 1) - py(fr, 0)) : 8;
    for (size_t i = 0; i < s->n; i++) {
      if (!isfinite(s->x[i]) || !isfinite(s->x1[i]) || !isfinite(s->y[i])) continue;
      double a = clampx(fr, px(fr, s->x[i])), b = clampx(fr, px(fr, s->x1[i]));
      fprintf(f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\"/>\n",
              fmin(a, b), py(fr, s->y[i]) - h / 2, fmax(fabs(b - a), 0.5), h, s->color);
    }
    break;
  }
  }
  fprintf(f, "</g>\n");
}

int llamp_plot_write_svg(const llamp_plot_t *p, FILE *f, char *err, size_t errlen) {
  if (p->npanels == 0) {
    snprintf(err, errlen, "the figure has no panel");
    return -1;
  }
  /* Shared x range. */
  double xlo = INFINITY, xhi = -INFINITY;
  for (size_t k = 0; k < p->npanels; k++) {
    const panel_t *q = &p->panels[k];
    for (size_t s = 0; s < q->nseries; s++) {
      const series_t *se = &q->series[s];
      size_t nx = se->style == LLAMP_PLOT_BARS ? se->n + 1 : se->n;
      for (size_t i = 0; i < nx; i++) extend(&xlo, &xhi, se->x[i]);
      if (se->x1)
        for (size_t i = 0; i < se->n; i++) extend(&xlo, &xhi, se->x1[i]);
    }
    for (size_t b = 0; b < q->nbands; b++)
      if (q->bands[b].axis == 'x') {
        extend(&xlo, &xhi, q->bands[b].lo);
        extend(&xlo, &xhi, q->bands[b].hi);
      }
    for (size_t m = 0; m < q->nmarkers; m++)
      if (q->markers[m].axis == 'x') extend(&xlo, &xhi, q->markers[m].value);
  }
  if (p->have_xrange) {
    xlo = p->xlo;
    xhi = p->xhi;
  }
  pad_range(&xlo, &xhi);

  /* the left margin grows with long row labels (about 7 px per character) */
  size_t maxlab = 0;
  for (size_t k = 0; k < p->npanels; k++)
    for (size_t r = 0; r < p->panels[k].nrows; r++)
      if (strlen(p->panels[k].rows[r]) > maxlab) maxlab = strlen(p->panels[k].rows[r]);
  const double W = p->width, H = p->height, left = fmax(78, 7.0 * (double)maxlab + 16), right = 24,
               top = p->title ? 36 : 14, bottom = 48, gap = 14;
  double wsum = 0;
  for (size_t k = 0; k < p->npanels; k++) wsum += p->panels[k].weight;
  double avail = H - top - bottom - gap * (double)(p->npanels - 1);
  if (avail < 20 * (double)p->npanels) {
    snprintf(err, errlen, "the figure is too small for %zu panels", p->npanels);
    return -1;
  }

  fprintf(f,
          "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
          "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
          "viewBox=\"0 0 %d %d\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" "
          "font-size=\"12\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
          p->width, p->height, p->width, p->height);
  if (p->title) {
    fprintf(f, "<title>");
    xml_text(f, p->title);
    fprintf(f, "</title>\n<text x=\"%.1f\" y=\"22\" text-anchor=\"middle\" font-size=\"15\">",
            W / 2);
    xml_text(f, p->title);
    fprintf(f, "</text>\n");
  }
  double y = top, xt[32];
  size_t nxt = llamp_plot_ticks(xlo, xhi, 8, xt, 32);
  for (size_t k = 0; k < p->npanels; k++) {
    const panel_t *q = &p->panels[k];
    double h = avail * q->weight / wsum;
    frame_t fr = {left, W - right, y, y + h, xlo, xhi, 0, 0, q->nrows > 0};
    /* y range */
    double ylo = INFINITY, yhi = -INFINITY;
    int want_zero = 0;
    for (size_t s = 0; s < q->nseries; s++) {
      const series_t *se = &q->series[s];
      for (size_t i = 0; i < se->n; i++) extend(&ylo, &yhi, se->y[i]);
      if (se->style == LLAMP_PLOT_BARS) want_zero = 1;
    }
    for (size_t b = 0; b < q->nbands; b++)
      if (q->bands[b].axis == 'y') {
        extend(&ylo, &yhi, q->bands[b].lo);
        extend(&ylo, &yhi, q->bands[b].hi);
      }
    for (size_t m = 0; m < q->nmarkers; m++)
      if (q->markers[m].axis == 'y') extend(&ylo, &yhi, q->markers[m].value);
    if (want_zero) extend(&ylo, &yhi, 0);
    if (q->have_yrange) {
      ylo = q->ylo;
      yhi = q->yhi;
    } else if (q->nrows) {
      ylo = -0.5;
      yhi = (double)q->nrows - 0.5;
    } else {
      pad_range(&ylo, &yhi);
      double d = (yhi - ylo) * 0.05; /* breathing room above and below the data */
      if (!(want_zero && ylo == 0)) ylo -= d;
      yhi += d;
    }
    fr.vlo = ylo;
    fr.vhi = yhi;
    fprintf(f, "<g class=\"panel\" data-index=\"%zu\">\n", k);
    fprintf(f, "<clipPath id=\"clip%zu\"><rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\"/></clipPath>\n",
            k, fr.x0, fr.y0, fr.x1 - fr.x0, fr.y1 - fr.y0);
    /* grid and ticks */
    fprintf(f, "<g class=\"axes\" stroke=\"#ccc\" stroke-width=\"0.6\">\n");
    for (size_t i = 0; i < nxt; i++)
      fprintf(f, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"/>\n", px(&fr, xt[i]),
              fr.y0, px(&fr, xt[i]), fr.y1);
    double yt[32];
    size_t nyt = 0;
    if (!q->nrows) {
      nyt = llamp_plot_ticks(ylo, yhi, h > 120 ? 6 : 3, yt, 32);
      for (size_t i = 0; i < nyt; i++)
        fprintf(f, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"/>\n", fr.x0,
                py(&fr, yt[i]), fr.x1, py(&fr, yt[i]));
    }
    fprintf(f, "</g>\n<g class=\"labels\" fill=\"#222\">\n");
    if (q->nrows) {
      size_t every = q->nrows > (size_t)(h / 12) ? q->nrows / (size_t)(h / 12 > 1 ? h / 12 : 1) + 1 : 1;
      for (size_t r = 0; r < q->nrows; r += every) {
        fprintf(f, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"end\" dominant-baseline=\"middle\">",
                fr.x0 - 6, py(&fr, (double)r));
        xml_text(f, q->rows[r]);
        fprintf(f, "</text>\n");
      }
    }
    for (size_t i = 0; i < nyt; i++)
      fprintf(f, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"end\" dominant-baseline=\"middle\">%g</text>\n",
              fr.x0 - 6, py(&fr, yt[i]), yt[i]);
    if (k + 1 == p->npanels)
      for (size_t i = 0; i < nxt; i++)
        fprintf(f, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\">%g</text>\n", px(&fr, xt[i]),
                fr.y1 + 16, xt[i]);
    if (q->ylabel) {
      fprintf(f, "<text transform=\"translate(16,%.2f) rotate(-90)\" text-anchor=\"middle\">",
              (fr.y0 + fr.y1) / 2);
      xml_text(f, q->ylabel);
      fprintf(f, "</text>\n");
    }
    fprintf(f, "</g>\n<g clip-path=\"url(#clip%zu)\">\n", k);
    for (size_t b = 0; b < q->nbands; b++) {
      const band_t *bd = &q->bands[b];
      double a, c, d, e;
      if (bd->axis == 'x') {
        a = clampx(&fr, px(&fr, bd->lo));
        c = clampx(&fr, px(&fr, bd->hi));
        d = fr.y0;
        e = fr.y1;
      } else {
        a = fr.x0;
        c = fr.x1;
        d = clampy(&fr, py(&fr, bd->hi));
        e = clampy(&fr, py(&fr, bd->lo));
      }
      fprintf(f, "<g class=\"band\" data-label=\"");
      xml_text(f, bd->label);
      fprintf(f,
              "\" data-lo=\"%.17g\" data-hi=\"%.17g\"><rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
              "height=\"%.2f\" fill=\"%s\" fill-opacity=\"%.3f\"/></g>\n",
              bd->lo, bd->hi, fmin(a, c), fmin(d, e), fabs(c - a), fabs(e - d), bd->color,
              bd->opacity);
    }
    for (size_t s = 0; s < q->nseries; s++) write_series(f, &fr, &q->series[s]);
    for (size_t m = 0; m < q->nmarkers; m++) {
      const marker_t *mk = &q->markers[m];
      fprintf(f, "<g class=\"marker\" data-label=\"");
      xml_text(f, mk->label);
      fprintf(f, "\" data-value=\"%.17g\">", mk->value);
      if (mk->axis == 'x')
        fprintf(f, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"", px(&fr, mk->value),
                fr.y0, px(&fr, mk->value), fr.y1);
      else
        fprintf(f, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"", fr.x0,
                py(&fr, mk->value), fr.x1, py(&fr, mk->value));
      fprintf(f, " stroke=\"#555\" stroke-width=\"1\" stroke-dasharray=\"4,3\"/></g>\n");
    }
    fprintf(f, "</g>\n");
    /* frame */
    fprintf(f,
            "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"none\" "
            "stroke=\"#333\" stroke-width=\"1\"/>\n",
            fr.x0, fr.y0, fr.x1 - fr.x0, fr.y1 - fr.y0);
    /* legend: named series and bands, top right inside the panel */
    double ly = fr.y0 + 14;
    fprintf(f, "<g class=\"legend\">\n");
    for (size_t s = 0; s < q->nseries; s++) {
      if (!q->series[s].name || !*q->series[s].name) continue;
      fprintf(f,
              "<rect x=\"%.2f\" y=\"%.2f\" width=\"12\" height=\"8\" fill=\"%s\"/>"
              "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"end\" font-size=\"11\">",
              fr.x1 - 16, ly - 7, q->series[s].color, fr.x1 - 20, ly);
      xml_text(f, q->series[s].name);
      fprintf(f, "</text>\n");
      ly += 14;
    }
    for (size_t b = 0; b < q->nbands; b++) {
      if (!q->bands[b].label || !*q->bands[b].label) continue;
      fprintf(f,
              "<rect x=\"%.2f\" y=\"%.2f\" width=\"12\" height=\"8\" fill=\"%s\" "
              "fill-opacity=\"%.3f\"/><text x=\"%.2f\" y=\"%.2f\" text-anchor=\"end\" "
              "font-size=\"11\">",
              fr.x1 - 16, ly - 7, q->bands[b].color, q->bands[b].opacity, fr.x1 - 20, ly);
      xml_text(f, q->bands[b].label);
      fprintf(f, "</text>\n");
      ly += 14;
    }
    fprintf(f, "</g>\n</g>\n");
    y += h + gap;
  }
  if (p->xlabel) {
    fprintf(f, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\">", (left + W - right) / 2,
            H - 10);
    xml_text(f, p->xlabel);
    fprintf(f, "</text>\n");
  }
  fprintf(f, "</svg>\n");
  if (ferror(f)) {
    snprintf(err, errlen, "write error");
    return -1;
  }
  return 0;
}
