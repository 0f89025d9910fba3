#!/usr/bin/env bash
# mmcompare's verdict view: evidence metrics (metrics.csv) first, exact
# changes, absolute change from a base of 0, times from TCG guests emulated
# and kept out of the verdict, Benjamini-Hochberg across the judged metrics,
# zero rows hidden, units scaled, long meta values cut, and the layout of
# the two experiments the lab answers (a/d bits, mlock drain) in one screen.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/gen.sh"
t=$(tmpdir)
trap 'rm -rf "$t"' EXIT

if [ ! -x "$MMCOMPARE" ]; then
	fail "mmcompare built" "$MMCOMPARE missing"
	finish
fi

# addmetrics DIR WORKLOAD METRIC ROLE TIMED [CLAIM]: a metrics.csv row.
addmetrics() {
	[ -f "$1/metrics.csv" ] ||
		echo "schema,workload,metric,unit,better,role,timed,claim" >"$1/metrics.csv"
	echo "1,$2,$3,u,lower,$4,$5,${6:-}" >>"$1/metrics.csv"
}

# The section 3 pair as the lab measured it: bookworm drains once per
# migrated page, trixie only for mlocked pages; both ran under TCG.
for side in bookworm trixie; do
	mkrun "$t/$side/r" $side vm=qemu vm_accel=tcg \
		command_line="bench/mmbench suite $(printf 'x%.0s' $(seq 900)) $side"
done
for pct in 0 50; do
	c="mlock_pct=$pct;threads=1"
	addrows "$t/bookworm/r" mlock_mix "$c" calls_per_migrated_page:lru_add_drain \
		calls/migrated_page lower 1 1 1 1 1
	[ $pct = 0 ] && v=0.0001 || v=0.5
	addrows "$t/trixie/r" mlock_mix "$c" calls_per_migrated_page:lru_add_drain \
		calls/migrated_page lower $v $v $v $v $v
	addrows "$t/bookworm/r" mlock_mix "$c" migrate_time ns lower \
		1661434306 1701434306 1651434306 1681434306 1671434306
	addrows "$t/trixie/r" mlock_mix "$c" migrate_time ns lower \
		2661434306 2701434306 2651434306 2681434306 2671434306
	addrows "$t/bookworm/r" mlock_mix "$c" own_pages_mlock_lost pages lower 0 0 0 0 0
	addrows "$t/trixie/r" mlock_mix "$c" own_pages_mlock_lost pages lower 0 0 0 0 0
	addrows "$t/bookworm/r" mlock_mix "$c" vm_pgmigrate_success count info 16384 16384 16384 16384 16384
	addrows "$t/trixie/r" mlock_mix "$c" vm_pgmigrate_success count info 16384 16384 16384 16384 16384
	addrows "$t/bookworm/r" mlock_mix "$c" minflt faults lower 1000 1010 990 1005 995
	addrows "$t/trixie/r" mlock_mix "$c" minflt faults lower 1001 1011 991 1004 996
done
# trixie's run declares its evidence; bookworm's is from before metrics.csv
addmetrics "$t/trixie/r" mlock_mix calls_per_migrated_page:lru_add_drain evidence 0 "drain per page"
addmetrics "$t/trixie/r" mlock_mix own_pages_mlock_lost evidence 0
addmetrics "$t/trixie/r" mlock_mix migrate_time context 1

out=$(COLUMNS=100 "$MMCOMPARE" "$t/bookworm/r" "$t/trixie/r" 2>"$t/err")
rc=$?
check "exit 0" [ $rc -eq 0 ]
row() { grep -E "^ +$1 " <<<"$out" | sed -n "${2:-1}p"; }
line=$(row calls_per_migrated_page:lru_add_drain 1)
check "mlock_pct=0: drain calls 1.00 -> 0.0001, better, exact" \
	grep -Eq '^ +calls_per_migrated_page:lru_add_drain +1\.00 +0\.0001 +-99\.99% +better +exact$' <<<"$line"
line=$(row calls_per_migrated_page:lru_add_drain 2)
check "mlock_pct=50: drain calls 1.00 -> 0.5000, better, exact" \
	grep -Eq ' +1\.00 +0\.5000 +-50\.00% +better +exact$' <<<"$line"
check "evidence comes before anything else of its case" \
	eval '[ "$(grep -A1 -E "^  mlock_pct=0$" <<<"$out" | tail -n1)" = "    evidence" ]'
check "an unchanged evidence metric is still shown (0 -> 0, exact)" \
	grep -Eq '^ +own_pages_mlock_lost +0 +0 +0 +same +exact$' <<<"$(row own_pages_mlock_lost)"
check "emulated times are not shown in the verdict view, but counted" \
	eval '! grep -q migrate_time <<<"$out" && grep -q "1 emulated times (TCG)" <<<"$out"'
check "the summary counts the evidence and no TCG time" \
	eval 'tr -s "\n " "  " <<<"$out" | grep -q "Verdict: evidence 2 better, 0 worse, 2 unchanged; other judged metrics 0 better, 0 worse, 2 unchanged; 2 emulated times not judged\. *$"'
check "the method names the correction and the TCG sides" \
	eval 'grep -q "Benjamini-Hochberg" <<<"$out" && grep -q "^Ran under QEMU TCG: bookworm, trixie" <<<"$out"'
"$MMCOMPARE" --markdown "$t/bookworm/r" "$t/trixie/r" >"$t/md"
check "markdown: the verdict and the headline table come before the full tables" \
	eval '[ "$(grep -n "mmcompare:verdict" "$t/md" | cut -d: -f1)" -lt "$(grep -n "mmcompare:headline mlock_mix" "$t/md" | cut -d: -f1)" ] &&
	[ "$(grep -n "mmcompare:headline mlock_mix" "$t/md" | cut -d: -f1)" -lt "$(grep -n "mmcompare:workload mlock_mix" "$t/md" | cut -d: -f1)" ]'
check "markdown: the full meta value is kept" grep -q "$(printf 'x%.0s' $(seq 900)) trixie" "$t/md"
check "the whole comparison fits one screen (<= 40 lines)" [ "$(wc -l <<<"$out")" -le 40 ]
check "no line wider than the terminal (100)" \
	eval '[ "$(awk "{ if (length > m) m = length } END { print m }" <<<"$out")" -le 100 ]'
check "a long meta value is cut in text, to the part where the sides differ" \
	eval 'grep -Eq "^  command_line +\.\.\.x+ bookworm +\.\.\.x+ trixie *$" <<<"$out"'
csv=$("$MMCOMPARE" --csv "$t/bookworm/r" "$t/trixie/r")
check "CSV: evidence row marked exact and judged, decided by exact, MDC 0" \
	grep -q '^mlock_mix,mlock_pct=0;threads=1,calls_per_migrated_page:lru_add_drain,.*,better,evidence,0,0,1,0,Benjamini-Hochberg,1,-0.9999,drain per page,0,1,exact,,,0,[0-9.e-]*,,0$' <<<"$csv"
check "CSV: emulated time row" \
	grep -q '^mlock_mix,mlock_pct=0;threads=1,migrate_time,.*,1,trixie,.*,0,emulated,context,1,1,0,,Benjamini-Hochberg,0,1000000000,,,1,,,,,,,[0-9.e]*$' <<<"$csv"

# --judge-emulated judges the times (of one run per side, with
# --iterations-as-samples): 1.7 s -> 2.7 s is worse.
"$MMCOMPARE" --csv --judge-emulated "$t/bookworm/r" "$t/trixie/r" >"$t/je.csv" 2>/dev/null
check "--judge-emulated alone: a time of one run per side is still not judged (one_run)" \
	grep -q '^mlock_mix,mlock_pct=0;threads=1,migrate_time,.*,1,trixie,.*,0,one_run,context,1,1,0,' "$t/je.csv"
out=$(COLUMNS=200 "$MMCOMPARE" --judge-emulated --iterations-as-samples "$t/bookworm/r" "$t/trixie/r" 2>/dev/null)
check "a wide terminal has the unit and CI columns" \
	grep -Eq '^ +calls_per_migrated_page:lru_add_drain +calls/migrated_page +1\.00 +0\.0001 .* exact$' <<<"$out"
check "--judge-emulated: CI of the time in seconds" \
	grep -Eq '^ +migrate_time +s +1\.67 +2\.67 +\+59\.76% +worse +iters 1/1 +[0-9.e-]+ +[0-9.e-]+ +\[0\.97[0-9]*, 1\.03[0-9]*\]$' <<<"$out"
out=$(COLUMNS=100 "$MMCOMPARE" --judge-emulated --iterations-as-samples "$t/bookworm/r" "$t/trixie/r" 2>/dev/null)
check "--judge-emulated: the time is judged (worse) and scaled to seconds" \
	grep -Eq '^ +migrate_time +1\.67 s +2\.67 s +\+59\.76% +worse ' <<<"$out"
"$MMCOMPARE" --fail-on-regression "$t/bookworm/r" "$t/trixie/r" >/dev/null 2>&1
check "--fail-on-regression: an emulated time that got worse is no regression" [ $? -eq 0 ]
"$MMCOMPARE" --fail-on-regression --judge-emulated --iterations-as-samples "$t/bookworm/r" "$t/trixie/r" >/dev/null 2>&1
check "--fail-on-regression --judge-emulated --iterations-as-samples: it is" [ $? -eq 3 ]

# Section 2: referenced after migration 0 on 5.10, 100 on 6.1: a base of 0.
mkrun "$t/bullseye/r" bullseye
mkrun "$t/bookworm2/r" bookworm
addrows "$t/bullseye/r" migrate_ad "size_mb=256" referenced_after_migrate_pct pct higher 0 0 0 0 0 0 0 0 0 0
addrows "$t/bookworm2/r" migrate_ad "size_mb=256" referenced_after_migrate_pct pct higher 100 100 100 99.98 100 100 100 100 100 100
addmetrics "$t/bookworm2/r" migrate_ad referenced_after_migrate_pct evidence 0
out=$(COLUMNS=200 "$MMCOMPARE" "$t/bullseye/r" "$t/bookworm2/r")
check "base 0: absolute change in points, better, significant" \
	grep -Eq '^ +referenced_after_migrate_pct +pct +0 +100\.00 +\+100\.00 pts +better +iters 1/1 +[0-9.e-]+ +[0-9.e-]+ ' <<<"$out"

# Benjamini-Hochberg: 20 metrics, one clear change, the rest noise with one
# raw p near 0.03: raw p calls it, the adjusted p does not.
mkrun "$t/fa/r" fa
mkrun "$t/fb/r" fb
addrows "$t/fa/r" w "" clear count lower 100 101 99 100 100
addrows "$t/fb/r" w "" clear count lower 90 91 89 90 90
addrows "$t/fa/r" w "" edge count lower 100 102 98 101 99
addrows "$t/fb/r" w "" edge count lower 102.9 104.9 100.9 103.9 101.9
for i in $(seq 1 18); do
	addrows "$t/fa/r" w "" noise$i count lower 10 11 9 10 10
	addrows "$t/fb/r" w "" noise$i count lower 10 11 9 10 10
done
raw=$("$MMCOMPARE" --all --correction none "$t/fa/r" "$t/fb/r")
bh=$("$MMCOMPARE" --all "$t/fa/r" "$t/fb/r")
check "raw p: the borderline metric is significant" grep -Eq '^Amean +edge +.*\*' <<<"$raw"
check "Benjamini-Hochberg: it is not, the clear change still is" \
	eval '! grep -Eq "^Amean +edge +.*\*" <<<"$bh" && grep -Eq "^Amean +clear +.*\*" <<<"$bh"'
check "Padj row shows the adjusted p" grep -Eq '^Padj +edge +- +0\.[0-9]+$' <<<"$bh"
out=$("$MMCOMPARE" "$t/fa/r" "$t/fb/r")
check "zero-variance-free rows that did not change are counted, not shown" \
	eval '! grep -q noise1 <<<"$out" && grep -q "not shown: 19 unchanged" <<<"$out"'
check "--correction bogus: exit 2" eval '"$MMCOMPARE" --correction bogus "$t/fa/r" "$t/fb/r" >/dev/null 2>&1; [ $? -eq 2 ]'

# Rows that are 0 on every side are hidden and counted.
mkrun "$t/za/r" za
mkrun "$t/zb/r" zb
addrows "$t/za/r" w "" zero count lower 0 0 0
addrows "$t/zb/r" w "" zero count lower 0 0 0
addrows "$t/za/r" w "" big count lower 1661434306 1661434306 1661434306
addrows "$t/zb/r" w "" big count lower 1761434306 1761434306 1761434306
out=$("$MMCOMPARE" "$t/za/r" "$t/zb/r")
check "zero rows hidden and counted" eval '! grep -Eq "^ +zero " <<<"$out" && grep -q "1 zero on every side" <<<"$out"'
check "large counts with thousands separators" grep -Eq '1,661,434,306 +1,761,434,306' <<<"$out"
check "a change between constant sides is exact and judged (worse)" \
	grep -Eq '^ +big +count .* worse +exact' <<<"$out"

# An unchanged evidence metric says how small a change it could have seen,
# with 80% power at the level that decides (one comparison: 0.05): sd 1.58
# on both sides, n = 5, se = sqrt(2 * 2.5 / 5) = 1, df 8: (t(0.975, 8) +
# t(0.8, 8)) * 1 = 2.306 + 0.889 = 3.19 (bench/results/mdc.h).
mkrun "$t/sa/r" sa
mkrun "$t/sb/r" sb
addrows "$t/sa/r" w "" ev count lower 100 102 98 101 99
addrows "$t/sb/r" w "" ev count lower 101 99 100 98 102
addmetrics "$t/sb/r" w ev evidence 0
out=$(COLUMNS=200 "$MMCOMPARE" "$t/sa/r" "$t/sb/r" 2>/dev/null)
check "same: the minimum detectable change is shown (mdc 3.2%, what decided: iters 1/1)" \
	grep -Eq '^ +ev +count +100\.00 +100\.00 +0 +same, mdc 3\.2% +iters 1/1 ' <<<"$out"

# Markdown from hostile case strings and metric-less workloads: every table
# row keeps its cells, nothing becomes code, a link or HTML.
mkrun "$t/ma/r" ma
mkrun "$t/mb/r" mb
addrows "$t/ma/r" 'w|x' 'k=a|b`c`[l](u)<b>' m count lower 1 1 1
addrows "$t/mb/r" 'w|x' 'k=a|b`c`[l](u)<b>' m count lower 2 2 2
addrows "$t/ma/r" quiet "" q count lower 1 2 3
addrows "$t/mb/r" quiet "" q count lower 1 2 3
"$MMCOMPARE" --markdown "$t/ma/r" "$t/mb/r" >"$t/md2"
cells() { sed 's/\\|//g' | awk -F'|' '{ print NF }'; }
check "markdown: a table row keeps its cells whatever the case string holds" \
	eval '[ "$(grep "^| line " "$t/md2" | head -n 1 | cells)" = "$(grep "^| m | Amean " "$t/md2" | cells)" ] &&
	[ "$(grep "^| metric " "$t/md2" | head -n 1 | cells)" = "$(grep "^| m | count " "$t/md2" | cells)" ]'
check "markdown: no unescaped backquote, bracket or angle bracket from the input" \
	eval '! grep -E "(^|[^\\\\])(\`c|\[l\]|<b>)" "$t/md2"'
check "markdown: markers hold only safe characters" \
	eval '! grep "<!-- mmcompare:" "$t/md2" | grep -Ev "^<!-- mmcompare:[a-z]+( [A-Za-z0-9._:=+-]+)? -->$"'
check "markdown: a workload without evidence or changes says so instead of an empty table" \
	grep -q "^No evidence metric declared and no other metric changed significantly" "$t/md2"
finish
