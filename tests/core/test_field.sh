#!/usr/bin/env bash
# mmbench field: the result files for shell scripts, by column name, through
# the core's CSV reader: a quoted case holding a comma, an empty field, the
# last row, a lookup in meta.csv; the schema's headers and row quoting; bad
# input (a row with another field count, a missing column) exits 2 naming
# the file and line; --channel, the VM lab's channel as events.
. "$(dirname "$0")/../lib.sh"
mm=$MMBENCH_SAN
t=$(tmpdir); trap 'rm -rf "$t"' EXIT

hdr=$("$mm" field --header started.csv)
check "--header: started.csv's header from the schema" \
	test "$hdr" = "$("$mm" field --header /some/dir/started.csv)"
check "--header: not a schema file is refused" eval '! "$mm" field --header foo.csv 2>/dev/null'
printf '%s\n%s\n%s\n' "$hdr" '1,r,l,k,thp_storm,"mthp=64kB,512kB",2025-01-01T00:00:00Z' \
	'1,r,l,k,migrate_ad,,2025-01-01T00:00:05Z' >"$t/started.csv"
out=$("$mm" field "$t/started.csv" workload case)
check "a quoted case with a comma is one field" \
	test "$out" = $'thp_storm\tmthp=64kB,512kB\nmigrate_ad\t'
mapfile -t f < <("$mm" field --last --lines "$t/started.csv" workload case start_time)
check "--last --lines: the last row, one value a line, the empty case kept" \
	test "${#f[@]}" = 3 -a "${f[0]}" = migrate_ad -a "${f[1]}" = "" -a "${f[2]}" = 2025-01-01T00:00:05Z
out=$("$mm" field --where workload=thp_storm "$t/started.csv" case)
check "--where: only the matching rows" test "$out" = "mthp=64kB,512kB"
"$mm" field --where workload=none "$t/started.csv" case >/dev/null; rc=$?
check "--where without a match exits 1 (got $rc)" test "$rc" = 1

"$mm" field --header meta.csv >"$t/meta.csv"
"$mm" field --csv cmdline 'a,b "c"' >>"$t/meta.csv"
"$mm" field --csv schema "$("$mm" field --schema)" >>"$t/meta.csv"
check "--csv quotes as mmbench writes rows" grep -qx 'cmdline,"a,b ""c"""' "$t/meta.csv"
check "meta.csv lookup reads the quoted value back" \
	test "$("$mm" field --where key=cmdline "$t/meta.csv" value)" = 'a,b "c"'
check "--schema is the version in every row" \
	test "$("$mm" field --where key=schema "$t/meta.csv" value)" = 1

printf '%s\n%s\n' "$hdr" '1,r,l,k,pageout,x=1,2025,extra' >"$t/bad.csv"
"$mm" field "$t/bad.csv" case >/dev/null 2>"$t/err"; rc=$?
check "a row with another field count exits 2 naming FILE:LINE (got $rc)" \
	eval 'test "$rc" = 2 && grep -q "bad.csv:2: 8 fields, the header has 7" "$t/err"'
"$mm" field "$t/started.csv" nosuch >/dev/null 2>"$t/err"; rc=$?
check "a column the header lacks exits 2 naming it (got $rc)" \
	eval 'test "$rc" = 2 && grep -q "no column '"'"'nosuch'"'"'" "$t/err"'
"$mm" field "$t/nonexistent.csv" case >/dev/null 2>"$t/err"; rc=$?
check "a missing file exits 2 naming it (got $rc)" \
	eval 'test "$rc" = 2 && grep -q "nonexistent.csv: No such file" "$t/err"'
"$mm" field "$t/started.csv" >/dev/null 2>&1; rc=$?
check "no column: usage, exit 2 (got $rc)" test "$rc" = 2

# --channel: the VM lab's channel as events (US-separated, five fields), a
# quoted comma and a quoted line break continued on the next line, CRs
# dropped, other files' lines and their continuations ignored.
printf '%s\r\n' '@@MM plan.csv workload,case' '@@MM plan.csv w,"a=1,2"' '@@MM plan.csv w,b=1' \
	'@@MMVM start 3' '@@MM run.log "open' 'x' \
	'@@MM started.csv 1,r,l,k,w,"a=1,2",T' \
	'@@MM cases.csv 1,r,l,k,w,"a=1,2",skip,"no ""x""' 'here",0,0.1' '@@MMVM exit 4' >"$t/chan"
us=$'\037'
want="run${us}2${us}${us}${us}
start${us}2${us}w${us}a=1,2${us}
end${us}w${us}a=1,2${us}skip${us}no \"x\" here
exit${us}4${us}${us}${us}"
out=$("$mm" field --channel <"$t/chan")
check "--channel: plan counted, start and end events, quoted comma and line break" \
	test "$out" = "$want"
finish
