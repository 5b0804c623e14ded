/* thread.c: series and thread rules over per-message verdicts. */
#include "thread.h"

#define MAX_VERSIONS 64

typedef struct {
	gboolean any_patch;
	gboolean all_low;
	gboolean engaged_before;
} series;

static gboolean is_series_member(const ccsift_thread_message *m)
{
	return !m->reply && (m->kind == CCSIFT_KIND_PATCH || m->kind == CCSIFT_KIND_PULL ||
			     m->kind == CCSIFT_KIND_COVER);
}

static series *series_of(series *by_version, int version)
{
	return &by_version[CLAMP(version, 1, MAX_VERSIONS) - 1];
}

enum {
	TRAIT_REPLY = 1 << 8, TRAIT_FROM_ME = 1 << 9, TRAIT_TO_ME = 1 << 10,
	TRAIT_QUOTES_RELEVANT = 1 << 11, TRAIT_ENGAGED_BEFORE = 1 << 12, TRAIT_NO_FILES = 1 << 13,
};

/* bits 0-7 the kind, 8-13 the flags, 16-31 the version, 32-62 the number + 1 */
int64_t ccsift_thread_message_traits(const ccsift_thread_message *m)
{
	int64_t t = (m->kind & 0xff) | (m->reply ? TRAIT_REPLY : 0) | (m->from_me ? TRAIT_FROM_ME : 0) |
		    (m->to_me ? TRAIT_TO_ME : 0) | (m->quotes_relevant ? TRAIT_QUOTES_RELEVANT : 0) |
		    (m->engaged_before ? TRAIT_ENGAGED_BEFORE : 0) | (m->no_files ? TRAIT_NO_FILES : 0);

	t |= (int64_t)CLAMP(m->version, 0, 0xffff) << 16;
	return t | (int64_t)CLAMP(m->number + 1, 0, 0x3fffffff) << 32;
}

void ccsift_thread_message_set_traits(ccsift_thread_message *m, int64_t t)
{
	m->kind = (ccsift_patch_kind)(t & 0xff);
	m->reply = (t & TRAIT_REPLY) != 0;
	m->from_me = (t & TRAIT_FROM_ME) != 0;
	m->to_me = (t & TRAIT_TO_ME) != 0;
	m->quotes_relevant = (t & TRAIT_QUOTES_RELEVANT) != 0;
	m->engaged_before = (t & TRAIT_ENGAGED_BEFORE) != 0;
	m->no_files = (t & TRAIT_NO_FILES) != 0;
	m->version = (int)(t >> 16 & 0xffff);
	m->number = (int)(t >> 32 & 0x3fffffff) - 1;
}

void ccsift_thread_decide(GPtrArray *messages)
{
	series by_version[MAX_VERSIONS];
	gboolean from_me = FALSE, lifted = FALSE, any_series = FALSE, thread_low = TRUE;

	for (int v = 0; v < MAX_VERSIONS; v++)
		by_version[v] = (series){ FALSE, TRUE, FALSE };
	for (guint i = 0; i < messages->len; i++) {
		ccsift_thread_message *m = messages->pdata[i];

		from_me |= m->from_me;
		lifted |= m->lifted;
		if (!is_series_member(m))
			continue;
		series *s = series_of(by_version, m->version);
		s->engaged_before |= m->engaged_before;
		if (m->kind != CCSIFT_KIND_COVER) {
			s->any_patch = TRUE;
			s->all_low &= m->verdict == CCSIFT_VERDICT_LOW;
		}
	}
	/* A cover letter alone speaks for its series until patches arrive. */
	for (guint i = 0; i < messages->len; i++) {
		ccsift_thread_message *m = messages->pdata[i];
		series *s;

		if (!is_series_member(m))
			continue;
		s = series_of(by_version, m->version);
		if (!s->any_patch) {
			s->all_low &= m->verdict == CCSIFT_VERDICT_LOW;
		}
		any_series = TRUE;
	}
	for (int v = 0; v < MAX_VERSIONS; v++) {
		series *s = &by_version[v];

		if (s->engaged_before)
			s->all_low = FALSE;
	}
	for (guint i = 0; i < messages->len; i++) {
		ccsift_thread_message *m = messages->pdata[i];

		if (is_series_member(m))
			thread_low &= series_of(by_version, m->version)->all_low;
	}
	thread_low &= any_series;

	for (guint i = 0; i < messages->len; i++) {
		ccsift_thread_message *m = messages->pdata[i];
		gboolean member = is_series_member(m);
		series *s = member ? series_of(by_version, m->version) : NULL;

		m->final = m->verdict;
		m->why = NULL;
		if (from_me || lifted) {
			if (m->final == CCSIFT_VERDICT_LOW) {
				m->final = CCSIFT_VERDICT_RELEVANT;
				m->why = from_me ? "you wrote in this thread"
						 : "you took a message of this thread out of the low pile";
			}
		} else if (member) {
			/* A cover letter without a diffstat has nothing to be
			 * decided by but its patches: it follows them. */
			if (m->verdict == CCSIFT_VERDICT_UNKNOWN && m->kind == CCSIFT_KIND_COVER &&
			    m->no_files && s->any_patch) {
				m->final = s->all_low ? CCSIFT_VERDICT_LOW : CCSIFT_VERDICT_RELEVANT;
				m->why = s->all_low ? "every patch of its series is low"
						    : s->engaged_before ? "you engaged with an earlier version of this series"
									: "another patch of its series is relevant";
				continue;
			}
			if (m->verdict == CCSIFT_VERDICT_UNKNOWN)
				continue;  /* no decision: never demoted */
			if (s->all_low && m->verdict != CCSIFT_VERDICT_LOW) {
				m->final = CCSIFT_VERDICT_LOW;
				m->why = "every patch of its series is low";
			} else if (!s->all_low && m->verdict == CCSIFT_VERDICT_LOW) {
				m->final = CCSIFT_VERDICT_RELEVANT;
				m->why = s->engaged_before ? "you engaged with an earlier version of this series"
							   : "another patch of its series is relevant";
			}
		} else if (thread_low && !m->to_me && !m->quotes_relevant &&
			   m->verdict != CCSIFT_VERDICT_UNKNOWN) {
			m->final = CCSIFT_VERDICT_LOW;
			m->why = "a reply in a low thread";
		} else if (m->final == CCSIFT_VERDICT_LOW && (m->to_me || m->quotes_relevant)) {
			m->final = CCSIFT_VERDICT_RELEVANT;
			m->why = m->to_me ? "addressed to you" : "quotes a file where you are relevant";
		}
	}
}
