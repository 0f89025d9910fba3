#!/usr/bin/env bash
# report.html in a real browser: Debian's chromium, headless, opens the
# report.html of a real comparison (two runs on this host, then the VM
# lab's pair `./run.sh --vm bookworm --vm trixie --suite exp-mlock-drain`)
# and for each: the file loads nothing and runs nothing (no script, no
# <img>, no src=, one inline <svg> per chart of report.md); a screenshot
# that is not blank; every chart drawn (each <svg> a non-zero box with
# marks in it, measured by a probe script run in a copy of the page, since
# the page itself has none); it prints (to PDF, with pages); a console
# free of messages; and the verdict
# numbers on the page equal to compare.csv's (read by column name). The
# pair's run also shows what a person reads on stdout: progress and the
# verdict, not each side's summary; with --verbose (a short pair of one
# kernel twice) both summaries too.
# test-timeout: 2400
. "$(dirname "$0")/../lib.sh"
t=$(tmpdir); trap 'rm -rf "$t"' EXIT
py=$TOP/tests/vm/report_html.py

if ! command -v chromium >/dev/null && [ "$(id -u)" = 0 ]; then
	"$TOP/tools/deps.sh" browser >"$t/deps.log" 2>&1
fi
if ! command -v chromium >/dev/null; then
	skip "report.html in Chromium" "no chromium ($(tail -n 1 "$t/deps.log" 2>/dev/null ||
		echo 'tools/deps.sh browser installs it, as root'))"
	finish
fi

# headless, no network (every host name resolves to nothing), a profile of
# its own; --no-sandbox: Chromium's sandbox refuses to run as root
browser() {
	timeout -k 5 180 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
		--no-first-run --disable-background-networking --user-data-dir="$t/chromium" \
		--host-resolver-rules='MAP * ~NOTFOUND' "$@"
}

# The probe: after the page loaded, per <svg> its box and its marks, the
# <img> elements and the broken ones, as JSON in <pre id="probe">.
probe_js='<script>addEventListener("load", () => {
	const s = [...document.querySelectorAll("svg")].map(e => {
		const r = e.getBoundingClientRect();
		return [Math.round(r.width), Math.round(r.height),
			e.querySelectorAll("path,rect,polygon,polyline,line,circle,use,text").length];
	});
	const i = [...document.images];
	const p = document.createElement("pre");
	p.id = "probe";
	p.textContent = JSON.stringify({ svgs: s, imgs: i.length,
		broken: i.filter(x => !x.complete || !x.naturalWidth).length });
	document.body.appendChild(p);
});</script>'

# check_report NAME DIR: the browser's checks of DIR/report.html
check_report() {
	local name=$1 dir=$2 html=$2/report.html charts svgs shot=$t/$1.png ink bad pages
	[ -s "$html" ] || { fail "$name: report.html" "not written in $dir"; return; }
	charts=$(grep -c '^!\[' "$dir/report.md")
	svgs=$(grep -c '<svg ' "$html")
	check "$name: self-contained: no script, no <img>, no src=, $svgs inline <svg> for $charts charts of report.md" \
		eval '! grep -Eqi "<script|<img|<link|<iframe|<object|src=" "$html" &&
		[ "$charts" -gt 0 ] && [ "$svgs" = "$charts" ]'

	browser --window-size=1366,900 --screenshot="$shot" "file://$html" >/dev/null 2>"$t/shot.err"
	if ink=$(python3 "$py" png "$shot" 2>&1); then
		pass "$name: screenshot 1366x900 not blank ($ink: colours, % of pixels not background)"
	else
		fail "$name: screenshot not blank" "$ink; $(tail -n 2 "$t/shot.err")"
	fi
	[ -n "${KEEP_SHOT:-}" ] && cp "$shot" "$KEEP_SHOT-$name.png"

	browser --no-pdf-header-footer --print-to-pdf="$t/$name.pdf" "file://$html" >/dev/null 2>&1
	if pages=$(python3 "$py" pdf "$t/$name.pdf" 2>&1); then
		pass "$name: printed (Chromium's print to PDF): $pages pages"
	else
		fail "$name: printed to PDF" "$pages"
	fi

	browser --enable-logging=stderr --v=0 --dump-dom "file://$html" >"$t/dom.html" 2>"$t/console"
	check "$name: the console is free of messages (no CONSOLE line on Chromium's log)" \
		eval '[ -s "$t/dom.html" ] && ! grep -q ":CONSOLE" "$t/console"'

	sed "s|</body>|$(tr -d '\n\t' <<<"$probe_js" | sed 's/[&|]/\\&/g')</body>|" "$html" \
		>"$dir/probe.html"
	browser --dump-dom "file://$dir/probe.html" >"$t/probe.dom" 2>/dev/null
	rm -f "$dir/probe.html"
	if bad=$(python3 "$py" probe "$t/probe.dom" "$charts" 2>&1); then
		pass "$name: every chart drawn: $charts <svg>, each a non-zero box with marks; no broken image ($bad)"
	else
		fail "$name: every chart drawn" "$bad"
	fi

	"$MMBENCH" field --where role=evidence "$dir/compare.csv" workload metric side verdict \
		mean abs_change p_adjusted exact >"$t/ev.tsv"
	if python3 "$py" verdict "$t/dom.html" "$t/ev.tsv" >"$t/verdict.out" 2>&1; then
		pass "$name: verdict numbers on the page = compare.csv ($(tail -n 1 "$t/verdict.out"), and the evidence counts)"
	else
		fail "$name: verdict numbers on the page = compare.csv" "$(head -n 3 "$t/verdict.out" | paste -sd ';')"
	fi
	# the check can fail: one evidence count changed on the page is found
	sed -E 's/evidence ([0-9]+) better/evidence 9\1 better/' "$t/dom.html" >"$t/dom-bad.html"
	check "$name: a page whose verdict count differs from compare.csv fails that check" \
		eval '! python3 "$py" verdict "$t/dom-bad.html" "$t/ev.tsv" >/dev/null 2>&1'
}

# ---- two runs on this host: mlock_mix through compaction (exact counts)
if [ "$(id -u)" = 0 ]; then
	for l in host-a host-b; do
		"$MMBENCH" run mlock_mix -p trigger=compact -p size_mb=16 -p mlock_pct=50 \
			-p rounds=2 -i 3 -w 0 --label "$l" -o "$t/host/$l" >"$t/$l.out" 2>&1 ||
			fail "host: mmbench run ($l)" "$(tail -n 2 "$t/$l.out")"
	done
	MMBENCH_RESULTS=$t/host "$TOP/tools/compare-report" host-a host-b >"$t/host.out" 2>&1
	dir=$(sed -n 's/^report: //p' "$t/host.out"); dir=${dir%/report.md}
	check "host: compare-report names report.html beside report.md" \
		eval '[ -n "$dir" ] && grep -qx "report.html: $dir/report.html" "$t/host.out"'
	check_report host "$dir"
else
	skip "host: report.html of two runs" "mlock_mix through compaction needs root"
fi

# ---- the VM lab's pair
need_lab "pair: report.html of ./run.sh --vm bookworm --vm trixie --suite exp-mlock-drain"
timeout -k 5 1500 "$TOP/run.sh" --vm bookworm --vm trixie --suite exp-mlock-drain \
	--out "$t/res" >"$t/pair.out" 2>"$t/pair.err"
rc=$?
lab_rerun "pair" "$t/pair.err"
dir=$(sed -n 's/^report: //p' "$t/pair.out" | tail -n 1); dir=${dir%/report.md}
if [ $rc != 0 ] || [ -z "$dir" ]; then
	fail "pair: ./run.sh --vm bookworm --vm trixie --suite exp-mlock-drain" \
		"exit $rc: $(tail -n 3 "$t/pair.err" | paste -sd ';')"
	finish
fi
pass "pair: ./run.sh --vm bookworm --vm trixie --suite exp-mlock-drain compared"
# What a person reads: before the comparison's text only each run's case
# outcomes ("LABEL: cases: ...", a case that did not pass) and the
# results lines; no summary table (its header and MDC note).
before=$(awk '/^mmcompare: BASE / { exit } { print }' "$t/pair.out" | grep -v '^$')
other=$(grep -Ev '^(results: |[A-Za-z0-9._+-]+: (cases: |fail |timeout |skip |died ))' <<<"$before")
check "pair: stdout is the runs' case outcomes, then the verdict; no summary table ($(wc -l <"$t/pair.out") lines, $(grep -c . <<<"$before") before the comparison)" \
	eval '[ "$(grep -c ": cases: " <<<"$before")" = 2 ] && [ -z "$other" ] &&
	grep -q "^Verdict: evidence " "$t/pair.out" && ! grep -Eq "^WORKLOAD +METRIC|^MDC: " "$t/pair.out"'
[ -z "$other" ] || echo "  not progress or verdict: $(head -n 3 <<<"$other" | paste -sd '|')"
check_report pair "$dir"

# ---- --verbose: a pair prints each run's whole summary too (a short suite)
echo "pageout -p size_mb=8 -p duration_s=0.2 -p instances=1 -i 2 -w 0" >"$t/fast"
timeout -k 5 900 "$TOP/run.sh" --vm bookworm --vm bookworm --label base --label again \
	--suite "$t/fast" --verbose --out "$t/res-v" >"$t/v.out" 2>"$t/v.err"
rc=$?
lab_rerun "pair --verbose" "$t/v.err"
check "pair --verbose: both runs' summary tables before the verdict (exit $rc)" \
	eval '[ $rc = 0 ] && [ "$(grep -Ec "^WORKLOAD +METRIC" "$t/v.out")" = 2 ] &&
	[ "$(grep -c "^MDC: " "$t/v.out")" = 2 ] && grep -q "^Verdict: evidence " "$t/v.out" &&
	grep -q "^report: " "$t/v.out"'
[ $rc = 0 ] || echo "  $(tail -n 3 "$t/v.err" | paste -sd '|')"
finish
