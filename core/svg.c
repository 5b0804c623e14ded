/* svg.c: plain SVG charts. */
#include <string.h>
#include <glib.h>
#include "svg.h"

char *ccsift_svg_escape(const char *text)
{
	GString *out = g_string_sized_new(text ? strlen(text) : 0);

	for (const char *c = text; c && *c; c++) {
		switch (*c) {
		case '&': g_string_append(out, "&amp;"); break;
		case '<': g_string_append(out, "&lt;"); break;
		case '>': g_string_append(out, "&gt;"); break;
		case '"': g_string_append(out, "&quot;"); break;
		default: g_string_append_c(out, *c);
		}
	}
	return g_string_free(out, FALSE);
}

ccsift_svg *ccsift_svg_open(const char *path, int width, int height, int left, int right,
			    int top, int bottom, const char *title)
{
	FILE *f = fopen(path, "w");
	ccsift_svg *s;
	locale_t base;
	char attrs[32];
	double size;

	if (!f)
		return NULL;
	s = g_new0(ccsift_svg, 1);
	*s = (ccsift_svg){ f, width, height, left, right, top, bottom };
	/* main() takes LC_ALL from the environment; "12,5" is no SVG number. */
	base = duplocale(uselocale((locale_t)0));
	if (base && !(s->c_numeric = newlocale(LC_NUMERIC_MASK, "C", base)))
		freelocale(base);
	if (s->c_numeric)
		s->saved = uselocale(s->c_numeric);
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n",
		width, height, width, height);
	fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
	/* A long title (a long --label) gets smaller rather than cut at the edge. */
	size = MIN(15.0, (width - left - 8) / MAX(1.0, ccsift_svg_text_width(title, 1.0)));
	g_snprintf(attrs, sizeof(attrs), "font-size=\"%.1f\"", MAX(size, 8.0));
	ccsift_svg_text(s, left, 24, attrs, title);
	return s;
}

int ccsift_svg_close(ccsift_svg *s)
{
	int rc;

	fprintf(s->f, "</svg>\n");
	/* A full disk shows at the latest when the buffer is flushed. */
	rc = ferror(s->f) ? -1 : 0;
	if (fclose(s->f))
		rc = -1;
	if (s->c_numeric) {
		uselocale(s->saved);
		freelocale(s->c_numeric);
	}
	g_free(s);
	return rc;
}

double ccsift_svg_x(const ccsift_svg *s, double fx)
{
	return s->left + (s->width - s->left - s->right) * fx;
}

double ccsift_svg_y(const ccsift_svg *s, double fy)
{
	return s->height - s->bottom - (s->height - s->bottom - s->top) * fy;
}

void ccsift_svg_grid_x(ccsift_svg *s, double fx, const char *label)
{
	double x = ccsift_svg_x(s, fx);

	fprintf(s->f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ddd\"/>\n",
		x, s->top, x, s->height - s->bottom);
	if (label)
		ccsift_svg_text(s, x, s->height - s->bottom + 16, "text-anchor=\"middle\"", label);
}

void ccsift_svg_grid_y(ccsift_svg *s, double fy, const char *label)
{
	double y = ccsift_svg_y(s, fy);

	fprintf(s->f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>\n",
		s->left, y, s->width - s->right, y);
	if (label)
		ccsift_svg_text(s, s->left - 6, y + 4, "text-anchor=\"end\"", label);
}

void ccsift_svg_axis_titles(ccsift_svg *s, const char *x, const char *y)
{
	g_autofree char *ex = ccsift_svg_escape(x), *ey = ccsift_svg_escape(y);

	fprintf(s->f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
		(s->left + s->width - s->right) / 2, s->height - 18, ex);
	fprintf(s->f, "<text transform=\"translate(18,%d) rotate(-90)\" text-anchor=\"middle\">%s</text>\n",
		(s->top + s->height - s->bottom) / 2, ey);
}

void ccsift_svg_text(ccsift_svg *s, double x, double y, const char *attrs, const char *text)
{
	g_autofree char *e = ccsift_svg_escape(text);

	fprintf(s->f, "<text x=\"%.1f\" y=\"%.1f\"%s%s>%s</text>\n", x, y, attrs ? " " : "",
		attrs ? attrs : "", e);
}

void ccsift_svg_rect(ccsift_svg *s, double x, double y, double w, double h, const char *fill,
		     const char *title)
{
	fprintf(s->f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"", x, y, w, h, fill);
	if (title) {
		g_autofree char *e = ccsift_svg_escape(title);

		fprintf(s->f, "><title>%s</title></rect>\n", e);
	} else {
		fprintf(s->f, "/>\n");
	}
}

void ccsift_svg_legend(ccsift_svg *s, int row, const char *fill, const char *label)
{
	double x = s->width - s->right + 12, y = s->top + 18 * row;

	ccsift_svg_rect(s, x, y, 12, 12, fill, NULL);
	ccsift_svg_text(s, x + 18, y + 10, NULL, label);
}

double ccsift_svg_text_width(const char *text, double size)
{
	return text ? g_utf8_strlen(text, -1) * size * 0.6 : 0;
}

double ccsift_svg_legend_across(ccsift_svg *s, double x, double y, size_t n, const char *const *fills,
				const char *const *labels)
{
	double cx = x;

	for (size_t i = 0; i < n; i++) {
		double w = 18 + ccsift_svg_text_width(labels[i], 12);

		if (cx > x && cx + w > s->width - 10) {
			cx = x;
			y += 18;
		}
		ccsift_svg_rect(s, cx, y, 12, 12, fills[i], NULL);
		ccsift_svg_text(s, cx + 18, y + 10, NULL, labels[i]);
		cx += w + 16;
	}
	return y + 18;
}
