/* cmd-eval.c: ccsift eval --repo DIR [--since D] [--until D] [--sample N] [--seed S]
 * -- the replay benchmark: does ccsift demote the right mail? */
#include <math.h>
#include <stdio.h>
#include <unistd.h>
#include "ccsift.h"
#include "date.h"
#include "error.h"
#include "eval.h"
#include "history.h"
#include "svg.h"

/* Probabilities of engagement: the model's curve. */
static const double curve_thresholds[] = {
	0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.08, 0.1, 0.12, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5,
};

/* A share or an AUC for people: "n/a" where there was nothing to count. */
static const char *percent(double v, char buf[16])
{
	if (isnan(v))
		return "n/a";
	snprintf(buf, 16, "%.1f%%", 100 * v);
	return buf;
}

static const char *fraction(double v, char buf[16])
{
	if (isnan(v))
		return "n/a";
	snprintf(buf, 16, "%.3f", v);
	return buf;
}

/* The trade-off curve as an SVG: noise demoted (x) against engaged demoted (y). */
static int write_svg(const char *path, const char *label, const ccsift_eval_result *r, double threshold)
{
	g_autofree char *title = g_strdup_printf("%s: engaged vs noise demoted, AUC %.3f (v1 %.3f)",
						 label ? label : "ccsift eval", ccsift_eval_auc(r, FALSE, FALSE),
						 ccsift_eval_auc(r, FALSE, TRUE));
	ccsift_svg *s = ccsift_svg_open(path, 640, 480, 70, 20, 40, 60, title);
	g_autofree char *op_label = NULL;
	double ed, nd, op_ed, op_nd, op_x, op_y, lx, ly, last_x = -100, last_y = -100;

	if (!s)
		return -1;
	for (int i = 0; i <= 10; i++) {
		char label[8];

		snprintf(label, sizeof(label), "%d%%", i * 10);
		ccsift_svg_grid_x(s, i / 10.0, label);
		ccsift_svg_grid_y(s, i / 10.0, label);
	}
	ccsift_svg_axis_titles(s, "noise demoted (never-engaged Cc'd addressees marked low)", "engaged demoted");
	/* The 5% cost line the project aims under. */
	fprintf(s->f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#c00\" stroke-dasharray=\"4\"/>\n",
		s->left, ccsift_svg_y(s, 0.05), s->width - s->right, ccsift_svg_y(s, 0.05));
	fprintf(s->f, "<polyline fill=\"none\" stroke=\"#06c\" stroke-width=\"2\" points=\"%.1f,%.1f",
		ccsift_svg_x(s, 0), ccsift_svg_y(s, 0));
	for (size_t i = 0; i < G_N_ELEMENTS(curve_thresholds); i++) {
		ccsift_eval_rates(r, curve_thresholds[i], FALSE, &ed, &nd, NULL, NULL);
		fprintf(s->f, " %.1f,%.1f", ccsift_svg_x(s, nd), ccsift_svg_y(s, ed));
	}
	fprintf(s->f, "\"/>\n");
	/* Where it operates: each addressee at their own threshold. */
	ccsift_eval_rates(r, threshold, FALSE, &op_ed, &op_nd, NULL, NULL);
	op_x = ccsift_svg_x(s, op_nd);
	op_y = ccsift_svg_y(s, op_ed);
	for (size_t i = 0; i < G_N_ELEMENTS(curve_thresholds); i++) {
		char label[G_ASCII_DTOSTR_BUF_SIZE];
		double x, y;

		ccsift_eval_rates(r, curve_thresholds[i], FALSE, &ed, &nd, NULL, NULL);
		x = ccsift_svg_x(s, nd);
		y = ccsift_svg_y(s, ed);
		fprintf(s->f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"#06c\"/>", x, y);
		g_ascii_formatd(label, sizeof(label), "%g", curve_thresholds[i]);
		/* A label that would run into the last one or the red circle is
		 * left out: the points stay, the neighbours name them. */
		if ((fabs(x - last_x) < 28 && fabs(y - last_y) < 12) || (fabs(x - op_x) < 24 && fabs(y - op_y) < 14))
			continue;
		/* At the right edge, the label goes left of its point. */
		if (x + 5 + ccsift_svg_text_width(label, 10) > s->width - 2)
			ccsift_svg_text(s, x - 5, y - 5, "font-size=\"10\" text-anchor=\"end\"", label);
		else
			ccsift_svg_text(s, x + 5, y - 5, "font-size=\"10\"", label);
		last_x = x;
		last_y = y;
	}
	fprintf(s->f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"6\" fill=\"none\" stroke=\"#c00\" stroke-width=\"2\"/>\n",
		op_x, op_y);
	/* The legend, top left: no curve goes there (worse than chance). */
	lx = s->left + 12;
	ly = s->top + 16;
	fprintf(s->f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#06c\" stroke-width=\"2\"/>\n",
		lx, ly - 4, lx + 18, ly - 4);
	ccsift_svg_text(s, lx + 24, ly, NULL, "one threshold for everyone (labels: the threshold)");
	fprintf(s->f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"6\" fill=\"none\" stroke=\"#c00\" stroke-width=\"2\"/>\n",
		lx + 9, ly + 14);
	if (threshold < 0)
		op_label = g_strdup_printf("as shipped, each at their own: %.1f%% engaged, %.1f%% noise demoted",
					   100 * op_ed, 100 * op_nd);
	else
		op_label = g_strdup_printf("at threshold %g: %.1f%% engaged, %.1f%% noise demoted", threshold,
					   100 * op_ed, 100 * op_nd);
	ccsift_svg_text(s, lx + 24, ly + 18, NULL, op_label);
	fprintf(s->f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#c00\" stroke-dasharray=\"4\"/>\n",
		lx, ly + 32, lx + 18, ly + 32);
	ccsift_svg_text(s, lx + 24, ly + 36, NULL, "5% of the engaged: the most it may demote");
	return ccsift_svg_close(s);
}

static void print_text(const ccsift_eval_result *r, const ccsift_eval_options *o)
{
	char a[16], b[16], c[16], d[16];
	double ed, nd;
	unsigned e, n;

	ccsift_eval_rates(r, o->threshold, FALSE, &ed, &nd, &e, &n);
	printf("cases: %u (of %u sampled commits)\n", r->cases, r->sampled);
	printf("addressees: %u Cc'd, %u engaged (%.1f%%)\n", r->pairs->len, e,
	       r->pairs->len ? 100.0 * e / r->pairs->len : 0);
	if (o->threshold < 0)
		printf("at each addressee's own threshold:");
	else
		printf("at threshold %.2f:", o->threshold);
	printf(" engaged demoted %s, noise demoted %s\n", percent(ed, a), percent(nd, b));
	printf("AUC: %s over all pairs, %s within person (model version 1: %s, %s)\n",
	       fraction(ccsift_eval_auc(r, FALSE, FALSE), a), fraction(ccsift_eval_auc(r, TRUE, FALSE), b),
	       fraction(ccsift_eval_auc(r, FALSE, TRUE), c), fraction(ccsift_eval_auc(r, TRUE, TRUE), d));
	printf("curve:\n  probability  engaged-demoted  noise-demoted\n");
	for (size_t i = 0; i < G_N_ELEMENTS(curve_thresholds); i++) {
		ccsift_eval_rates(r, curve_thresholds[i], FALSE, &ed, &nd, NULL, NULL);
		printf("  %11.2f  %15s  %13s\n", curve_thresholds[i], percent(ed, a), percent(nd, b));
	}
}

static JsonNode *to_json(const ccsift_eval_result *r, const ccsift_eval_options *o)
{
	g_autoptr(JsonBuilder) b = json_builder_new();
	double ed, nd;
	unsigned e, n;

	ccsift_eval_rates(r, o->threshold, FALSE, &ed, &nd, &e, &n);
	json_builder_begin_object(b);
	json_add_int(b, "cases", r->cases);
	json_add_int(b, "sampled", r->sampled);
	json_add_int(b, "addressees", r->pairs->len);
	json_add_int(b, "engaged", e);
	json_add_int(b, "noise", n);
	json_add_double(b, "threshold", o->threshold < 0 ? NAN : o->threshold);  /* null: each their own */
	json_add_double(b, "engaged_demoted", ed);
	json_add_double(b, "noise_demoted", nd);
	json_add_double(b, "auc", ccsift_eval_auc(r, FALSE, FALSE));
	json_add_double(b, "auc_within_person", ccsift_eval_auc(r, TRUE, FALSE));
	json_add_double(b, "auc_v1", ccsift_eval_auc(r, FALSE, TRUE));
	json_add_double(b, "auc_v1_within_person", ccsift_eval_auc(r, TRUE, TRUE));
	json_builder_set_member_name(b, "curve");
	json_builder_begin_array(b);
	for (size_t i = 0; i < G_N_ELEMENTS(curve_thresholds); i++) {
		ccsift_eval_rates(r, curve_thresholds[i], FALSE, &ed, &nd, NULL, NULL);
		json_builder_begin_object(b);
		json_add_double(b, "threshold", curve_thresholds[i]);
		json_add_double(b, "engaged_demoted", ed);
		json_add_double(b, "noise_demoted", nd);
		json_builder_end_object(b);
	}
	json_builder_end_array(b);
	json_builder_set_member_name(b, "pairs");
	json_builder_begin_array(b);
	for (guint i = 0; i < r->pairs->len; i++) {
		const ccsift_eval_pair *p = &g_array_index(r->pairs, ccsift_eval_pair, i);

		json_builder_begin_object(b);
		json_add_string(b, "commit", p->oid);
		json_add_int(b, "time", p->time);
		json_add_string(b, "email", p->email);
		json_add_double(b, "score", p->score);
		json_add_double(b, "threshold", p->threshold);
		json_add_double(b, "score_v1", p->evidence_score);
		json_add_int(b, "model_until", p->model_until);
		json_builder_set_member_name(b, "features");
		json_builder_begin_object(b);
		for (int f = 0; f < CCSIFT_FEATURE_COUNT; f++)
			json_add_double(b, ccsift_feature_name(f), p->features.n[f]);
		json_builder_end_object(b);
		json_add_bool(b, "demotable", p->demotable);
		json_add_bool(b, "engaged", p->engaged);
		json_builder_end_object(b);
	}
	json_builder_end_array(b);
	json_builder_end_object(b);
	return json_builder_get_root(b);
}

int cmd_eval(int argc, char **argv)
{
	common_options o = { 0 };
	g_autofree char *since = NULL, *until = NULL, *plot = NULL;
	int sample = 500, seed = 1;
	g_autofree char *label = NULL;
	GOptionEntry extra[] = {
		{ "since", 0, 0, G_OPTION_ARG_STRING, &since, "Sample commits authored at or after DATE", "DATE" },
		{ "until", 0, 0, G_OPTION_ARG_STRING, &until, "... and before DATE", "DATE" },
		{ "sample", 0, 0, G_OPTION_ARG_INT, &sample, "Cases to sample (0: all; default 500)", "N" },
		{ "seed", 0, 0, G_OPTION_ARG_INT, &seed, "Random seed of the sample (default 1)", "S" },
		{ "threshold", 0, 0, G_OPTION_ARG_DOUBLE, &o.threshold, "Demote below this probability for everyone (default: each addressee's own, as shipped)", "P" },
		{ "plot", 0, 0, G_OPTION_ARG_FILENAME, &plot, "Write the trade-off curve as an SVG picture", "FILE" },
		{ "label", 0, 0, G_OPTION_ARG_STRING, &label, "Name the repository in the picture's title", "NAME" },
		{ NULL }
	};
	g_autofree GOptionEntry *entries = NULL;
	ccsift_eval_options eo;
	ccsift_eval_result *r = NULL;
	session s = { 0 };
	int rc;

	entries = option_entries(&o, OPT_BASIC, extra);
	if (!parse_options(&argc, &argv, "", "Replay a repository's history: sample commits, address them as "
			   "get_maintainer.pl --git would, score every Cc'd addressee as of the commit's date and "
			   "compare with who reviewed, acked, tested or applied it.", entries))
		return 2;
	ccsift_eval_options_init(&eo);
	eo.sample = sample;
	eo.seed = seed;
	eo.progress = isatty(2);
	if ((since && ccsift_date_parse(since, &eo.since) < 0) || (until && ccsift_date_parse(until, &eo.until) < 0)) {
		fprintf(stderr, "ccsift eval: %s\n", ccsift_error_last());
		return 2;
	}
	if (!o.repo) {
		fprintf(stderr, "ccsift eval: give --repo DIR\n");
		return 2;
	}
	if ((rc = session_load_config(&s, &o)) == 0 && (rc = session_open(&s, &o, NULL, TRUE)) == 0) {
		ccsift_index *writer = NULL;

		eo.threshold = s.opts.threshold;
		/* The fits the cases need are made and kept in the index. */
		if ((rc = ccsift_index_open(&writer, ccsift_index_path(s.idx), CCSIFT_INDEX_READ_WRITE)) == 0)
			rc = ccsift_eval_run(s.repo, s.idx, writer, &eo, &r);
		ccsift_index_free(writer);
	}
	if (rc < 0) {
		fprintf(stderr, "ccsift eval: %s\n", ccsift_error_last());
	} else {
		if (o.json)
			print_json(to_json(r, &eo));
		else
			print_text(r, &eo);
		if (plot && isnan(ccsift_eval_auc(r, FALSE, FALSE))) {
			fprintf(stderr, "ccsift eval: no curve to draw in %s: no engaged and never-engaged"
				" pairs to compare\n", plot);
			rc = -1;
		} else if (plot && write_svg(plot, label, r, eo.threshold) < 0) {
			fprintf(stderr, "ccsift eval: cannot write %s\n", plot);
			rc = -1;
		}
	}
	ccsift_eval_result_free(r);
	session_close(&s);
	common_options_clear(&o);
	return rc < 0 ? 1 : 0;
}
