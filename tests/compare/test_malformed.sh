#!/usr/bin/env bash
# Malformed input: every case gets exit 2 and an error naming the file and
# line, from the ASan/UBSan build of mmcompare (and mmplot for samples.csv),
# so a crash or a memory error cannot pass for an error message.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/gen.sh"
t=$(tmpdir)
trap 'rm -rf "$t"' EXIT
asan=$TOP/tests/compare/mmcompare.asan
asan_plot=$TOP/tests/compare/mmplot.asan
for b in "$asan" "$asan_plot"; do
	if [ ! -x "$b" ]; then
		fail "sanitizer build" "$b missing (make $b)"
		finish
	fi
done
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1

hdr="schema,run_id,label,kernel,workload,case,iteration,metric,value,unit,better"
ok_row='1,r,bad,k,w,"x=1",0,m,1.5,ns,lower'
mkrun "$t/good/r" good
addrows "$t/good/r" w "x=1" m ns lower 1 2 3

# expect NAME PATTERN [PROGRAM]: the program on (good, bad) exits 2 and
# stderr matches PATTERN (an extended regex naming file:line), cleanly.
expect() {
	local name=$1 pat=$2 prog=${3:-$asan} rc
	if [ "$prog" = "$asan" ]; then
		"$prog" "$t/good/r" "$t/bad" >"$t/out" 2>"$t/err"
	else
		"$prog" -o "$t/plots" "$t/good/r" "$t/bad" >"$t/out" 2>"$t/err"
	fi
	rc=$?
	if grep -Eq 'Sanitizer|runtime error' "$t/err"; then
		fail "$name" "sanitizer report: $(grep -Em1 'Sanitizer|runtime error' "$t/err")"
	elif [ $rc -ne 2 ]; then
		fail "$name" "exit $rc, want 2: $(head -c 300 "$t/err")"
	elif ! grep -Eq "$pat" "$t/err"; then
		fail "$name" "error '$(head -c 300 "$t/err")' does not match /$pat/"
	else
		pass "$name"
	fi
}

# bad_results CONTENT (printf format, no trailing newline added)
bad_results() {
	rm -rf "$t/bad"
	mkrun "$t/bad" bad
	printf "$@" >"$t/bad/results.csv"
}
R="$t/bad/results.csv"

bad_results '%s\n%s\n2,r,bad,k,w,"x=1",1,m,1,ns,lower\n' "$hdr" "$ok_row"
expect "wrong schema version" "^mmcompare: $R:3: schema version '2', this tool reads version 1$"
bad_results 'schema,run_id,label,kernel,workload,case,iteration,metric,value\n%s\n' "$ok_row"
expect "missing columns" "^mmcompare: $R:1: header is missing column\(s\): unit, better$"
bad_results '%s\n1,r,bad,k,w,"x=1",0,m,abc,ns,lower\n' "$hdr"
expect "non-numeric value" "^mmcompare: $R:2: value 'abc' is not a decimal number$"
bad_results '%s\n%s\n1,r,bad,k,w,"x=1",1,m,1.2' "$hdr" "$ok_row"
expect "truncated last line" "^mmcompare: $R:3: last line is truncated \(no newline at end of file\)$"
bad_results '%s\n1,r,bad,k,w,"x=1",0,m,nan,ns,lower\n' "$hdr"
expect "nan value" "^mmcompare: $R:2: value 'nan' is not a decimal number$"
# one grammar of numbers (bench/results/numbers.c): mmbench summary refuses +5 too
bad_results '%s\n1,r,bad,k,w,"x=1",0,m,+5,ns,lower\n' "$hdr"
expect "leading + refused" "^mmcompare: $R:2: value '\\+5' is not a decimal number$"
bad_results '%s\n%s\n1,r,bad,k,w,"x=1",1,m,1e999,ns,lower\n1,r,bad,k,w,"x=1",2,m,-1e999,ns,lower\n' "$hdr" "$ok_row"
expect "overflowing value" "^mmcompare: $R:3: value '1e999' is not a finite number$"
bad_results '%s\n1,r,bad,k,w,"x=1",0,m,1\n' "$hdr"
expect "too few fields" "^mmcompare: $R:2: 9 field\(s\), the header has 11$"
bad_results '%s\n1,r,bad,k,w,"x=1",0,m,1,ns,smaller\n' "$hdr"
expect "bad better" "^mmcompare: $R:2: better 'smaller' is not lower, higher or info$"
bad_results '%s\n1,r,bad,k,w,"x=1",0,Fault-Both,1,ns,lower\n' "$hdr"
expect "bad metric name" "^mmcompare: $R:2: metric 'Fault-Both' has characters outside"
bad_results '%s\n1,r,bad,k,w,"x=1",x,m,1,ns,lower\n' "$hdr"
expect "bad iteration" "^mmcompare: $R:2: iteration 'x' is not a non-negative integer$"
bad_results '%s\n1,r,bad,k,w,"threads",0,m,1,ns,lower\n' "$hdr"
expect "bad case string" "^mmcompare: $R:2: case 'threads' is not of the form k=v;k=v$"
bad_results '%s\n%s\n1,r,bad,k,w,"x=1,0,m,1,ns,lower\n' "$hdr" "$ok_row"
expect "unterminated quote" "^mmcompare: $R:3: unterminated quoted field at end of file$"
bad_results '%s\n%s\n1,r,bad,k,w,x"=1,0,m,1,ns,lower\n' "$hdr" "$ok_row"
expect "stray quote" "^mmcompare: $R:3: CSV syntax error"
bad_results ''
expect "empty file" "^mmcompare: $R: empty file \(no header line\)$"
bad_results '%s\n' "$ok_row"
expect "no header line" "^mmcompare: $R:1: no header line \(the first line is data\)"
bad_results '%s\n1,r,bad,k,w,"x=1",0,m,1\0002,ns,lower\n' "$hdr"
expect "NUL byte" "^mmcompare: $R:2: a field contains a NUL byte$"
bad_results '%s\n%s\n1,r,other,k,w,"x=1",1,m,1,ns,lower\n' "$hdr" "$ok_row"
expect "two labels in one run" "^mmcompare: $R:3: label 'other' differs from the run's label 'bad'$"
bad_results '%s\n1,r,bad,k,w,"x=1",0,m,1,us,lower\n' "$hdr"
expect "unit differs from the other side" \
	"^mmcompare: $R:2: w/m: unit 'us' but 'ns' at $t/good/r/results.csv:2$"
# CRLF line ends and a quoted line break keep line numbers right.
bad_results '%s\r\n%s\r\n1,r,bad,k,w,"x=1",0,"m",bad,ns,lower\r\n' "$hdr" "$ok_row"
expect "CRLF file: error on line 3" "^mmcompare: $R:3: value 'bad' is not a decimal number$"
bad_results '%s\n1,r,bad,"k\nk",w,"x=1",0,m,1,ns,lower\n1,r,bad,k,w,"x=1",0,m,?,ns,lower\n' "$hdr"
expect "quoted line break counted" "^mmcompare: $R:4: value '\?' is not a decimal number$"

bad_results '%s\n%s\n' "$hdr" "$ok_row"
printf 'key,value\nschema,2\n' >"$t/bad/meta.csv"
expect "meta.csv: wrong schema version" "^mmcompare: $t/bad/meta.csv:2: schema version '2'"
printf 'key\nschema\n' >"$t/bad/meta.csv"
expect "meta.csv: missing column" "^mmcompare: $t/bad/meta.csv:1: header is missing column\(s\): value$"

bad_results '%s\n%s\n' "$hdr" "$ok_row"
printf 'schema,run_id,label,kernel,workload,case,iteration,task,class,value_ns\n1,r,bad,k,w,"x=1",0,0,huge,x\n' \
	>"$t/bad/samples.csv"
expect "samples.csv: non-numeric value_ns (mmplot)" \
	"^mmplot: $t/bad/samples.csv:2: value_ns 'x' is not a decimal number$" "$asan_plot"
printf 'schema,run_id,label,kernel,workload,case,iteration,task,class\n' >"$t/bad/samples.csv"
expect "samples.csv: missing column (mmplot)" \
	"^mmplot: $t/bad/samples.csv:1: header is missing column\(s\): value_ns$" "$asan_plot"

# Valid input through the sanitizer build: a clean run, exit 0.
rm -rf "$t/bad"
mkrun "$t/bad" bad
printf '%s\r\n%s\r\n' "$hdr" "$ok_row" >"$t/bad/results.csv"
"$asan" "$t/good/r" "$t/bad" >/dev/null 2>"$t/err"
rc=$?
check "valid CRLF input passes cleanly under ASan/UBSan" \
	eval '[ $rc -eq 0 ] && ! grep -Eq "Sanitizer|runtime error" "$t/err"'
# cases.csv and started.csv are read with the same rules.
rm -rf "$t/bad"; mkrun "$t/bad" bad; addrows "$t/bad" w "x=1" m ns lower 1 2 3
printf 'schema,run_id,label,kernel,workload,case,status,reason,signal,duration_s\n1,r,bad,k,w,x=1,crashed,,0,1\n' \
	>"$t/bad/cases.csv"
expect "cases.csv: unknown status" "$t/bad/cases.csv:2: status 'crashed' is not pass, fail, skip or timeout"
printf 'schema,run_id,label,kernel,workload,case,status\n' >"$t/bad/cases.csv"
expect "cases.csv: missing column" "$t/bad/cases.csv:1: header is missing column\\(s\\): reason"
rm -f "$t/bad/cases.csv"
printf 'schema,run_id,label,kernel,workload,case,start_time\n1,r,bad,k,w,x=1,' >"$t/bad/started.csv"
expect "started.csv: truncated last line" "$t/bad/started.csv:2: last line is truncated"
printf 'schema,run_id,label,kernel,workload,case,start_time\n1,r,bad,k,w,x=1,\n' >"$t/bad/started.csv"
expect "started.csv: empty start_time" "$t/bad/started.csv:2: start_time is empty"
finish
