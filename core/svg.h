/* svg.h: the pictures ccsift draws (eval's trade-off curve, stats' weekly
 * bars) as plain SVG, so no plotting program is needed to make them.
 *
 * A chart is a plot area inside margins. Data is placed by fractions of the
 * plot area, 0..1 from its bottom left corner; the chart maps them to
 * pixels. Every text given is escaped.
 */
#ifndef CCSIFT_SVG_H
#define CCSIFT_SVG_H

#include <locale.h>
#include <stdio.h>

typedef struct {
	FILE *f;                /* for data elements the helpers do not cover */
	int width, height;
	int left, right, top, bottom;   /* margins */
	locale_t c_numeric, saved;
} ccsift_svg;

/* Create path and write the header, a white background and the title.
 * width, height and the margins are in pixels. NULL if path cannot be
 * created. Until ccsift_svg_close, this thread prints numbers with a '.'
 * whatever the user's locale, so callers may fprintf "%.1f" to s->f. */
ccsift_svg *ccsift_svg_open(const char *path, int width, int height, int left, int right,
			    int top, int bottom, const char *title);
/* Write the end; 0, or -1 if anything failed to be written. Frees s. */
int ccsift_svg_close(ccsift_svg *s);

/* Pixels of a fraction of the plot area's width (from its left) or height
 * (from its bottom). */
double ccsift_svg_x(const ccsift_svg *s, double fx);
double ccsift_svg_y(const ccsift_svg *s, double fy);

/* A light grid line across the plot area at fx (vertical, label under the
 * area) or fy (horizontal, label left of it); label may be NULL. */
void ccsift_svg_grid_x(ccsift_svg *s, double fx, const char *label);
void ccsift_svg_grid_y(ccsift_svg *s, double fy, const char *label);
/* What the axes measure: centred under the area, and rotated left of it. */
void ccsift_svg_axis_titles(ccsift_svg *s, const char *x, const char *y);

/* Text at pixel x, y. attrs: further attributes, written as given (never
 * from input), e.g. "text-anchor=\"end\"", or NULL. */
void ccsift_svg_text(ccsift_svg *s, double x, double y, const char *attrs, const char *text);
/* A filled rectangle by pixels, optionally with a tooltip. */
void ccsift_svg_rect(ccsift_svg *s, double x, double y, double w, double h, const char *fill,
		     const char *title);
/* Entry row (from 0) of a legend in the right margin, from its top: a
 * legend never covers data, if the margin is wide enough for its labels. */
void ccsift_svg_legend(ccsift_svg *s, int row, const char *fill, const char *label);

/* About how wide text is at font size, in pixels (0.6 em a character: a
 * little more than sans-serif takes), to keep text inside the picture. */
double ccsift_svg_text_width(const char *text, double size);
/* A legend across the picture, from x, y (the top of its first row):
 * entries side by side, a new row before one would pass the right edge.
 * Returns the y under its last row. */
double ccsift_svg_legend_across(ccsift_svg *s, double x, double y, size_t n, const char *const *fills,
				const char *const *labels);

/* text with &, <, > and " escaped, for an element or an attribute. New string. */
char *ccsift_svg_escape(const char *text);

#endif
