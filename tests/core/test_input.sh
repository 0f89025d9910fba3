#!/usr/bin/env bash
# Hostile but plausible input to the driver, checked without running a
# case (--dry-run prints the cases it would run): suite files are read
# whole (no 4 KB chunks, no dropped words, no NUL cut, true FILE:LINE);
# numbers are decimal only; the label rule (mmbench check-label, --label);
# mmbench summary on files that are not result files.
. "$(dirname "$0")/../lib.sh"
mm=$MMBENCH_SAN
t=$(tmpdir); trap 'rm -rf "$t"' EXIT
ok="pageout -p instances=1 -p size_mb=2 -p duration_s=0.05"

# expect NAME RC PATTERN CMD...: CMD exits RC and stderr matches PATTERN
expect() {
	local name=$1 want=$2 pat=$3 rc
	shift 3
	"$@" >"$t/out" 2>"$t/err"
	rc=$?
	if [ $rc = "$want" ] && grep -q -- "$pat" "$t/err"; then
		pass "$name"
	else
		fail "$name" "rc=$rc, stderr: $(head -c 300 "$t/err")"
	fi
}
ncases() { awk 'NR > 1' "$t/out" | wc -l; }

# ---- suite files
s=$t/suites
mkdir -p "$s"
{ printf '# %*s' 5000 '' | tr ' ' 'x'; printf ' %s\n' "$ok"; echo "$ok"; } >"$s/longcomment"
"$mm" suite "$s/longcomment" --dry-run >"$t/out" 2>"$t/err"
[ $? = 0 ] && [ "$(ncases)" = 1 ] && pass "suite: a 5 KB comment line is one comment (its tail is not run)" ||
	fail "suite: long comment" "cases: $(cat "$t/out")"
{ printf '# %*s\n' 5000 '' | tr ' ' 'x'; echo "pageout -p size_mb=zz"; } >"$s/lineno"
expect "suite: an error after a 5 KB line names line 2" 2 "$s/lineno:2: pageout: parameter 'size_mb'" \
	"$mm" suite "$s/lineno" --dry-run
printf '%s -p size_mb=2\0 -p bogus=1\n' "pageout" >"$s/nul"
expect "suite: a NUL byte is an error with its line" 2 "$s/nul:1: NUL byte at column 21" \
	"$mm" suite "$s/nul" --dry-run
{ printf 'pageout'; for _ in $(seq 1 70); do printf ' -p size_mb=2'; done; echo ' -p bogus=1'; } >"$s/words"
expect "suite: the 142nd word counts (a trailing bad parameter)" 2 "$s/words:1: pageout: unknown parameter 'bogus'" \
	"$mm" suite "$s/words" --dry-run
{ printf 'pageout'; for _ in $(seq 1 1100); do printf ' -i 1'; done; echo; } >"$s/manywords"
expect "suite: more words than the reader holds is an error, not a cut" 2 "$s/manywords:1: more than" \
	"$mm" suite "$s/manywords" --dry-run
{ echo "$ok"; printf 'pageout -p dir=%*s\n' 70000 '' | tr ' ' 'd'; } >"$s/longline"
expect "suite: a line over 64 KiB is an error with its line" 2 "$s/longline:2: line longer than" \
	"$mm" suite "$s/longline" --dry-run
printf '%s\npageout -p size_mb=2 \033[31m\n' "$ok" >"$s/ctrl"
expect "suite: a control character is an error" 2 "$s/ctrl:2: control character 0x1b" \
	"$mm" suite "$s/ctrl" --dry-run
echo "pageout -h" >"$s/help"
expect "suite: -h on a line is an error, not usage and exit 0" 2 "$s/help:1: only -p, -i and -w" \
	"$mm" suite "$s/help" --dry-run
printf '%s\r\n# comment\r\n%s -p size_mb=3\r\n' "$ok" "$ok" >"$s/crlf"
"$mm" suite "$s/crlf" --dry-run >"$t/out" 2>"$t/err"
[ $? = 0 ] && [ "$(ncases)" = 2 ] && pass "suite: CRLF line ends are read" || fail "suite: CRLF" "$(cat "$t/err")"
expect "suite: a directory is an error" 2 "suite '$s'" "$mm" suite "$s" --dry-run
# a bad option value on a suite line names FILE:LINE, like a bad parameter
printf '# one\n\n%s -i x\n' "$ok" >"$s/badi"
expect "suite: a bad -i value on line 3 names FILE:LINE" 2 "^mmbench: $s/badi:3: --iterations: 'x' is not a number" \
	"$mm" suite "$s/badi" --dry-run
printf '%s\n%s -w -1\n' "$ok" "$ok" >"$s/badw"
expect "suite: a bad -w value on line 2 names FILE:LINE" 2 "^mmbench: $s/badw:2: --warmups: '-1' is not a number" \
	"$mm" suite "$s/badw" --dry-run

# ---- an empty parameter value: a usage error before any run directory
for how in run suite; do
	rm -rf "$t/emptyrun"
	if [ $how = run ]; then
		"$mm" run pageout -p instances=1 -p size_mb= -i 1 -w 0 -o "$t/emptyrun" >"$t/out" 2>"$t/err"
	else
		printf '%s\npageout -p size_mb=\n' "$ok" >"$s/empty"
		"$mm" suite "$s/empty" -i 1 -w 0 -o "$t/emptyrun" >"$t/out" 2>"$t/err"
	fi
	rc=$?
	want="pageout: parameter 'size_mb': empty value"
	[ $how = suite ] && want="$s/empty:2: $want"
	[ $rc = 2 ] && grep -q "^mmbench: $want" "$t/err" && [ ! -e "$t/emptyrun" ] &&
		pass "$how: -p size_mb= is a usage error (exit 2), named, no run directory made" ||
		fail "$how: -p size_mb=" "rc=$rc, $(ls -d "$t/emptyrun" 2>/dev/null) stderr: $(head -c 300 "$t/err")"
done

# ---- numbers: decimal only
"$mm" run pageout -p size_mb=010 -p instances=1 --dry-run >"$t/out" 2>"$t/err"
grep -q ';size_mb=10,' "$t/out" && pass "numbers: size_mb=010 is ten" || fail "numbers: 010" "$(cat "$t/out" "$t/err")"
"$mm" run pageout -p size_mb=08 -p instances=1 --dry-run >"$t/out" 2>"$t/err"
grep -q ';size_mb=8,' "$t/out" && pass "numbers: size_mb=08 is eight" || fail "numbers: 08" "$(cat "$t/err")"
for v in 0x10 1e3 ' 5' '5 ' +5 -0x1 0b1 1_000 99999999999999999999 5. .5 -; do
	expect "numbers: size_mb='$v' refused naming it" 2 "parameter 'size_mb': '$v'" \
		"$mm" run pageout -p "size_mb=$v" --dry-run
done
for v in 0x1p-3 inf nan ' 0.5' 1e 1e+ .; do
	expect "numbers: duration_s='$v' refused naming it" 2 "parameter 'duration_s': '$v'" \
		"$mm" run pageout -p "duration_s=$v" --dry-run
done
"$mm" run pageout -p duration_s=5e-1 -p instances=1 --dry-run >"$t/out" 2>&1 &&
	grep -q 'duration_s=0.5;' "$t/out" && pass "numbers: duration_s=5e-1 is 0.5" || fail "numbers: 5e-1" "$(cat "$t/out")"
for v in 0x5 ' 5' 5x 1e1; do
	expect "numbers: -i '$v' refused naming it" 2 "--iterations: '$v'" "$mm" run pageout -i "$v" --dry-run
done
expect "numbers: an empty list element is refused" 2 "'1,,2' has an empty list element" \
	"$mm" run pageout -p instances=1,,2 --dry-run

# ---- labels: one rule, checked by check-label and by --label
long=$(printf '%*s' 101 '' | tr ' ' 'a')
for l in 6.18.0-rc1+ base patched_v2 a "$(printf '%*s' 100 '' | tr ' ' 'b')" 6.1.0-18-amd64; do
	"$mm" check-label "$l" 2>"$t/err" && pass "label ok: ${l:0:40}" || fail "label ok: $l" "$(cat "$t/err")"
done
for l in 'a`id`b' 'a$(id)b' "a'b" 'a"b' 'a b' a/b .. a..b ../x .hidden -rf '' "$long" \
	"$(printf 'a\tb')" "$(printf 'a\nb')" "$(printf 'a\033b')" 'a,b' 'a;b' 'a*b' 'a\b'; do
	"$mm" check-label "$l" >/dev/null 2>"$t/err"
	rc=$?
	shown=$(printf '%q' "$l")
	[ $rc = 2 ] && grep -q "^mmbench: label" "$t/err" && pass "label refused: ${shown:0:40}" ||
		fail "label refused: $shown" "rc=$rc $(cat "$t/err")"
done
cd "$t" || exit 1
expect "--label with backticks: exit 2, nothing made, nothing run" 2 "label 'x\`touch canary\`y'" \
	"$mm" run pageout --label 'x`touch canary`y' --root "$t/root"
[ ! -e "$t/canary" ] && [ ! -e "$t/root" ] && pass "--label: no command ran, no directory made" ||
	fail "--label: side effects" "$(ls "$t")"
expect "--label of 101 characters is an error, not cut to 100" 2 "101 characters long" \
	"$mm" run pageout --label "$long" --root "$t/root"
expect "--meta label= follows the label rule" 2 "label 'a/b'" \
	"$mm" run pageout --meta label=a/b -o "$t/metalabel"
expect "--meta with a control character is refused" 2 "--meta 'note=a\\\\x0ab'" \
	"$mm" run pageout --meta "note=$(printf 'a\nb')" -o "$t/metanl"
cd - >/dev/null || exit 1

# ---- mmbench summary on files that are not result files
sum() {	# NAME PATTERN: summary of $d exits 2 naming FILE:LINE
	expect "summary: $1" 2 "$2" "$mm" summary "$d"
}
hdr=$(head -1 <<<"schema,run_id,label,kernel,workload,case,iteration,metric,value,unit,better")
row="1,r,l,k,pageout,c,0,loops,5,count,higher"
d=$t/s1; mkdir -p "$d"; head -c 4096 "$mm" >"$d/results.csv"; sum "a binary file" "$d/results.csv:1: NUL byte"
d=$t/s2; mkdir -p "$d"; : >"$d/results.csv"; sum "an empty file" "$d/results.csv:1: empty"
d=$t/s3; mkdir -p "$d"; seq -s, 1 10000 >"$d/results.csv"; sum "10,000 columns" "$d/results.csv:1: not the header of schema 1 (10000 fields"
d=$t/s4; mkdir -p "$d"; printf '%s\n%s\n%s,x\n' "$hdr" "$row" "$row" >"$d/results.csv"; sum "a row with 12 fields" "$d/results.csv:3: 12 fields, expected 11"
d=$t/s5; mkdir -p "$d"; printf '%s\n%s\n%s\n1,r,l,k,pageout,c,0,loops,0x10,count,higher\n' "$hdr" "$row" "$row" >"$d/results.csv"
sum "a hex value" "$d/results.csv:4: value '0x10' is not a decimal number"
d=$t/s6; mkdir -p "$d"; printf '%s\n1,r,l,k,pageout,c,0,loops,5,count,sideways\n' "$hdr" >"$d/results.csv"; sum "a bad direction" "$d/results.csv:2: better 'sideways'"
d=$t/s7; mkdir -p "$d"; printf '%s\n%s\n' "$hdr" "$row" >"$d/results.csv"
printf 'schema,run_id,label,kernel,workload,case,status,reason,signal,duration_s\n1,r,l,k,pageout,c,maybe,,0,1\n' >"$d/cases.csv"
sum "a bad status in cases.csv" "$d/cases.csv:2: status 'maybe'"
d=$t/s8; mkdir -p "$d"; printf '%s\n%s\n"unterminated,x\n' "$hdr" "$row" >"$d/results.csv"; sum "a quote that never ends" "$d/results.csv"
d=$t/s9; mkdir -p "$d/results.csv"; sum "a directory" "$d/results.csv"
d=$t/s10; mkdir -p "$d"; printf '%s\n%s\n%s' "$hdr" "$row" "1,r,l,k,pageout,c,0,lo" >"$d/results.csv"
"$mm" summary "$d" >"$t/out" 2>"$t/err"; rc=$?
[ $rc = 0 ] && grep -q "results.csv:3: incomplete last line (a torn write) left out" "$t/err" &&
	grep -q '^pageout *loops *5 ' "$t/out" &&
	pass "summary: a torn last line is named and left out, the rest summarised" ||
	fail "summary: torn last line" "rc=$rc $(cat "$t/err" "$t/out")"
finish
