# Helpers for tests/compare: write schema-1 result directories at test time.
# Sourced after tests/lib.sh.

# mkrun DIR LABEL [KEY=VALUE...]: a run directory with meta.csv (the facts
# of this machine's kind, KEY=VALUE overriding) and a results.csv header.
mkrun() {
	local d=$1 label=$2 kv k
	shift 2
	mkdir -p "$d" || return 1
	declare -A m=([schema]=1 [run_id]=$(basename "$d") [label]=$label
		[start_time]=2025-01-01T00:00:00Z [kernel_release]=$label [cpus]=2
		[cpu_model]="Test CPU" [numa_nodes]=1 [node_mem_mb]=0:24000
		[thp_enabled]=madvise [thp_defrag]=madvise [numa_balancing]=0
		[swap_total_kb]=0 [vm]=none)
	for kv; do m[${kv%%=*}]=${kv#*=}; done
	{
		echo key,value
		for k in "${!m[@]}"; do echo "$k,${m[$k]}"; done
	} >"$d/meta.csv"
	echo "schema,run_id,label,kernel,workload,case,iteration,metric,value,unit,better" \
		>"$d/results.csv"
}

# addrows DIR WORKLOAD CASE METRIC UNIT BETTER V...: one row per value,
# iterations 0, 1, ...
addrows() {
	local d=$1 wl=$2 case=$3 metric=$4 unit=$5 better=$6 label v i=0 rid=${1##*/}
	shift 6
	label=$(awk -F, '$1 == "label" { print $2 }' "$d/meta.csv")
	for v; do
		echo "1,$rid,$label,k-$label,$wl,\"$case\",$i,$metric,$v,$unit,$better"
		i=$((i + 1))
	done >>"$d/results.csv"
}

# addsamples DIR WORKLOAD CASE CLASS V...: samples.csv rows (iteration 0).
addsamples() {
	local d=$1 wl=$2 case=$3 class=$4 label v rid=${1##*/}
	shift 4
	label=$(awk -F, '$1 == "label" { print $2 }' "$d/meta.csv")
	[ -f "$d/samples.csv" ] ||
		echo "schema,run_id,label,kernel,workload,case,iteration,task,class,value_ns" \
			>"$d/samples.csv"
	for v; do
		echo "1,$rid,$label,k,$wl,\"$case\",0,0,$class,$v"
	done >>"$d/samples.csv"
}

# seq_vals START STEP N: N values START, START+STEP, ... (awk arithmetic)
seq_vals() { awk -v s="$1" -v d="$2" -v n="$3" 'BEGIN { for (i = 0; i < n; i++) print s + i * d }'; }

MMCOMPARE=${MMCOMPARE:-$TOP/tools/mmcompare/mmcompare}
MMPLOT=${MMPLOT:-$TOP/tools/mmcompare/mmplot}
