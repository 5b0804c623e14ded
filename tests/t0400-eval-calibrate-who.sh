#!/bin/bash
# The replay benchmark, calibration and who, on a history whose answer is known.
. "$TEST_DIRECTORY/lib/test-lib.sh"

commit_as() { # NAME EMAIL DATE MESSAGE
	GIT_AUTHOR_NAME=$1 GIT_AUTHOR_EMAIL=$2 GIT_AUTHOR_DATE=$3 \
	GIT_COMMITTER_NAME=$1 GIT_COMMITTER_EMAIL=$2 GIT_COMMITTER_DATE=$3 \
		git -C repo commit -q -a -m "$4"
}
lines() { for i in $(seq "$2"); do echo "int $1_$i;"; done; }

git -c init.defaultBranch=master init -q repo
mkdir -p repo/d1 repo/d2 repo/d3 repo/d4 repo/d5 repo/d6
lines a 20 >repo/a.c; lines b 20 >repo/b.c
for d in 1 2 3 4 5 6; do for f in 1 2 3 4 5; do lines "f$d$f" 5 >repo/d$d/f$f.c; done; done
git -C repo add . && commit_as "Setup Person" setup@example.org 2023-01-10T10:00:00Z "initial import"
lines alice1 30 >>repo/a.c
commit_as "Alice Substance" alice@example.org 2023-03-10T10:00:00Z "a: add the first part

Signed-off-by: Alice Substance <alice@example.org>
Reviewed-by: Rita Reviewer <rita@example.org>"
lines alice2 30 >>repo/a.c
commit_as "Alice Substance" alice@example.org 2023-05-10T10:00:00Z "a: add the second part

Signed-off-by: Alice Substance <alice@example.org>
Reviewed-by: Rita Reviewer <rita@example.org>"
for f in repo/a.c repo/b.c repo/d*/*.c; do sed -i '1s/^/\/\/ new_api\n/' "$f"; done
commit_as "Bob Treewide" bob@example.org 2023-06-10T10:00:00Z "treewide: convert to new_api()

Signed-off-by: Bob Treewide <bob@example.org>"
sed -i '2s/$/ \/\/ fix typo/' repo/a.c
commit_as "Lou Typo" lou@example.org 2023-07-10T10:00:00Z "a: fix a typo

Signed-off-by: Lou Typo <lou@example.org>"
lines sam1 12 >>repo/a.c
commit_as "Sam Sender" sam@example.org 2024-02-10T10:00:00Z "a: first case

Signed-off-by: Sam Sender <sam@example.org>
Reviewed-by: Rita Reviewer <rita@example.org>
Acked-by: Alice Substance <alice@example.org>"
lines sam2 12 >>repo/a.c
commit_as "Sam Sender" sam@example.org 2024-03-10T10:00:00Z "a: second case

Signed-off-by: Sam Sender <sam@example.org>
Reviewed-by: Rita Reviewer <rita@example.org>
Acked-by: Lou Typo <lou@example.org>"
for n in 01 02 03 04 05 06 07 08 09 10; do
	lines "b$n" 12 >>repo/b.c
	commit_as "Sam Sender" sam@example.org "2024-04-${n}T10:00:00Z" "b: change $n

Signed-off-by: Sam Sender <sam@example.org>
Reviewed-by: Rita Reviewer <rita@example.org>"
done

cat >patch.eml <<MAIL
From: Newcomer <new@example.org>
Subject: [PATCH] a: change

---
diff --git a/a.c b/a.c
--- a/a.c
+++ b/a.c
@@ -1,1 +1,1 @@
-x
+y
MAIL

# The threshold is given: these tests are about the replay, not the model's tuning.
eval_json() { "$CCSIFT" eval --repo repo --threshold 0.05 --since 2024-01-01 --until 2024-04-01 --sample 0 --json "$@" >eval.json; }
jq_py() { python3 -c "import json,sys; r=json.load(open('$1')); $2"; }

test_expect_success 'eval counts the cases, addressees and engaged as get_maintainer.pl would address them' '
	eval_json &&
	jq_py eval.json "
assert r[\"cases\"] == 2, r[\"cases\"]
assert r[\"addressees\"] == 8, r[\"addressees\"]
assert r[\"engaged\"] == 4, r[\"engaged\"]
cc = sorted((p[\"commit\"][:7], p[\"email\"]) for p in r[\"pairs\"])
assert len({e for _, e in cc}) == 4 and \"sam@example.org\" not in {e for _, e in cc}, cc
"
'

test_expect_success 'eval: the reviewer and the author rank above the tree-wide and typo-only people' '
	jq_py eval.json "
score = {}
for p in r[\"pairs\"]:
    score.setdefault(p[\"email\"], []).append(p[\"score\"])
assert min(score[\"rita@example.org\"]) > max(score[\"bob@example.org\"]), score
assert min(score[\"alice@example.org\"]) > max(score[\"bob@example.org\"]), score
assert min(score[\"rita@example.org\"]) > max(score[\"lou@example.org\"]), score
assert all(0 < s < 1 for v in score.values() for s in v), score
"
'

test_expect_success 'no case sees a commit at or after its own date' '
	# Lou acked the second case and nothing before it: were the case to
	# see itself, the ack would count as an engagement of his.
	second=$(git -C repo log -1 --format=%H --grep="second case") &&
	jq_py eval.json "
p = [p for p in r[\"pairs\"] if p[\"email\"] == \"lou@example.org\" and p[\"commit\"] == \"$second\"][0]
assert p[\"engaged\"] and p[\"demotable\"], p
assert p[\"features\"][\"engaged_365\"] == 0 and p[\"features\"][\"engaged_90\"] == 0, p
assert all(q[\"time\"] <= $(git -C repo log -1 --format=%at $second) for q in r[\"pairs\"] if q[\"commit\"] == \"$second\")
assert all(q[\"model_until\"] <= q[\"time\"] for q in r[\"pairs\"]), [(q[\"model_until\"], q[\"time\"]) for q in r[\"pairs\"]]
"
'

test_expect_success 'eval prints the curve, the AUC and writes a picture' '
	"$CCSIFT" eval --repo repo --threshold 0.05 --since 2024-01-01 --until 2024-04-01 --sample 0 --plot curve.svg >out &&
	test_grep "^at threshold 0.05: engaged demoted [0-9.]*%, noise demoted [0-9.]*%" out &&
	test_grep "^AUC: [0-9.]* over all pairs, [0-9.]* within person (model version 1: " out &&
	test_grep "probability  engaged-demoted  noise-demoted" out &&
	test_grep "<polyline" curve.svg && python3 -c "import xml.dom.minidom as m; m.parse(\"curve.svg\")" &&
	# the legend says what the red circle is, with the rates the text gave
	rates=$(sed -n "s/^at threshold 0.05: engaged demoted \([0-9.]*%\), noise demoted \([0-9.]*%\)/\1 engaged, \2 noise demoted/p" out) &&
	test_grep "at threshold 0.05: $rates" curve.svg &&
	"$CCSIFT" eval --repo repo --since 2024-01-01 --until 2024-04-01 --sample 0 --plot own.svg >/dev/null &&
	test_grep "as shipped, each at their own: [0-9.]*% engaged, [0-9.]*% noise demoted" own.svg &&
	# a long --label makes a smaller title, not one cut at the edge
	"$CCSIFT" eval --repo repo --since 2024-01-01 --until 2024-04-01 --sample 0 --plot long.svg \
		--label "a repository with a long name, 2024-01..2024-04, as shipped" >/dev/null &&
	python3 -c "
import xml.etree.ElementTree as ET
root = ET.parse(\"long.svg\").getroot()
width = float(root.get(\"viewBox\").split()[2])
for t in root.iter(\"{http://www.w3.org/2000/svg}text\"):
    size = float(t.get(\"font-size\", root.get(\"font-size\")))
    if t.get(\"text-anchor\", \"start\") == \"start\" and not t.get(\"transform\"):
        assert float(t.get(\"x\")) + 0.6 * size * len(t.text or \"\") <= width, (t.text, size)
"
'

test_expect_success 'the same seed samples the same cases' '
	"$CCSIFT" eval --repo repo --sample 3 --seed 5 --json >a.json &&
	"$CCSIFT" eval --repo repo --sample 3 --seed 5 --json >b.json &&
	test_cmp a.json b.json
'

test_expect_success 'eval without --threshold judges each addressee at their own, as shipped' '
	"$CCSIFT" eval --help >help &&
	test_grep -- "--threshold=P .*(default: each addressee.s own, as shipped)" help &&
	"$CCSIFT" eval --repo repo --since 2024-01-01 --until 2024-04-01 --sample 0 --json >own.json &&
	jq_py own.json "
assert r[\"threshold\"] is None, r[\"threshold\"]
assert all(0 < p[\"threshold\"] < 1 for p in r[\"pairs\"]), [p[\"threshold\"] for p in r[\"pairs\"]]
" &&
	"$CCSIFT" eval --repo repo --since 2024-01-01 --until 2024-04-01 --sample 0 >out &&
	test_grep "^at each addressee.s own threshold:" out &&
	printf "[user]\nthreshold = 0.25\n" >eval.conf &&
	"$CCSIFT" eval --config eval.conf --repo repo --since 2024-01-01 --until 2024-04-01 --sample 0 >out &&
	test_grep "^at threshold 0.25:" out
'

test_expect_success 'a threshold is a probability: 1.5 is refused, naming the range' '
	printf "[user]\nthreshold = 1.5\n" >bad.conf &&
	! "$CCSIFT" eval --config bad.conf --repo repo --sample 1 >out 2>err &&
	test_grep "bad.conf:2: \[user\] threshold: .1.5. is not a number from 0 to 1" err
'

test_expect_success 'calibrate: the reviewer gets her own operating point, from her addressing history' '
	"$CCSIFT" calibrate --repo repo --me rita@example.org --as-of 2024-06-01T00:00:00Z --json >cal.json &&
	jq_py cal.json "
assert r[\"source\"] == \"yours\", r
assert r[\"addressed\"] > 0 and 0 < r[\"engaged\"] <= r[\"addressed\"], r
assert 0 < r[\"threshold\"] < 1 and 0 < r[\"repository_threshold\"] < 1, r
" &&
	"$CCSIFT" calibrate --repo repo --me rita@example.org --as-of 2024-06-01T00:00:00Z >cal.txt &&
	test_grep "^threshold: 0\.[0-9]* (yours)$" cal.txt &&
	test_grep "^your addressing history in that window: Cc.d on [0-9]* replayed patches, engaged with [0-9]*$" cal.txt
'

test_expect_success 'someone who stopped reviewing scores lower than while reviewing' '
	for d in 2024-05-01 2025-12-01; do
		"$CCSIFT" score --repo repo --me rita@example.org --as-of $d --json patch.eml >rita-$d.json || return 1
	done &&
	python3 -c "import json; a=json.load(open(\"rita-2024-05-01.json\")); b=json.load(open(\"rita-2025-12-01.json\")); \
		assert b[\"score\"] < a[\"score\"], (a[\"score\"], b[\"score\"]); \
		n = lambda r: {f[\"name\"]: f[\"count\"] for f in r[\"features\"]}; \
		assert n(a)[\"engaged_90\"] > 0 and n(b)[\"engaged_90\"] == 0, (n(a), n(b))"
'

test_expect_success 'calibrate --write pins the threshold in the config' '
	: >cal.conf &&
	"$CCSIFT" calibrate --config cal.conf --repo repo --me lou@example.org --as-of 2025-06-01T00:00:00Z --write >out &&
	test_grep "^threshold = 0\.[0-9][0-9][0-9]$" cal.conf &&
	test_grep "wrote threshold = 0\.[0-9][0-9][0-9] to \[user\] of cal.conf" out
'

test_expect_success 'calibrate --write changes one line: comments, order and spacing stay' '
	printf "%s\n" "# mine, hand-written" "[user]" "email   = lou@example.org   # not a comment to GKeyFile" \
		"notmuch = false" "# how low is low:" "#threshold = 0.05" "catch-up = 0" "" \
		"[repo repo]" "path = $PWD/repo" "  # keep me" "" "[notmuch]" "low = +lowcc" >kept.conf &&
	cp kept.conf before.conf &&
	"$CCSIFT" calibrate --config kept.conf --repo repo --as-of 2025-06-01T00:00:00Z --write >out &&
	test_grep "until \`ccsift tag --query .\*.\` decides them again" out &&
	diff before.conf kept.conf >d || true && cat d &&
	test "$(grep -c "^[<>]" d)" = 1 &&
	sed -n "/^\[repo repo\]/,/^\[notmuch\]/p" kept.conf >section &&
	test_grep "^path = $PWD/repo$" section && test_grep "^threshold = 0\.[0-9]*$" section &&
	sed "s/^threshold = .*/threshold = 0.5/" kept.conf >pinned.conf && cp pinned.conf kept.conf &&
	"$CCSIFT" calibrate --config kept.conf --repo repo --as-of 2025-06-01T00:00:00Z --write >out &&
	diff pinned.conf kept.conf >d || true && test "$(grep -c "^[<>]" d)" = 2 &&
	test "$(grep -c "^threshold" kept.conf)" = 1 &&
	git clone -q repo repo-other &&
	"$CCSIFT" calibrate --config kept.conf --repo repo-other --as-of 2025-06-01T00:00:00Z --write >out &&
	sed -n "/^\[user\]/,/^\[repo repo\]/p" kept.conf >user &&
	test "$(sed -n "/^#threshold = 0.05/{n;p}" user | cut -d" " -f1-2)" = "threshold =" &&
	"$CCSIFT" config check --config kept.conf >/dev/null 2>err || ! grep -q "kept.conf" err
'

# with_site_config CONF CMD...: run CMD where /etc/ccsift/config is a copy of
# CONF, in a private mount namespace (the rest of /etc is the host's); fail if
# CMD fails or changes that file.
with_site_config() {
	mkdir -p "$TRASH/host-etc" &&
	unshare -rm sh -c '
		etc=$1 conf=$2 && shift 2
		mount --rbind /etc "$etc" && mount -t tmpfs tmpfs /etc || exit 1
		for e in "$etc"/*; do ln -s "$e" /etc/ || exit 1; done
		mkdir /etc/ccsift && cp "$conf" /etc/ccsift/config || exit 1
		"$@" || exit
		cmp "$conf" /etc/ccsift/config || { echo "/etc/ccsift/config was changed" >&2; exit 1; }
	' - "$TRASH/host-etc" "$@"
}

test_expect_success 'calibrate --write without a config creates the user'\''s: file per umask, directory 0700' '
	(umask 077 && "$CCSIFT" calibrate --repo repo --me lou@example.org --as-of 2025-06-01T00:00:00Z --write >out) &&
	test_grep "wrote threshold = 0\.[0-9]* to \[user\] of $XDG_CONFIG_HOME/ccsift/config$" out &&
	test "$(stat -c %a "$XDG_CONFIG_HOME/ccsift")" = 700 &&
	test "$(stat -c %a "$XDG_CONFIG_HOME/ccsift/config")" = 600 &&
	rm -r "$XDG_CONFIG_HOME/ccsift" &&
	(umask 022 && "$CCSIFT" calibrate --repo repo --me lou@example.org --as-of 2025-06-01T00:00:00Z --write >out) &&
	test "$(stat -c %a "$XDG_CONFIG_HOME/ccsift")" = 700 &&
	test "$(stat -c %a "$XDG_CONFIG_HOME/ccsift/config")" = 644 &&
	test_grep "^threshold = 0\.[0-9]*$" "$XDG_CONFIG_HOME/ccsift/config" &&
	rm -r "$XDG_CONFIG_HOME/ccsift"
'

test_expect_success 'calibrate --write with only /etc/ccsift/config writes a copy of it to the user'\''s, never to /etc' '
	if ! unshare -rm true 2>/dev/null; then
		echo "no private mount namespace here: the /etc case is not checked" && exit 0
	fi &&
	printf "[user]\nemail = lou@example.org\nnotmuch = false\n\n[repo site]\npath = %s\n" "$PWD/repo" >site.conf &&
	with_site_config site.conf "$CCSIFT" calibrate --as-of 2025-06-01T00:00:00Z --write >out &&
	test_grep "wrote threshold = 0\.[0-9]* to \[repo site\] of $XDG_CONFIG_HOME/ccsift/config (new, a copy of /etc/ccsift/config)$" out &&
	conf=$XDG_CONFIG_HOME/ccsift/config &&
	test_grep "^email *= *lou@example.org$" "$conf" &&
	sed -n "/^\[repo site\]/,\$p" "$conf" >section &&
	test_grep "^path *= *$PWD/repo$" section && test_grep "^threshold = 0\.[0-9]*$" section &&
	"$CCSIFT" calibrate --as-of 2025-06-01T00:00:00Z >out &&
	test_grep "^repo: site$" out &&
	rm -r "$XDG_CONFIG_HOME/ccsift"
'

test_expect_success 'calibrate without --repo calibrates each configured repository' '
	git clone -q repo repo2 &&
	printf "[user]\nemail = lou@example.org\nnotmuch = false\n[repo one]\npath = %s/repo\n[repo two]\npath = %s/repo2\n" \
		"$PWD" "$PWD" >two.conf &&
	"$CCSIFT" calibrate --config two.conf --as-of 2025-06-01T00:00:00Z --json >two.json &&
	jq_py two.json "
assert [c[\"repo\"] for c in r] == [\"one\", \"two\"], r
assert all(0 < c[\"threshold\"] < 1 and c[\"source\"] == \"yours\" for c in r), r
" &&
	"$CCSIFT" calibrate --config two.conf --as-of 2025-06-01T00:00:00Z --write >out &&
	test_grep "^repo: one$" out && test_grep "^repo: two$" out &&
	sed -n "/^\[repo one\]/,/^\[repo two\]/p" two.conf >one && test_grep "^threshold = 0\.[0-9]*$" one &&
	sed -n "/^\[repo two\]/,\$p" two.conf >two && test_grep "^threshold = 0\.[0-9]*$" two &&
	! grep -q "^\[user\]" one
'

test_expect_success 'calibrate --repo NAME --write: that section only; --repo DIR unknown to the config: [user]' '
	printf "[user]\nemail = lou@example.org\nnotmuch = false\n[repo one]\npath = %s/repo\n[repo two]\npath = %s/repo2\n" \
		"$PWD" "$PWD" >named.conf &&
	"$CCSIFT" calibrate --config named.conf --repo two --as-of 2025-06-01T00:00:00Z --write >out &&
	test_grep "\[repo two\]" out &&
	sed -n "/^\[repo two\]/,\$p" named.conf >two && test_grep "^threshold = 0\.[0-9]*$" two &&
	sed -n "/^\[repo one\]/,/^\[repo two\]/p" named.conf >one && ! grep -q "^threshold" one &&
	git clone -q repo repo3 &&
	"$CCSIFT" calibrate --config named.conf --repo repo3 --as-of 2025-06-01T00:00:00Z --write >out &&
	sed -n "/^\[user\]/,/^\[repo one\]/p" named.conf >user && test_grep "^threshold = 0\.[0-9]*$" user
'


test_expect_success 'who lists everyone with history, substantive first' '
	"$CCSIFT" who --repo repo --as-of 2024-06-01T00:00:00Z patch.eml >who &&
	test_grep "substantive Alice Substance <alice@example.org>" who &&
	test_grep "substantive Rita Reviewer <rita@example.org>" who &&
	test_grep "trivial     Bob Treewide <bob@example.org>" who &&
	test_grep "trivial     Lou Typo <lou@example.org>" who
'

test_expect_success 'who --substantive --cc prints addresses for git send-email --cc-cmd' '
	"$CCSIFT" who --repo repo --as-of 2024-06-01T00:00:00Z --substantive --cc patch.eml >cc &&
	grep -q "^Alice Substance <alice@example.org>$" cc &&
	grep -q "^Rita Reviewer <rita@example.org>$" cc &&
	! grep -q bob cc && ! grep -q lou cc
'

# git send-email runs the --cc-cmd on each file, the cover letter too, and
# Cc's every line it prints; a command that fails stops the sending.
test_expect_success 'git send-email --cc-cmd: who Cc'\''s the substantive people, the cover letter too' '
	git clone -q repo sender &&
	lines mine 8 >>sender/a.c && git -C sender commit -q -a -m "a: a case of mine" &&
	lines more 8 >>sender/a.c && git -C sender commit -q -a -m "a: another case" &&
	git -C sender format-patch -q --cover-letter -o "$TRASH/series" HEAD~2 &&
	sed -i -e "s/\*\*\* SUBJECT HERE \*\*\*/a: two cases/" -e "s/\*\*\* BLURB HERE \*\*\*/Two./" \
		series/0000-cover-letter.patch &&
	git -C sender send-email --dry-run --confirm=never --to=maintainer@example.org \
		--suppress-cc=self --suppress-cc=sob --suppress-cc=cc --suppress-cc=bodycc --suppress-cc=misc-by \
		--cc-cmd="$CCSIFT_BIN who --repo $TRASH/repo --as-of 2024-06-01T00:00:00Z --substantive --cc" \
		"$TRASH"/series/*.patch >sent 2>&1 || { cat sent; false; } &&
	grep -c "^Result: OK" sent >n && test "$(cat n)" = 3 &&
	for p in series/*.patch; do
		"$CCSIFT" who --repo repo --as-of 2024-06-01T00:00:00Z --substantive --cc "$p" || return 1
	done | sort -u >expect &&
	sed -n "s/^(cc-cmd) Adding cc: \(.*\) from: .*/\1/p" sent | sort -u >actual &&
	test_cmp expect actual &&
	grep -x "Alice Substance <alice@example.org>" actual && ! grep -i "bob\|lou" actual &&
	awk "/^Dry-OK/ { n++ } n == 1" sent | sed -n "/^Cc:/,/^Subject:/p" >cover-headers &&
	grep "alice@example.org" cover-headers && grep "^Subject: \[PATCH 0/2\]" cover-headers
'

test_expect_success 'who --json: the people, scores, verdicts and reasons the text shows' '
	"$CCSIFT" who --repo repo --as-of 2024-06-01T00:00:00Z --json patch.eml >who.json &&
	jq_py who.json "
by = {p[\"email\"]: p for p in r}
text = open(\"who\").read().splitlines()
assert len(r) == len(text) // 2, (r, text)
for p, (head, reason) in zip(r, zip(text[::2], text[1::2])):
    assert head == \"%6.2f %-11s %s <%s>\" % (p[\"score\"], \"substantive\" if p[\"substantive\"] else \"trivial\", p[\"name\"] or \"\", p[\"email\"]), (head, p)
    assert reason.strip() == \"%s for them: %s\" % (p[\"verdict\"], p[\"reason\"]), (reason, p)
assert by[\"alice@example.org\"][\"substantive\"] and by[\"alice@example.org\"][\"name\"] == \"Alice Substance\", by
assert not by[\"bob@example.org\"][\"substantive\"], by
" &&
	"$CCSIFT" who --repo repo --as-of 2024-06-01T00:00:00Z --json --substantive patch.eml >sub.json &&
	jq_py sub.json "assert r and all(p[\"substantive\"] for p in r), r" &&
	test_must_fail "$CCSIFT" who --repo repo --json --cc patch.eml 2>err &&
	test_grep "do not go together" err
'

test_expect_success 'who: the verdict each person'\''s own ccsift would give the patch Cc'\''d to them' '
	"$CCSIFT" who --repo repo --as-of 2024-06-01T00:00:00Z --json patch.eml >who.json &&
	jq_py who.json "
for p in r:
    print(p[\"email\"], p[\"verdict\"])
" >verdicts && echo >>verdicts &&
	test_grep "^rita@example.org relevant$" verdicts &&
	test_grep "^bob@example.org low$" verdicts &&
	while read email verdict
	do
		test -n "$email" || continue
		sed "1a Cc: $email" patch.eml >cc-one.eml &&
		"$CCSIFT" score --repo repo --as-of 2024-06-01T00:00:00Z --me "$email" cc-one.eml >score &&
		test_grep "^verdict: $verdict;" score || return 1
	done <verdicts
'

test_expect_success 'who --min-evidence moves the line between substantive and trivial; --threshold is not its' '
	"$CCSIFT" who --repo repo --as-of 2024-06-01T00:00:00Z --min-evidence 1000 patch.eml >high &&
	! grep -q "substantive Alice" high &&
	test_grep "trivial     Alice Substance <alice@example.org>" high &&
	"$CCSIFT" who --repo repo --as-of 2024-06-01T00:00:00Z --min-evidence 0 patch.eml >low &&
	test_grep "substantive Lou Typo <lou@example.org>" low &&
	test_must_fail "$CCSIFT" who --repo repo --threshold 0.5 patch.eml 2>err &&
	test_grep "^ccsift who: Unknown option --threshold" err
'

test_expect_success 'who reads the patch from stdin when none is named, as its usage says' '
	"$CCSIFT" who --help >help &&
	test_grep "who \[OPTION.*\] \[PATCH\]$" help &&
	"$CCSIFT" who --repo repo --as-of 2024-06-01T00:00:00Z <patch.eml >who-stdin &&
	test_cmp who who-stdin
'

test_expect_success 'who scores each person as their own ccsift would, not by the sender'\''s config' '
	# the sender pins a threshold and has rules of their own: none of it
	# is anyone else'\''s ("low for them: ... under 90%", everyone relevant
	# and substantive by the always rule, no history by the never rule)
	printf "%s\n" "[user]" "email = sam@example.org" "notmuch = false" "threshold = 0.9" \
		"[repo sender]" "path = $TRASH/repo" "threshold = 0.8" "always = *" "never = *" >sender.conf &&
	"$CCSIFT" who --config sender.conf --repo repo --as-of 2024-06-01T00:00:00Z patch.eml >who-sender &&
	test_cmp who who-sender &&
	"$CCSIFT" who --repo repo --as-of 2024-06-01T00:00:00Z --substantive --cc patch.eml >cc &&
	"$CCSIFT" who --config sender.conf --repo repo --as-of 2024-06-01T00:00:00Z --substantive --cc patch.eml >cc-sender &&
	test_cmp cc cc-sender
'

test_expect_success 'eval: a Fixes: naming an addressee'\''s commit makes their pair not demotable, as in delivery' '
	git clone -q repo fixes-repo &&
	typo=$(git -C fixes-repo log -1 --format=%h --author=lou@example.org) &&
	lines sam3 12 >>fixes-repo/a.c &&
	GIT_AUTHOR_DATE=2024-05-10T10:00:00Z GIT_COMMITTER_DATE=2024-05-10T10:00:00Z \
		git -C fixes-repo commit -q -a --author="Sam Sender <sam@example.org>" -m "a: third case

Fixes: $typo (\"a: fix a typo\")
Signed-off-by: Sam Sender <sam@example.org>" &&
	"$CCSIFT" eval --repo fixes-repo --threshold 0.05 --since 2024-05-01 --until 2024-06-01 --sample 0 --json >fixes.json &&
	jq_py fixes.json "
d = {p[\"email\"]: p[\"demotable\"] for p in r[\"pairs\"]}
assert d.get(\"lou@example.org\") is False, d
assert d.get(\"bob@example.org\") is True, d
" &&
	git -C fixes-repo format-patch -1 --stdout >fixes.eml &&
	"$CCSIFT" score --repo fixes-repo --me lou@example.org --as-of 2024-05-10T10:00:00Z fixes.eml >out &&
	test_grep "names your commit" out
'

test_expect_success 'eval: a renamed file is one file of the patch, as git format-patch mails it' '
	git clone -q repo rename-repo &&
	git -C rename-repo mv b.c b-renamed.c &&
	lines sam4 12 >>rename-repo/a.c &&
	GIT_AUTHOR_DATE=2024-05-20T10:00:00Z GIT_COMMITTER_DATE=2024-05-20T10:00:00Z \
		git -C rename-repo commit -q -a --author="Sam Sender <sam@example.org>" -m "b: rename

Signed-off-by: Sam Sender <sam@example.org>" &&
	"$CCSIFT" eval --repo rename-repo --threshold 0.05 --since 2024-05-15 --until 2024-06-01 --sample 0 --json >rename.json &&
	git -C rename-repo format-patch -1 --stdout >rename.eml &&
	"$CCSIFT" score --repo rename-repo --me rita@example.org --as-of 2024-05-20T10:00:00Z --json rename.eml >score.json &&
	jq_py rename.json "
s = json.load(open(\"score.json\"))
mail = {f[\"name\"]: f[\"count\"] for f in s[\"features\"]}
p = [p for p in r[\"pairs\"] if p[\"email\"] == \"rita@example.org\"][0]
assert p[\"features\"][\"files\"] == 2 == mail[\"files\"], (p[\"features\"], mail)
# the same but for the Cc count: the mail here has no Cc
diff = {k for k in mail if k != \"ccs\" and abs(mail[k] - p[\"features\"][k]) > 1e-9}
assert not diff, (diff, p[\"features\"], mail)
"
'

test_done
