#!/usr/bin/env bash
# Fuzz the result-set reader (libFuzzer + ASan/UBSan) for a bounded time,
# FUZZ_SECONDS (default 20), from a seed corpus written here. The harness
# also aborts if a statistic it would print is not finite.
. "$(dirname "$0")/../lib.sh"
fuzz=$TOP/tools/mmcompare/fuzz_reader
secs=${FUZZ_SECONDS:-20}
if [ ! -x "$fuzz" ]; then
	if ! command -v clang >/dev/null; then
		skip "fuzz reader" "clang is not installed (tools/deps.sh test)"
		finish
	fi
	fail "fuzz reader" "$fuzz not built (make $fuzz)"
	finish
fi
t=$(tmpdir)
keep=0
trap '[ $keep = 1 ] || rm -rf "$t"' EXIT
mkdir -p "$t/corpus"
hdr="schema,run_id,label,kernel,workload,case,iteration,metric,value,unit,better"
shdr="schema,run_id,label,kernel,workload,case,iteration,task,class,value_ns"
# The first byte selects the file: 0 results.csv, 1 meta.csv, 2 samples.csv,
# 3 cases.csv, 4 started.csv.
printf '\000%s\n1,r,a,k,thpscale,"size_mb=64;threads=1",0,fault_both,1131.5,ns,lower\n1,r,a,k,thpscale,"size_mb=64;threads=2",1,loops,2e3,loops/s,higher\n1,r,a,k,w,,0,vm_x,7,count,info\n' "$hdr" >"$t/corpus/results"
printf '\000%s\r\n1,r,a,k,w,"x=1",0,m,1,ns,lower\r\n1,r,a,"k\nk",w,"x=1",1,m,2,ns,lower\r\n' "$hdr" >"$t/corpus/crlf"
# the high bit: the second side has two runs (the run as the unit)
printf '\200%s\n1,f,a,k,w,"threads=1",0,m,1,ns,lower\n1,f,a,k,w,"threads=1",1,m,3,ns,lower\n1,f,a,k,w,"threads=2",0,m,1e308,ns,lower\n1,f,a,k,w,"threads=2",1,m,-1e308,ns,lower\n' "$hdr" >"$t/corpus/runs"
printf '\001key,value\nschema,1\ncpus,2\nnode_mem_mb,0:24000;1:1024\nthp_enabled,madvise\nswap_total_kb,0\n' >"$t/corpus/meta"
printf '\002%s\n1,r,a,k,w,"threads=1",0,0,huge,123\n1,r,a,k,w,"threads=1",0,1,base,4.5e3\n' "$shdr" >"$t/corpus/samples"
printf '\003schema,run_id,label,kernel,workload,case,status,reason,signal,duration_s\n1,r,a,k,w,x=1,pass,,0,1.5\n1,r,a,k,w,x=2,fail,"killed by signal 9 (Killed), OOM?",9,2\n1,r,a,k,v,,skip,needs two nodes,0,0\n' >"$t/corpus/cases"
printf '\004schema,run_id,label,kernel,workload,case,start_time\n1,r,a,k,w,x=1,2025-01-01T00:00:00Z\n' >"$t/corpus/started"
start=$(date +%s)
"$fuzz" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
	-dict="$TOP/tools/mmcompare/fuzz.dict" -artifact_prefix="$t/" "$t/corpus" >"$t/log" 2>&1
rc=$?
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$t/log")
if [ $rc -eq 0 ] && [ "${runs:-0}" -gt 0 ]; then
	pass "fuzz reader: $runs inputs in $(( $(date +%s) - start ))s, no crash, leak or non-finite statistic"
else
	keep=1
	fail "fuzz reader" "exit $rc; artifacts and log in $t: $(grep -m1 -E 'ERROR|SUMMARY|deadly' "$t/log")"
fi
finish
