#!/usr/bin/env bash
# mmhistory (ASan/UBSan build): history.csv rows are validated, quoted by
# libcsv, appended whole under a lock by concurrent writers, a torn last
# line is reported and cut by the next append, rewrites are atomic.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib.sh"
d=$(tmpdir)
trap 'rm -rf "$d"' EXIT
h=$d/history.csv
row() { "$MMHISTORY" append "$h" date=2026-11-30T02:00:00Z host=h1 label=l kernel=6.1 \
	run_dir=l/r status=ok duration_s=5 "$@"; }

row 'reason=a "quoted", comma
and a newline' 2>"$d/err"
check "append: a row with quotes, commas and a newline" test $? -eq 0
check "append: libcsv quoting, the newline flattened" \
	grep -qx '1,2026-11-30T02:00:00Z,h1,l,6.1,l/r,ok,5,,,"a ""quoted"", comma and a newline"' "$h"
check "select gives the reason back" test "$("$MMHISTORY" select "$h" --fields reason)" = \
	'a "quoted", comma and a newline'
for bad in status=done duration_s=-1 date=2026-11-30 host=-x label=a/b worse_vs_baseline=x \
	run_dir=../x nosuch=1; do
	out=$(row "$bad" 2>&1)
	rc=$?
	check "append refuses $bad (exit $rc): $out" test "$rc" -eq 2 -a -n "$out"
done
check "refused rows were not written" grep -q "valid, 1 rows" <("$MMHISTORY" check "$h")

# A torn last line: reported by check, ignored by readers, cut by append.
printf '1,2026-11-30T03:00:00Z,h1,l,6.1,l/r2,o' >>"$h"
out=$("$MMHISTORY" check "$h")
check "check reports the torn line with its line number ($out)" \
	test "$out" = "$h:3: INVALID: torn last line (no newline)"
check "select ignores the torn line" test "$("$MMHISTORY" select "$h" | wc -l)" -eq 1
row 2>"$d/err"
check "append cuts the torn line and says so" grep -Eq "removed a torn last line \([0-9]+ bytes without a newline\)" "$d/err"
check "history valid again, 2 rows" grep -q "valid, 2 rows" <("$MMHISTORY" check "$h")

# A broken middle row names its line.
cp "$h" "$d/b.csv"
sed -i '2s/,ok,/,maybe,/' "$d/b.csv"
out=$("$MMHISTORY" check "$d/b.csv")
check "a bad row is named by file and line ($out)" grep -q "b.csv:2: status 'maybe'" <<<"$out"
printf 'schema,date\n' >"$d/c.csv"
out=$("$MMHISTORY" check "$d/c.csv")
check "a wrong header is named ($out)" grep -q "c.csv:1: header: column 3 is '(missing)', expected 'host'" <<<"$out"

# Concurrent writers (two hosts sharing a root): every row arrives whole.
rm -f "$h"
for w in 1 2 3 4; do
	(for i in $(seq 15); do
		"$TOP/tools/mmtrend/mmhistory" append "$h" date=2026-11-30T02:00:00Z "host=w$w" \
			label=l kernel=6.1 "run_dir=l/r$w-$i" status=ok duration_s="$i" || exit 1
	done) &
done
wait
check "4 concurrent writers x 15 rows: all 60 valid" grep -q "valid, 60 rows" <("$MMHISTORY" check "$h")
check "one header line" test "$(grep -c '^schema,' "$h")" -eq 1

# drop: exactly the named rows, and old rows without a run directory.
"$MMHISTORY" append "$h" date=2026-01-01T00:00:00Z host=w1 label=l kernel=6.1 status=refused duration_s=0
"$MMHISTORY" drop "$h" --host w1 --empty-before 2026-06-01T00:00:00Z l/r1-3 l/r1-4 l/r2-5 >"$d/out"
check "drop removes this host's named rows and its old refused row" grep -q "dropped 3 row(s)" "$d/out"
check "another host's row with a matching name is kept" grep -q ',l/r2-5,' "$h"
check "58 rows left, valid" grep -q "valid, 58 rows" <("$MMHISTORY" check "$h")
check "no temporary file left" test -z "$(ls "$d" | grep tmp)"

# Usage errors and bad input: exit 2 with a message, no sanitizer report.
printf 'a,b\n1,2\n' >"$d/notcmp.csv"
while IFS= read -r args; do
	eval "\"\$MMHISTORY\" $args" >/dev/null 2>"$d/err"
	rc=$?
	if [ "$rc" -eq 2 ] && [ -s "$d/err" ] && ! grep -q Sanitizer "$d/err"; then
		pass "mmhistory $args: exit 2 with a message"
	else
		fail "mmhistory $args" "exit $rc: $(head -3 "$d/err")"
	fi
done <<'EOF2'
digest --judge 'a b' --max-lines x "$d/notcmp.csv"
digest "$d/notcmp.csv"
digest --judge a
ledger-update L C --judge a
select "$h" --fields nope
expired "$h" --host a
drop "$h" --empty-before yesterday --host a x
meta-add "$d/none.csv" a=b
append "$h" date=x
bogus x
EOF2
finish
