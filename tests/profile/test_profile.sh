#!/usr/bin/env bash
# --profile on this host (no hardware counters: the software clock), and
# every way it can go wrong being a skip of the profile with its reason,
# never a failure of the case: perf missing, the kernel refusing
# system-wide sampling (perf_event_paranoid, as an unprivileged user), a
# raw profile over the cap, a run killed while perf records and while the
# profile rows are written (nothing half-written: temporary names, commit
# rows). Then mmprofile: two labels side by side through compare-report,
# the commit rule, a torn last line, a bad header, and --unpack of the VM
# lab's base64 raw data (whole, torn, corrupted). No check depends on
# timing: kills happen at points the run announces (MMBENCH_STOP_AT).
. "$(dirname "$0")/../lib.sh"
# mmprofile and the driver in their ASan/UBSan builds: every output of
# this test is scanned for a sanitizer report at the end.
MMPROFILE=$TOP/tests/profile/mmprofile.asan
if [ ! -x "$MMPROFILE" ] || [ ! -x "$TOP/bench/mmbench-san" ]; then
	fail "ASan/UBSan builds" "tests/profile/mmprofile.asan or bench/mmbench-san not built (make $(
		[ -x "$MMPROFILE" ] || echo tests/profile/mmprofile.asan) $([ -x "$TOP/bench/mmbench-san" ] || echo bench/mmbench-san))"
	finish
fi
if [ "$(id -u)" != 0 ]; then skip "profile" "not root (perf -a)"; exit 4; fi
PERF=$(command -v perf) || { skip "profile" "no perf (tools/deps.sh profile: linux-perf)"; exit 4; }
t=$(tmpdir)
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null)
cleanup() {
	[ -n "$paranoid" ] && echo "$paranoid" >/proc/sys/kernel/perf_event_paranoid
	rm -rf "$t"
}
trap cleanup EXIT

# A short profiled run: pageout on the root file system, 0.2 s loops.
prun() {
	local out=$1
	shift
	"$MMBENCH_SAN" run pageout -p instances=1 -p size_mb=4 -p duration_s=0.2 \
		-i 2 -w 0 -o "$out" "$@"
}
# profile_iterations.csv: "iteration status" per row (by column name).
statuses() { "$MMBENCH" field "$1/profile_iterations.csv" iteration status | tr '\t\n' '  '; }

# ---- this host: cpu-clock, said in meta.csv
d=$t/host
prun "$d/r" --profile=callgraph >"$d.out" 2>&1
rc=$?
ev=$(meta_get "$d/r/meta.csv" profile_event)
why=$(meta_get "$d/r/meta.csv" profile_event_why)
if [ $rc = 0 ] && [ "$ev" = cpu-clock ] && [[ $why == *"software clock"*"cycles"* ]]; then
	pass "host: --profile runs with the software clock, meta.csv says so ($why)"
else
	fail "host: --profile" "rc=$rc event '$ev' why '$why': $(tail -3 "$d.out")"
fi
st=$(statuses "$d/r")
raw=$(awk -F, 'NR == 2 { print $NF }' "$d/r/profile_iterations.csv")
if [ "$st" = "0 ok 1 ok " ] && [ -s "$d/r/$raw" ] && [ -s "$d/r/${raw%.perf.data}.kallsyms" ] &&
	! ls "$d/r/profile/".*tmp >/dev/null 2>&1; then
	pass "host: both iterations profiled; raw data $raw and its kernel symbols kept, no temporary file left"
else
	fail "host: iterations" "statuses '$st', raw '$raw': $(ls -a "$d/r/profile" | tr '\n' ' ')"
fi
# the functions the claim names, for the comparison to list first: the
# workload's default probes even under --probe none, --probe's before
# them; pageout has no default and the run above no --probe: no note
# focus NAME --probe FUNCS: the note of a short profiled mlock_mix run
focus() {
	local o=$d/focus.$1
	shift
	"$MMBENCH_SAN" run mlock_mix -p mlock_pct=0 -p threads=1 -p size_mb=8 -p rounds=1 \
		-p trigger=compact -i 1 -w 0 --profile "$@" -o "$o" >>"$d.focus.out" 2>&1
	"$MMBENCH" field --where key=note_profile_focus "$o/meta.csv" value
}
f1=$(focus none --probe none)
f2=$(focus two --probe folio_putback_lru,lru_add_drain)
if [ "$f1" = "mlock_mix: lru_add_drain" ] && [ "$f2" = "mlock_mix: folio_putback_lru,lru_add_drain" ] &&
	[ -z "$(meta_get "$d/r/meta.csv" note_profile_focus)" ]; then
	pass "meta.csv note_profile_focus: the workload's default probe under --probe none, --probe's with it; none without either"
else
	fail "focus note" "'$f1' '$f2' '$(meta_get "$d/r/meta.csv" note_profile_focus)': $(tail -3 "$d.focus.out")"
fi
# every row: shares in [0, 100], children >= self, samples <= total; an
# iteration's self shares (with [other]) add up to 100
bad=$(python3 - "$d/r/profile.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
selfsum, total = {}, {}
for n, r in enumerate(rows, 2):
    s, t, k = float(r["self_pct"]), int(r["total_samples"]), int(r["samples"])
    c = float(r["children_pct"]) if r["children_pct"] else None
    if not 0 <= s <= 100 or (c is not None and not s - 1e-3 <= c <= 100) or k > t:
        print("row", n, list(r.values()))
    selfsum[r["iteration"]] = selfsum.get(r["iteration"], 0) + s
    total[r["iteration"]] = t
for i, v in selfsum.items():
    if total[i] > 0 and not 99.9 <= v <= 100.1:
        print("iteration", i, "self sum", v)
PY
)
prc=$?
if [ $prc = 0 ] && [ -z "$bad" ] && [ "$(wc -l <"$d/r/profile.csv")" -gt 2 ]; then
	pass "host: profile.csv shares are consistent (0..100, children >= self, self sums to 100 per iteration)"
else
	fail "host: profile.csv" "the checker exited $prc: $bad"
fi
# A function where interrupts come back on (pvm_irq_enable in a PVM guest,
# _raw_spin_unlock_irqrestore, ...) with >= 20% of the samples, mean over
# the iterations, is said in meta.csv and run.log with its share; below
# that, nothing. Checked against profile.csv, whichever this host gives.
want=$(python3 - "$d/r/profile.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
its = {r["iteration"] for r in rows}
def point(s):
    return any(k in s for k in ("irq_enable", "irqrestore", "irq_restore")) or s.endswith("_unlock_irq")
share = {}
for r in rows:
    if r["event"] in ("cpu-clock", "task-clock") and point(r["symbol"]):
        share[r["symbol"]] = share.get(r["symbol"], 0) + float(r["self_pct"]) / len(its)
best = max(share.items(), key=lambda x: x[1], default=("", 0))
print("%.4f %s" % (best[1], best[0]) if best[1] >= 20 else "")
PY
)
wrc=$?
got=$(meta_get "$d/r/meta.csv" note_profile_irq_point)
# the share said, against profile.csv's (its shares are rounded to 4 places)
near() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a - b < 0.1 && b - a < 0.1) }'; }
if [ $wrc != 0 ]; then
	fail "host: irq point note" "the checker of profile.csv exited $wrc"
elif { [ -z "$want" ] && [ -z "$got" ] && ! grep -q 'interrupts turned back on' "$d/r/run.log"; } ||
	{ [ -n "$want" ] && [[ $got =~ :\ ([0-9.]+)%\ of\ the\ samples\ at\ ${want#* },\ where\ interrupts\ are\ turned\ back\ on ]] &&
		near "${BASH_REMATCH[1]}" "${want%% *}" &&
		grep -q "profile: [0-9.]*% of the samples at ${want#* } (interrupts turned back on)" "$d/r/run.log"; }; then
	pass "host: an interrupt-enable point's share said when >= 20% (${want:-none here})"
else
	fail "host: irq point note" "profile.csv says '$want', meta.csv '$got'"
fi
# the raw data is perf's, readable with its kernel symbols
if perf report -i "$d/r/$raw" --kallsyms "$d/r/${raw%.perf.data}.kallsyms" --stdio -q \
	--no-children -g none --sort dso 2>/dev/null | grep -q '%'; then
	pass "host: perf report reads the raw data"
else
	fail "host: perf report" "cannot read $raw"
fi

# ---- perf missing: the profile is skipped with its reason, the case passes
d=$t/missing
MMBENCH_PERF=$t/no/such/perf prun "$d/r" --profile >"$d.out" 2>&1
rc=$?
st=$(statuses "$d/r")
ps=$(meta_get "$d/r/meta.csv" profile_status)
if [ $rc = 0 ] && [ "$st" = "0 skipped 1 skipped " ] && [[ $ps == "skipped: perf not found"* ]] &&
	grep -q '^1,.*,pass,' "$d/r/cases.csv" && [ ! -e "$d/r/profile.csv" ]; then
	pass "perf missing: case passed, profile skipped ($ps)"
else
	fail "perf missing" "rc=$rc statuses '$st' status '$ps'"
fi

# ---- a kernel that refuses system-wide sampling: an unprivileged user
# with perf_event_paranoid 2 (root is never refused)
d=$t/paranoid
mkdir -p "$d" && chown nobody "$d" && chmod 755 "$t"
echo 2 >/proc/sys/kernel/perf_event_paranoid
if runuser -u nobody -- test -x "$MMBENCH"; then
	runuser -u nobody -- "$MMBENCH" run pageout -p instances=1 -p size_mb=4 \
		-p duration_s=0.1 -i 1 -w 0 -o "$d/r" --profile >"$d.out" 2>&1
	rc=$?
	ps=$(meta_get "$d/r/meta.csv" profile_status)
	if [ $rc = 0 ] && [ "$(statuses "$d/r")" = "0 skipped " ] &&
		[[ $ps == *"refuses system-wide sampling"*"perf_event_paranoid=2"* ]]; then
		pass "perf_event_paranoid=2, unprivileged: case passed, profile skipped ($ps)"
	else
		fail "perf_event_paranoid" "rc=$rc status '$ps': $(tail -3 "$d.out")"
	fi
else
	skip "perf_event_paranoid" "user nobody cannot run $MMBENCH"
fi
echo "$paranoid" >/proc/sys/kernel/perf_event_paranoid

# ---- a profile larger than the cap: perf's system-wide setup alone
# writes more than 4 KiB, so no iteration profiles and nothing over the cap
# is kept
d=$t/cap
prun "$d/r" --profile --profile-cap 4K >"$d.out" 2>&1
rc=$?
st=$(statuses "$d/r")
big=$(find "$d/r/profile" -type f -size +4k 2>/dev/null | tr '\n' ' ')
if [ $rc = 0 ] && [ "$st" = "0 capped 1 capped " ] && [ -z "$big" ] &&
	grep -q 'cap' "$d/r/profile_iterations.csv"; then
	pass "cap 4K: case passed, iterations 'capped' with the reason, no file over the cap kept"
else
	fail "cap" "rc=$rc statuses '$st' files over 4K: '$big'"
fi
"$MMBENCH_SAN" run pageout -p size_mb=1 --profile-cap 512 -o "$d/bad" >/dev/null 2>"$d.bad.err"
rc=$?
if [ $rc = 2 ] && grep -q "^mmbench: --profile-cap: '512' is not a size of 1K to 1024G" "$d.bad.err" && [ ! -e "$d/bad" ]; then
	pass "cap below 1K refused (exit 2, named, no run directory)"
else
	fail "cap 512" "rc=$rc: $(cat "$d.bad.err")"
fi

# ---- killed while perf records: the driver SIGKILLed after the first
# measured iteration; perf finishes a temporary file only
reached() { grep -q "stop point $2 reached" "$1" 2>/dev/null; }
perf_of() { pgrep -f -- "-o $1/profile/" >/dev/null; }
zombie_or_gone() { [ -z "$1" ] || ! kill -0 "$1" 2>/dev/null || grep -q '^State:.*Z' "/proc/$1/status" 2>/dev/null; }
no_perf() { ! perf_of "$1"; }
kill_at() {	# DIR POINT: run, kill -9 the driver at POINT, wait for the rest
	local d=$1 p=$2 pid q
	MMBENCH_STOP_AT=$p "$MMBENCH" run pageout -p instances=1 -p size_mb=4 \
		-p duration_s=0.2 -i 3 -w 0 -o "$d/r" --profile 2>"$d.err" &
	pid=$!
	if ! wait_until 300 reached "$d.err" "$p"; then
		kill -KILL $pid; wait $pid 2>/dev/null
		return 1
	fi
	kill -KILL $pid
	wait $pid 2>/dev/null
	for q in $(sed -n 's/.*stop point .* reached by pid \([0-9]*\).*/\1/p' "$d.err"); do
		kill -USR1 "$q" 2>/dev/null
	done
	wait_until 300 no_perf "$d/r"
}
d=$t/kill1
mkdir -p "$d"
if kill_at "$d" case/iteration:1; then
	kept=$(find "$d/r/profile" -name '*.perf.data' | tr '\n' ' ')
	if [ -z "$kept" ] && [ ! -s "$d/r/profile.csv" ] && [ ! -s "$d/r/profile_iterations.csv" ]; then
		pass "killed while recording: no raw data under its own name, no profile rows"
	else
		fail "killed while recording" "kept '$kept'; rows: $(cat "$d/r/profile"*.csv 2>/dev/null | wc -l)"
	fi
	# the next run in the directory clears the dead case's temporary files
	prun "$d/r" --profile >"$d.again" 2>&1
	left=$(find "$d/r/profile" -name '.*tmp' | tr '\n' ' ')
	if [ -z "$left" ] && [ "$(statuses "$d/r")" = "0 ok 1 ok " ]; then
		pass "killed while recording: the next run removes the temporary files and profiles"
	else
		fail "killed while recording: next run" "left '$left', statuses '$(statuses "$d/r")'"
	fi
else
	fail "killed while recording" "the run never reached case/iteration:1: $(tail -2 "$d.err")"
fi

# ---- perf killed under a running case (as at the cap, perf gone while
# the case goes on): the iterations after it are "incomplete", the case
# passes, and the file perf finished on its SIGTERM is kept
d=$t/perfgone
mkdir -p "$d"
MMBENCH_STOP_AT=case/iteration:1 "$MMBENCH" run pageout -p instances=1 -p size_mb=4 \
	-p duration_s=0.2 -i 3 -w 0 -o "$d/r" --profile 2>"$d.err" &
pid=$!
if wait_until 300 reached "$d.err" case/iteration:1; then
	pp=$(pgrep -f -- "-o $d/r/profile/")
	[ -n "$pp" ] && kill -TERM $pp
	wait_until 300 zombie_or_gone "$pp"
	for q in $(sed -n 's/.*stop point .* reached by pid \([0-9]*\).*/\1/p' "$d.err"); do
		kill -USR1 "$q" 2>/dev/null
	done
	wait $pid
	rc=$?
	st=$(statuses "$d/r")
	if [ $rc = 0 ] && [ "$st" = "0 ok 1 incomplete 2 incomplete " ] &&
		grep -q 'perf was killed by signal 15' "$d/r/profile_iterations.csv" &&
		[ -n "$(find "$d/r/profile" -name '*.perf.data')" ]; then
		pass "perf gone under a running case: later iterations incomplete with the reason, case passed, raw data kept"
	else
		fail "perf gone under a running case" "rc=$rc statuses '$st': $(tail -2 "$d/r/profile_iterations.csv")"
	fi
else
	kill -KILL $pid 2>/dev/null
	fail "perf gone under a running case" "never reached case/iteration:1: $(tail -2 "$d.err")"
fi

# ---- killed between an iteration's symbol rows and its commit row
d=$t/kill2
mkdir -p "$d"
if kill_at "$d" case/profile-commit:2; then
	it=$("$MMBENCH" field "$d/r/profile.csv" iteration | sort -u | tr '\n' ' ')
	st=$(statuses "$d/r")
	if [ "$it" = "0 1 " ] && [ "$st" = "0 ok " ] && [ "$(tail -c1 "$d/r/profile.csv" | od -An -c | tr -d ' ')" = '\n' ]; then
		pass "killed before a commit row: whole rows only, iteration 1 has rows and no commit"
	else
		fail "killed before a commit row" "iterations with rows '$it', committed '$st'"
	fi
	# mmprofile counts only the committed iteration
	prun "$t/base/r" --label base --profile >"$t/base.out" 2>&1
	"$MMPROFILE" --per-arg "$t/base/r" "$d/r" >"$d.cmp" 2>&1
	rc=$?
	if [ $rc = 0 ] && grep -q ": 1 iteration(s)" "$d.cmp"; then
		pass "mmprofile: an uncommitted iteration's rows are not counted"
	else
		fail "mmprofile: uncommitted rows" "rc=$rc: $(head -8 "$d.cmp")"
	fi
else
	fail "killed before a commit row" "never reached: $(tail -2 "$d.err")"
fi

# ---- compare-report: two labels, the profile section and its chart
prun "$t/res/a/r1" --label a --profile=callgraph >"$t/res.a.out" 2>&1
prun "$t/res/b/r1" --label b --profile=callgraph >"$t/res.b.out" 2>&1
"$TOP/tools/compare-report" --out "$t/res" a b >"$t/report.out" 2>&1
rc=$?
rep=$(ls -d "$t"/res/compare-a-vs-b-* 2>/dev/null | head -1)
if [ $rc = 0 ] && grep -q '^## Kernel profiles' "$rep/report.md" && [ -s "$rep/profile.txt" ] &&
	grep -q 'children share' "$rep/profile.txt" &&
	grep -q '^Kernel profiles (--profile)' "$t/report.out" &&
	grep -q "^kernel profiles: $rep/profile.txt$" "$t/report.out" && grep -q '](plots/profile.png)' "$rep/report.md" &&
	[ "$(head -c4 "$rep/plots/profile.png" | od -An -c | tr -d ' ')" = '211PNG' ]; then
	pass "compare-report: the profiles' first lines after the verdict, profile.txt named, report.md's Kernel profiles section with its chart"
else
	fail "compare-report" "rc=$rc: $(tail -3 "$t/report.out")"
fi

# ---- mmprofile on bad input: a torn last line is left out, a bad header is exit 2
cp -r "$t/res/b/r1" "$t/torn"
printf '1,x,b,k,pageout,c,p,0,cpu-clock,half' >>"$t/torn/profile.csv"
if "$MMPROFILE" --per-arg "$t/res/a/r1" "$t/torn" >/dev/null 2>"$t/torn.err" &&
	grep -q 'torn write' "$t/torn.err"; then
	pass "mmprofile: a torn last line is left out, and said"
else
	fail "mmprofile: torn line" "$(cat "$t/torn.err")"
fi
cp -r "$t/res/b/r1" "$t/badhdr"
sed -i '1s/self_pct/selfish/' "$t/badhdr/profile.csv"
"$MMPROFILE" --per-arg "$t/res/a/r1" "$t/badhdr" >/dev/null 2>"$t/badhdr.err"
rc=$?
if [ $rc = 2 ] && grep -q 'profile.csv:1:' "$t/badhdr.err"; then
	pass "mmprofile: a bad header is exit 2 naming FILE:LINE"
else
	fail "mmprofile: bad header" "rc=$rc: $(cat "$t/badhdr.err")"
fi

# ---- --unpack: the VM lab's base64 raw data
u=$t/unpack
mkdir -p "$u"
head -c 10000 /dev/urandom >"$u/orig"
b64() {	# FILE NAME [skip-end|bad-hash]: the guest's lines for FILE
	local size hash
	size=$(stat -c %s "$1")
	hash=$(python3 -c 'import sys
h = 0xcbf29ce484222325
for b in open(sys.argv[1], "rb").read():
    h = ((h ^ b) * 0x100000001b3) & 0xffffffffffffffff
print("%016x" % h)' "$1")
	[[ $hash =~ ^[0-9a-f]{16}$ ]] || fail "--unpack setup" "no FNV-1a hash of $1 (python3: '$hash')"
	base64 -w 4096 "$1" >"$u/profile.$2.b64"
	case ${3:-} in
	skip-end) ;;
	bad-hash) echo "=end $size 0000000000000000" >>"$u/profile.$2.b64" ;;
	*) echo "=end $size $hash" >>"$u/profile.$2.b64" ;;
	esac
}
b64 "$u/orig" good.perf.data
b64 "$u/orig" torn.perf.data skip-end
b64 "$u/orig" corrupt.perf.data bad-hash
"$MMPROFILE" --unpack "$u" >"$u.out" 2>&1
rc=$?
if [ $rc = 1 ] && cmp -s "$u/orig" "$u/profile/good.perf.data" &&
	[ ! -e "$u/profile/torn.perf.data" ] && [ ! -e "$u/profile/corrupt.perf.data" ] &&
	! ls "$u"/profile.*.b64 "$u"/profile/.*tmp >/dev/null 2>&1; then
	pass "--unpack: the whole file decoded, a torn and a corrupted one refused (exit 1), no leftovers"
else
	fail "--unpack" "rc=$rc: $(cat "$u.out")"
fi

# ---- ASan/UBSan said nothing (leaks included) in any output above
san=$(san_reports $(find "$t" -maxdepth 2 -type f \( -name '*.out' -o -name '*.err' -o -name '*.cmp' \
	-o -name '*.again' \) | sort) | tr '\n' ' ')
[ -z "$san" ] && pass "no sanitizer report in any output of the ASan/UBSan builds" || fail "sanitizer" "$san"
finish
