#!/bin/bash
# `ccsift stats` over a real notmuch database that `ccsift tag` (from the
# post-new hook, as in t0500) decided: how much was demoted this week, this
# month and in all, per list and per repository, how much the user opened or
# replied to anyway, the advice on the threshold, and the picture.
#
# The user is Carol Typo (tests/lib/history.md), her identity from notmuch:
# patches to drivers/net/foo.c are low for her, patches to fs/bar/bar.c are
# relevant (`always = fs/bar/*`); the setup checks both with `ccsift score`.
# Two repositories hold the same history: `mirror` takes the mail of the
# fsdevel list (by list-id), `demo` the rest (by the files).
#
# The mail is dated from 1.5 to 39.5 days ago (half days, so no message sits
# near a window's edge), in plan.txt: id, age in hours, list (A netdev, B
# fsdevel, - none), whether it ends up demoted, and the repository it is
# scored against.  Then Carol reads some of the low mail, one gets the
# replied tag, she answers one low patch (the hook then lifts its thread out
# of the low pile: it still counts as demoted, and replied to) and another
# from a mail client that files her copy with `notmuch insert` (no hook runs:
# it stays low, and is replied to by her message in its thread).  A series
# whose relevant last patch arrives after the first ones were demoted is
# lifted by ccsift, not by her: relevant, not demoted.  Dave's reply d7 is
# demoted with its thread but is no patch: the advice's share is of demoted
# patches, one replied to per thread she answered (the last tests: one reply
# to a series of two is one).  The expected counts are computed from
# plan.txt and those actions, never from ccsift's output.

. "${TEST_DIRECTORY:=$(cd "$(dirname "$0")" && pwd)}/lib/test-lib.sh"

CONTRIB=$(cd "$TEST_DIRECTORY/../contrib" && pwd)
MH="$TEST_DIRECTORY/lib/make-history.sh"

test_need notmuch git python3 procmail timeout


NOW=$(date +%s)

# id hours list demoted repo
cat >"$TRASH/plan.txt" <<'EOF'
l1 36 A yes demo
r1 60 A no demo
l2 84 B yes mirror
s0 108 - no demo
s1 108 - no demo
s2 107 - no demo
l3 132 - yes demo
l4 228 A yes demo
r2 276 B no mirror
l5 300 A yes demo
l6 396 B yes mirror
d7 516 A yes demo
l7 540 A yes demo
l8 660 - yes demo
l9 804 A yes demo
r3 876 - no demo
l10 924 B yes mirror
l11 948 A yes demo
EOF
# What Carol does: reads, tags replied, answers (id:hours of her answer).
READ="l1 l4 l9 d7 l8"
REPLIED_TAG="l6"
ANSWERS="l5:288 l8:636"
printf '%s\n' "$READ" "$REPLIED_TAG" "$ANSWERS" >"$TRASH/actions.txt"

# --- helpers ---------------------------------------------------------------

. "$TEST_DIRECTORY/lib/notmuch-lib.sh"
carol_env
hours_of() { awk -v id="$1" '$1 == id { print $2 }' "$TRASH/plan.txt"; }
list_of() { awk -v id="$1" '$1 == id { print $3 }' "$TRASH/plan.txt"; }

CC="$CAROL, Bob Treewide <bob@example.org>"

# headers ID FROM TO SUBJECT [IN-REPLY-TO]: dated and listed as plan.txt says
# (an id not in it, an answer, gives its age as HOURS=).
headers() {
	local hours=${HOURS:-$(hours_of "$1")}
	printf 'From: %s\nDate: %s\nSubject: %s\nTo: %s\nCc: %s\nMessage-ID: <%s@example.org>\n' \
		"$2" "$(date -u -R -d "@$((NOW - hours * 3600))")" "$4" "$3" "$CC" "$1"
	case $(list_of "$1") in
	A) printf 'List-Id: Netdev <netdev.lists.example.org>\n' ;;
	B) printf 'List-Id: <linux-fsdevel.lists.example.org>\n' ;;
	esac
	[ -z "${5-}" ] || printf 'In-Reply-To: <%s@example.org>\nReferences: <%s@example.org>\n' "$5" "$5"
	printf 'MIME-Version: 1.0\nContent-Type: text/plain; charset=UTF-8\n\n'
}

# patch ID SUBJECT FILE [IN-REPLY-TO]: a patch mail changing FILE.
patch() {
	headers "$1" "$NEW" "$DAVE" "$2" "${4-}" &&
	printf 'Rework it.\n\nSigned-off-by: %s\n---\n' "$NEW" &&
	(cd "$TRASH/wt" && printf '\n/* change %s */\n' "$1" >>"$3" && git diff --stat=72 -p && git checkout -q -- .) &&
	printf -- '-- \n2.39.5\n\n'
}

# --- tests -------------------------------------------------------------------

test_expect_success 'setup: two repositories, their indexes, config, Maildir, notmuch with the hook' '
	bash "$MH" repo >/dev/null &&
	git clone -q repo wt &&
	git clone -q repo mirror &&
	carol_config "always = fs/bar/*" "[repo mirror]" "path = $TRASH/mirror" \
		"list-id = linux-fsdevel.lists.example.org" "always = fs/bar/*" &&
	"$CCSIFT_BIN" index >/dev/null &&
	carol_notmuch "new;inbox;unread"
'

test_expect_success 'setup: the mail' '
	patch l1 "[PATCH] net: foo: one" drivers/net/foo.c >l1.eml &&
	patch r1 "[PATCH] fs: bar: one" fs/bar/bar.c >r1.eml &&
	patch l2 "[PATCH] net: foo: two" drivers/net/foo.h >l2.eml &&
	{
		headers s0 "$NEW" "$DAVE" "[PATCH 0/2] net: foo: settings" &&
		printf "Settings.\n\n" && (cd wt && echo "/* s */" >>drivers/net/foo.c && git diff --stat=72 && git checkout -q -- .) &&
		printf -- "\n-- \n2.39.5\n\n"
	} >s0.eml &&
	patch s1 "[PATCH 1/2] net: foo: read settings" drivers/net/foo.c s0 >s1.eml &&
	patch s2 "[PATCH 2/2] fs: bar: expose settings" fs/bar/bar.c s0 >s2.eml &&
	patch l3 "[PATCH] net: foo: three" drivers/net/foo.c >l3.eml &&
	patch l4 "[PATCH] net: foo: four" drivers/net/foo.c >l4.eml &&
	patch r2 "[PATCH] fs: bar: two" fs/bar/bar.c >r2.eml &&
	patch l5 "[PATCH] net: foo: five" drivers/net/foo.c >l5.eml &&
	patch l6 "[PATCH] net: foo: six" drivers/net/foo.h >l6.eml &&
	patch l7 "[PATCH] net: foo: seven" drivers/net/foo.c >l7.eml &&
	{ headers d7 "$DAVE" "$NEW" "Re: [PATCH] net: foo: seven" l7 && echo "Applied, thanks."; } >d7.eml &&
	patch l8 "[PATCH] net: foo: eight" drivers/net/foo.c >l8.eml &&
	patch l9 "[PATCH] net: foo: nine" drivers/net/foo.c >l9.eml &&
	patch r3 "[PATCH] fs: bar: three" fs/bar/bar.c >r3.eml &&
	patch l10 "[PATCH] net: foo: ten" drivers/net/foo.c >l10.eml &&
	patch l11 "[PATCH] net: foo: eleven" drivers/net/foo.c >l11.eml &&
	for a in $ANSWERS; do
		id=${a%%:*} &&
		{ HOURS=${a#*:} headers c-$id "$CAROL" "$NEW" "Re: [PATCH] net: foo" $id && echo "Why?"; } >c-$id.eml || return 1
	done &&
	grep -q "^List-Id: <linux-fsdevel" l2.eml &&
	grep -q "^In-Reply-To: <l5@" c-l5.eml &&
	grep -q "^diff --git a/fs/bar/bar.c" s2.eml
'

test_expect_success 'ccsift score: foo.[ch] low, fs/bar/bar.c relevant, fsdevel mail scored against mirror' '
	for spec in l1:low:demo r1:relevant:demo l2:low:mirror r2:relevant:mirror l6:low:mirror \
		s1:low:demo s2:relevant:demo l3:low:demo l8:low:demo; do
		id=${spec%%:*} v=${spec#*:} &&
		"$CCSIFT_BIN" score --json $id.eml >score.json &&
		python3 -c "import json,sys; r=json.load(open(\"score.json\")); sys.exit(0 if [r[\"verdict\"], r[\"repo\"]] == \"$v\".split(\":\") else 1)" ||
		{ cat score.json; return 1; }
	done
'

test_expect_success 'ccsift tag (hook) decides the mail and records the repository' '
	deliver l1.eml r1.eml l2.eml s0.eml s1.eml l3.eml l4.eml r2.eml l5.eml l6.eml l7.eml d7.eml \
		l8.eml l9.eml r3.eml l10.eml l11.eml &&
	nm_new &&
	expect_ids property:ccsift.verdict=low s0@example.org s1@example.org \
		$(awk "\$4 == \"yes\" { print \$1 \"@example.org\" }" plan.txt) &&
	test "$(decision l1@example.org repo)" = demo &&
	test "$(decision l2@example.org repo)" = mirror &&
	test "$(decision r2@example.org repo)" = mirror &&
	test "$(decision s0@example.org repo)" = demo &&
	# a reply in a low thread is not scored: stats counts it under the repository of its thread
	test "$(decision d7@example.org verdict)" = low &&
	test -z "$(decision d7@example.org repo)" &&
	expect_ids property:ccsift.was=low
'

test_expect_success 'Carol reads, tags replied, answers; the series gets its relevant patch' '
	for id in $READ; do notmuch tag -unread -- id:$id@example.org || return 1; done &&
	for id in $REPLIED_TAG; do notmuch tag +replied -- id:$id@example.org || return 1; done &&
	deliver s2.eml c-l5.eml &&
	nm_new &&
	notmuch insert --folder=sent --create-folder -new -inbox -unread +sent <c-l8.eml &&
	expect_ids "tag:replied" $(for id in $REPLIED_TAG; do echo $id@example.org; done) &&
	expect_ids "tag:unread and (id:l1@example.org or id:l4@example.org or id:l9@example.org or id:d7@example.org or id:l8@example.org)"
'

test_expect_success '... the thread she answered and the series are lifted, leaving ccsift.was=low' '
	expect_ids property:ccsift.was=low l5@example.org s0@example.org s1@example.org &&
	test "$(decision l5@example.org verdict)" = relevant &&
	test "$(decision l5@example.org repo)" = demo &&
	test "$(decision s1@example.org repo)" = demo &&
	test "$(decision l8@example.org verdict)" = low &&
	expect_ids "tag:lowcc and (id:l5@example.org or id:s1@example.org)"
'

# expected [SINCE-HOURS [UNTIL-HOURS]]: the stats the plan and the actions
# give, as JSON, computed here and not by ccsift. Carol's answer c-l5 went
# through the hook: not a patch, it counts in the volume only ("other").
# The picture's bars: weeks from SINCE (default 12 weeks back) to UNTIL
# (default now), or months over more than 26 weeks.
cat >"$TRASH/expected.py" <<'EOF'
import calendar, json, sys, time
since = float(sys.argv[1]) if len(sys.argv) > 1 else None
until = float(sys.argv[2]) if len(sys.argv) > 2 else None
read, replied_tag, answers = [l.split() for l in open("actions.txt")]
answered = {a.split(":")[0]: int(a.split(":")[1]) for a in answers}
lists = {"A": "netdev.lists.example.org", "B": "linux-fsdevel.lists.example.org", "-": "(no list)"}
keys = ("relevant", "demoted", "opened", "answered", "engaged", "patches", "replied", "other")
def tally():
    return {k: 0 for k in keys}
def add(t, m):
    if m.get("other"):
        t["other"] += 1
        return
    if not m["demoted"]:
        t["relevant"] += 1
        return
    t["demoted"] += 1
    t["opened"] += m["opened"]
    t["answered"] += m["answered"]
    t["engaged"] += m["opened"] or m["answered"]
    # each thread here has one patch; d7 is Dave's reply, no patch
    patch = not m["id"].startswith("d")
    t["patches"] += patch
    t["replied"] += patch and m["answered"]
end = until or 0
def windows(ms):
    out = {w: tally() for w in ("week", "month", "total")}
    for m in ms:
        for w, limit in (("week", 7 * 24), ("month", 30 * 24), ("total", None)):
            if limit is None or m["hours"] - end < limit:
                add(out[w], m)
    return out
ms = []
for line in open("plan.txt"):
    id, hours, lst, demoted, repo = line.split()
    hours = int(hours)
    if (since is not None and hours > since) or (until is not None and hours <= until):
        continue
    ms.append({"id": id, "hours": hours, "list": lists[lst], "repo": repo,
               "demoted": demoted == "yes", "opened": id in read,
               "answered": id in replied_tag or (id in answered and answered[id] < hours)})
patches = list(ms)
if (since is None or 288 <= since) and (until is None or 288 > until):
    ms.append({"id": "c-l5", "hours": 288, "other": True})
# bars: (start, end) in hours ago; the last week may be short
start = since if since is not None else 12 * 7 * 24
bars, kind = [], "weeks"
if start - end > 26 * 7 * 24:
    kind = "months"
    now = time.time()
    t0, t1 = now - start * 3600, now - end * 3600
    y, mo = time.gmtime(t0)[:2]
    b = t0
    while b < t1:
        y, mo = (y + 1, 1) if mo == 12 else (y, mo + 1)
        nxt = min(calendar.timegm((y, mo, 1, 0, 0, 0)), t1)
        bars.append(((now - b) / 3600, (now - nxt) / 3600))
        b = nxt
else:
    b = start
    while b > end:
        bars.append((b, max(b - 7 * 24, end)))
        b -= 7 * 24
periods = [tally() for _ in bars]
for m in ms:
    for i, (older, newer) in enumerate(bars):
        if older >= m["hours"] > newer:
            add(periods[i], m)
out = {"windows": windows(ms),
       "lists": {n: windows([m for m in patches if m["list"] == n]) for n in {m["list"] for m in patches}},
       "repos": {n: windows([m for m in patches if m["repo"] == n]) for n in {m["repo"] for m in patches}},
       kind: [{k: w[k] for k in keys} for w in periods]}
json.dump(out, sys.stdout, indent=1, sort_keys=True)
EOF

# actual: the same shape from ccsift stats --json.
cat >"$TRASH/actual.py" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
keys = ("relevant", "demoted", "opened", "answered", "engaged", "patches", "replied", "other")
def t(x):
    return {k: x[k] for k in keys}
def rows(rs):
    return {row["name"]: {w: t(row[w]) for w in ("week", "month", "total")} for row in rs}
kind = r["period"] + "s"
out = {"windows": {w: t(x) for w, x in r["windows"].items()},
       "lists": rows(r["lists"]), "repos": rows(r["repos"]),
       kind: [t(w) for w in r[kind]]}
json.dump(out, sys.stdout, indent=1, sort_keys=True)
EOF

test_expect_success 'the expectation itself: 12 demoted, 11 of them patches, 3 replied anyway, 7 engaged' '
	python3 expected.py >expected.json &&
	python3 -c "
import json; e = json.load(open(\"expected.json\"))[\"windows\"]
assert [e[w][\"demoted\"] for w in (\"week\", \"month\", \"total\")] == [3, 9, 12], e
assert [e[w][\"relevant\"] for w in (\"week\", \"month\", \"total\")] == [4, 5, 6], e
assert (e[\"total\"][\"opened\"], e[\"total\"][\"replied\"], e[\"total\"][\"engaged\"]) == (5, 3, 7), e
assert (e[\"total\"][\"patches\"], e[\"total\"][\"answered\"]) == (11, 3), e
assert [e[w][\"other\"] for w in (\"week\", \"month\", \"total\")] == [0, 1, 1], e"
'

test_expect_success 'ccsift stats --json: windows, lists, repositories and weeks as expected; read-only' '
	notmuch dump --include=tags --include=properties >before &&
	"$CCSIFT_BIN" stats --json >stats.json &&
	notmuch dump --include=tags --include=properties >after &&
	test_cmp before after &&
	python3 actual.py stats.json >actual.json &&
	python3 expected.py >expected.json &&
	test_cmp expected.json actual.json
'

test_expect_success 'ccsift stats --json: rates and the advice (3 of 11 demoted patches replied: too high)' '
	python3 -c "
import json; r = json.load(open(\"stats.json\")); t = r[\"windows\"][\"total\"]
assert abs(t[\"engaged_rate\"] - 7 / 12) < 1e-9, t
assert abs(t[\"share_demoted\"] - 12 / 18) < 1e-9, t
assert abs(r[\"replied_share\"] - 3 / 11) < 1e-9, r
assert r[\"threshold_too_high\"] is True and \"ccsift calibrate\" in r[\"advice\"], r
assert r[\"since\"] is None and len(r[\"weeks\"]) == 12, r"
'

test_expect_success 'ccsift stats: the terminal table has the same numbers' '
	"$CCSIFT_BIN" stats >stats.out &&
	cat stats.out &&
	python3 - stats.out expected.json <<-\EOF
	import json, sys
	out = open(sys.argv[1]).read().splitlines()
	e = json.load(open(sys.argv[2]))
	pct = lambda a, b: "%.0f%%" % (100.0 * a / b) if b else "-"
	def line(label):
	    hits = [l for l in out if l.startswith(label + " ")]
	    assert len(hits) == 1, (label, hits)
	    return hits[0][len(label):].split()
	for w, label in (("week", "last 7 days"), ("month", "last 30 days"), ("total", "all time")):
	    t = e["windows"][w]
	    want = [str(t["relevant"] + t["demoted"] + t["other"]), str(t["relevant"]), str(t["demoted"]),
	            pct(t["demoted"], t["demoted"] + t["relevant"]),
	            str(t["opened"]), pct(t["engaged"], t["demoted"]), str(t["patches"]), str(t["replied"])]
	    assert line(label) == want, (label, line(label), want)
	for kind in ("lists", "repos"):
	    for name, r in e[kind].items():
	        t = r["total"]
	        want = [str(r["week"]["demoted"]), str(r["month"]["demoted"]), str(t["demoted"]),
	                pct(t["demoted"], t["demoted"] + t["relevant"]), str(t["opened"]),
	                pct(t["engaged"], t["demoted"]), str(t["patches"]), str(t["replied"])]
	        assert line(name) == want, (name, line(name), want)
	assert "too high" in out[-1] and "ccsift calibrate" in out[-1] and "3 of 11 demoted patches" in out[-1], out[-1]
	EOF
'

# check-svg.py SVG EXPECTED.json: the bars are split as the expected periods
# are; the picture is well-formed, has a viewBox, and every text (title,
# legend, labels; 0.6 em a character, a little more than sans-serif takes)
# lies inside its width; the dates under the axis have their year.
cat >"$TRASH/check-svg.py" <<'EOF'
import json, re, sys
import xml.etree.ElementTree as ET
S = "{http://www.w3.org/2000/svg}"
ns = {"s": S[1:-1]}
root = ET.parse(sys.argv[1]).getroot()
e = json.load(open(sys.argv[2]))
kind = "weeks" if "weeks" in e else "months"
e = e[kind]
vb = [float(v) for v in root.get("viewBox").split()]
assert vb[:2] == [0, 0] and vb[2] == float(root.get("width")), vb
width = vb[2]
bars = root.findall("s:g[@class=\"%s\"]" % kind[:-1], ns)
assert len(bars) == len(e), (len(bars), len(e))
for bar, w in zip(bars, e):
    title = bar.find("s:title", ns).text
    got = [int(n) for n in re.findall(r"(\d+) (?:relevant|demoted|opened|answered)", title)]
    assert got == [w["relevant"], w["demoted"], w["opened"], w["answered"]], (title, w)
    parts = [w["answered"], w["engaged"] - w["answered"], w["demoted"] - w["engaged"], w["relevant"], w["other"]]
    rects = bar.findall("s:rect", ns)
    assert len(rects) == len([p for p in parts if p]), (title, len(rects))
    assert len({r.get("fill") for r in rects}) == len(rects), title
    heights = [float(r.get("height")) for r in rects]
    if sum(parts):
        unit = sum(heights) / sum(parts)
        assert all(abs(h / unit - p) < 0.05 for h, p in zip(heights, [p for p in parts if p])), (title, heights)
texts = list(root.iter(S + "text"))
for t in texts:
    if t.get("transform"):
        continue            # the rotated y axis title, left of the plot
    size = float(t.get("font-size", root.get("font-size")))
    x, w = float(t.get("x")), 0.6 * size * len(t.text or "")
    anchor = t.get("text-anchor", "start")
    lo, hi = {"start": (x, x + w), "middle": (x - w / 2, x + w / 2), "end": (x - w, x)}[anchor]
    assert 0 <= lo and hi <= width, ("outside the picture", t.text, lo, hi, width)
dates = [t.text for t in texts if t.get("class") == "date"]
assert dates, "no dates under the axis"
pattern = r"\d{4}-\d\d-\d\d" if kind == "weeks" else r"\d{4}-\d\d"
assert all(re.fullmatch(pattern, d) for d in dates), dates
alltext = " ".join(t.text or "" for t in texts)
for label in ("demoted, answered anyway", "demoted, opened", "demoted, not opened", "relevant",
              "not a patch, or undecided", "messages"):
    assert label in alltext, label
print(len(bars), kind, dates[0])
EOF

test_expect_success 'ccsift stats --plot: 12 weekly bars of all the mail decided, split as the weeks are' '
	"$CCSIFT_BIN" stats --plot weeks.svg >/dev/null &&
	python3 expected.py >expected.json &&
	python3 check-svg.py weeks.svg expected.json >out &&
	test_grep "^12 weeks $(date -u -d "@$((NOW - 84 * 86400))" +%Y-%m-%d)" out &&
	python3 -c "
import json; e = json.load(open(\"expected.json\"))[\"weeks\"]
assert sum(1 for w in e if w[\"demoted\"]) == 6 and sum(1 for w in e if w[\"relevant\"] + w[\"demoted\"] + w[\"other\"]) == 6, e
assert sum(w[\"relevant\"] for w in e) == 6 and sum(w[\"other\"] for w in e) == 1, e"
'

test_expect_success 'ccsift stats --plot --since --until: the bars follow the range, months over half a year' '
	since=$(date -u -d "@$((NOW - 20 * 86400))" +%Y-%m-%dT%H:%M:%SZ) &&
	"$CCSIFT_BIN" stats --since "$since" --plot since.svg --json >since.json &&
	python3 expected.py $((20 * 24)) >expected.json &&
	python3 check-svg.py since.svg expected.json >out &&
	test_grep "^3 weeks ${since%T*}" out &&
	since=$(date -u -d "@$((NOW - 40 * 86400))" +%Y-%m-%dT%H:%M:%SZ) &&
	until=$(date -u -d "@$((NOW - 10 * 86400))" +%Y-%m-%dT%H:%M:%SZ) &&
	"$CCSIFT_BIN" stats --since "$since" --until "$until" --plot range.svg --json >range.json &&
	python3 actual.py range.json >actual.json &&
	python3 expected.py $((40 * 24)) $((10 * 24)) >expected.json &&
	test_cmp expected.json actual.json &&
	python3 check-svg.py range.svg expected.json >out &&
	test_grep "^5 weeks ${since%T*}" out &&
	since=$(date -u -d "@$((NOW - 400 * 86400))" +%Y-%m-%dT%H:%M:%SZ) &&
	"$CCSIFT_BIN" stats --since "$since" --plot year.svg --json >year.json &&
	python3 actual.py year.json >actual.json &&
	python3 expected.py $((400 * 24)) >expected.json &&
	test_cmp expected.json actual.json &&
	python3 check-svg.py year.svg expected.json >out &&
	grep -Eq "^1[45] months ${since%-*}" out
'

test_expect_success 'ccsift stats --since: only mail dated since then (20 days ago)' '
	since=$(date -u -d "@$((NOW - 20 * 86400))" +%Y-%m-%dT%H:%M:%SZ) &&
	"$CCSIFT_BIN" stats --json --since "$since" >since.json &&
	python3 actual.py since.json >actual.json &&
	python3 expected.py $((20 * 24)) >expected.json &&
	test_cmp expected.json actual.json &&
	python3 -c "import json; r = json.load(open(\"since.json\")); assert r[\"since\"] == \"$since\", r" &&
	"$CCSIFT_BIN" stats --since "$since" >since.out &&
	test_grep "^since $since " since.out
'

test_expect_success 'the advice: none replied to but only one opened is too few to tell' '
	since=$(date -u -d "@$((NOW - 7 * 86400))" +%Y-%m-%dT%H:%M:%SZ) &&
	"$CCSIFT_BIN" stats --since "$since" >week.out &&
	python3 expected.py $((7 * 24)) >expected.json &&
	python3 -c "import json; t = json.load(open(\"expected.json\"))[\"windows\"][\"total\"]; assert (t[\"replied\"], t[\"demoted\"], t[\"engaged\"]) == (0, 3, 1), t" &&
	tail -n 1 week.out >advice &&
	test_grep "0 of 3 demoted patches" advice &&
	test_grep "opened only 1 of the 3 demoted: too few to tell" advice &&
	! grep "looks right" advice
'

test_expect_success 'the advice: with nothing of the demoted read, it does not claim the threshold looks right' '
	since=$(date -u -d "@$((NOW - 100 * 3600))" +%Y-%m-%dT%H:%M:%SZ) &&
	until=$(date -u -d "@$((NOW - 40 * 3600))" +%Y-%m-%dT%H:%M:%SZ) &&
	"$CCSIFT_BIN" stats --since "$since" --until "$until" >unread.out &&
	python3 expected.py 100 40 >expected.json &&
	python3 -c "import json; t = json.load(open(\"expected.json\"))[\"windows\"][\"total\"]; assert (t[\"demoted\"], t[\"engaged\"]) == (1, 0), t" &&
	tail -n 1 unread.out >advice &&
	test_grep "opened none of the 1 demoted" advice &&
	test_grep "no advice yet" advice &&
	! grep "looks right" advice
'

test_expect_success 'no decision recorded (mail delivered by procmail, ccsift filter and notmuch insert): stats says why' '
	U2=$TRASH/u2 &&
	mkdir -p "$U2/mail/cur" "$U2/mail/new" "$U2/mail/tmp" "$U2/data" &&
	printf "%s\n" "[database]" "path=$U2/mail" "[user]" "name=Carol Typo" \
		"primary_email=carol@example.org" "[new]" "tags=inbox;unread" >"$U2/notmuch-config" &&
	NOTMUCH_CONFIG=$U2/notmuch-config notmuch new >/dev/null &&
	for m in l1 r1 l3; do
		procmail -m HOME="$HOME" XDG_DATA_HOME="$U2/data" NOTMUCH_CONFIG="$U2/notmuch-config" \
			CCSIFT="$CCSIFT_BIN" "$CONTRIB/notmuch/procmailrc-insert" <$m.eml || return 1
	done &&
	test "$(NOTMUCH_CONFIG=$U2/notmuch-config notmuch count tag:lowcc)" = 2 &&
	test ! -e "$U2/data/ccsift/decisions.db" &&
	XDG_DATA_HOME=$U2/data NOTMUCH_CONFIG=$U2/notmuch-config "$CCSIFT_BIN" stats --plot none.svg >none.out 2>none.err &&
	cat none.out none.err &&
	test_grep "No decision of .ccsift tag. is recorded" none.out &&
	test_grep "2 messages carry the low tag" none.out &&
	test_grep "notmuch insert" none.out &&
	test_grep "ccsift tag --query" none.out &&
	! grep -i "looks right" none.out &&
	! grep "^all time" none.out &&
	test_grep "not written" none.err && test ! -e none.svg &&
	XDG_DATA_HOME=$U2/data NOTMUCH_CONFIG=$U2/notmuch-config "$CCSIFT_BIN" stats --json >none.json &&
	python3 -c "import json; r = json.load(open(\"none.json\")); assert r[\"decisions_recorded\"] == 0 and \"ccsift tag --query\" in r[\"note\"], r"
'

test_expect_success '... and after ccsift tag --query "*", as it says, the numbers' '
	U2=$TRASH/u2 &&
	XDG_DATA_HOME=$U2/data NOTMUCH_CONFIG=$U2/notmuch-config "$CCSIFT_BIN" tag --query "*" &&
	XDG_DATA_HOME=$U2/data NOTMUCH_CONFIG=$U2/notmuch-config "$CCSIFT_BIN" stats --json >some.json &&
	python3 -c "
import json; r = json.load(open(\"some.json\")); t = r[\"windows\"][\"total\"]
assert r[\"note\"] is None and (t[\"demoted\"], t[\"relevant\"], t[\"all\"]) == (2, 1, 3), r"
'

# u3 COMMAND...: in a notmuch database and decisions store of their own.
u3() { XDG_DATA_HOME=$TRASH/u3/data NOTMUCH_CONFIG=$TRASH/u3/notmuch-config "$@"; }

test_expect_success 'setup: a low series of two (cover, patches) that Dave answers, in a database of its own' '
	mkdir -p u3/mail/cur u3/mail/new u3/mail/tmp u3/data &&
	printf "%s\n" "[database]" "path=$TRASH/u3/mail" "[user]" "name=Carol Typo" \
		"primary_email=carol@example.org" "[new]" "tags=new;inbox;unread" >u3/notmuch-config &&
	{
		HOURS=52 headers t0 "$NEW" "$DAVE" "[PATCH 0/2] net: foo: tidy" &&
		printf "Tidy.\n\n" &&
		(cd wt && echo "/* t */" >>drivers/net/foo.c && echo "/* t */" >>drivers/net/foo.h &&
		 git diff --stat=72 && git checkout -q -- .) &&
		printf -- "\n-- \n2.39.5\n\n"
	} >t0.eml &&
	HOURS=51 patch t1 "[PATCH 1/2] net: foo: tidy the code" drivers/net/foo.c t0 >t1.eml &&
	HOURS=50 patch t2 "[PATCH 2/2] net: foo: tidy the header" drivers/net/foo.h t0 >t2.eml &&
	{ HOURS=49 headers dt2 "$DAVE" "$NEW" "Re: [PATCH 2/2] net: foo: tidy the header" t2 && echo "Fine."; } >dt2.eml &&
	{ HOURS=48 headers ct2 "$CAROL" "$NEW" "Re: [PATCH 2/2] net: foo: tidy the header" t2 && echo "Why?"; } >ct2.eml &&
	cp t0.eml t1.eml t2.eml dt2.eml u3/mail/new/ &&
	u3 notmuch new --quiet &&
	u3 "$CCSIFT_BIN" tag --untag new &&
	test "$(u3 notmuch count tag:lowcc)" = 4 &&
	test "$(XDG_DATA_HOME=$TRASH/u3/data decision dt2@example.org repo)" = ""
'

test_expect_success 'one reply of hers to the series is one demoted patch replied to, of two; no (unknown) repository' '
	u3 notmuch insert --folder=sent --create-folder +sent -unread -inbox <ct2.eml &&
	u3 "$CCSIFT_BIN" tag --untag new &&
	test "$(u3 notmuch count tag:lowcc)" = 0 &&
	u3 "$CCSIFT_BIN" stats --json >series.json &&
	python3 - series.json <<-\EOF &&
	import json, sys
	r = json.load(open(sys.argv[1])); t = r["windows"]["total"]
	# the cover, both patches and Dave reply were demoted and are answered;
	# the threshold scored two patches low, and she replied to one of them
	got = {k: t[k] for k in ("demoted", "answered", "engaged", "patches", "replied")}
	assert got == {"demoted": 4, "answered": 4, "engaged": 4, "patches": 2, "replied": 1}, got
	assert abs(r["replied_share"] - 0.5) < 1e-9, r
	assert "1 of 2 demoted patches" in r["advice"], r["advice"]
	# Dave reply, never scored, counts under the repository of its thread
	assert [(x["name"], x["total"]["demoted"]) for x in r["repos"]] == [("demo", 4)], r["repos"]
	EOF
	u3 "$CCSIFT_BIN" stats >series.out &&
	cat series.out &&
	test_grep "^demo  *4  *4  *4 .*  2  *1$" series.out &&
	! grep "unknown" series.out
'

test_expect_success 'errors: a bad --since is a usage error; no notmuch database, exit 1' '
	rc=0 && "$CCSIFT_BIN" stats --since yesterday 2>err || rc=$? &&
	test "$rc" = 2 && test_grep "bad date" err &&
	rc=0 && NOTMUCH_CONFIG=$TRASH/nothing "$CCSIFT_BIN" stats 2>err || rc=$? &&
	test "$rc" = 1 && test_grep "notmuch database" err
'

test_done
