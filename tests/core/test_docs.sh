#!/usr/bin/env bash
# The documentation stays true to the code and to the repository:
# - workloads/PARAMETERS.md is what tools/gen-docs makes from the current
#   bench/mmbench (run `make docs` after changing a workload's tables);
# - bench/run-options.tsv is what `mmbench options` prints (make docs);
# - bench/OPTIONS.md is what tools/gen-docs --options makes from it, and
#   tools/gen-docs --options refuses a file that is not that table;
# - README.md, the front page, is at most 250 lines;
# - no file outside tests/ names ../shared (a clone does not have it);
# - every relative link in a committed *.md file names an existing file.
. "$(dirname "$0")/../lib.sh"
cd "$TOP" || exit 2
t=$(tmpdir); trap 'rm -rf "$t"' EXIT

# 1. The generated page against the binary.
page=workloads/PARAMETERS.md
if [ ! -x "$MMBENCH" ]; then
	fail "docs: $page" "bench/mmbench is not built"
elif ! tools/gen-docs --mmbench "$MMBENCH" >"$t/gen.md" 2>"$t/gen.err"; then
	fail "docs: tools/gen-docs" "$(cat "$t/gen.err")"
else
	# Computed defaults (CPU count, page size, node sizes) are compared
	# only on a machine with the facts the page was made on; elsewhere
	# every column but the defaults is.
	made=$(grep -o 'cpus=[0-9]* page_size=[0-9]* numa_nodes=[0-9]*' "$page" | head -n 1)
	here=$(grep -o 'cpus=[0-9]* page_size=[0-9]* numa_nodes=[0-9]*' "$t/gen.md" | head -n 1)
	if [ -n "$made" ] && [ "$made" = "$here" ] && [ "${here##*numa_nodes=}" -lt 2 ]; then
		what="every column"
		cp "$page" "$t/committed.md"
	else
		what="every column but the computed defaults (made on '$made', here '$here')"
		tools/gen-docs --mmbench "$MMBENCH" --mask-defaults >"$t/gen.md"
		# The committed page with its defaults masked the same way.
		awk -F' \\| ' 'BEGIN { OFS = " | " }
			/^\| parameter \|/ { p = 1 } /^$/ { p = 0 }
			p && /^\| `/ { $3 = "`-`" }
			{ print }' "$page" |
			sed 's/(cpus=[0-9]* page_size=[0-9]* numa_nodes=[0-9]*)/(masked)/' >"$t/committed.md"
	fi
	if diff -u "$t/committed.md" "$t/gen.md" >"$t/diff"; then
		pass "docs: $page matches mmbench info ($what)"
	else
		fail "docs: $page differs from mmbench info" "run 'make docs'; diff: $(head -n 20 "$t/diff")"
	fi
fi

# 1b. The run options' table as the front doors read it (tools/lib/front.sh).
if [ -x "$MMBENCH" ] && "$MMBENCH" options >"$t/options.tsv" 2>"$t/options.err"; then
	cmp -s "$t/options.tsv" bench/run-options.tsv &&
		pass "docs: bench/run-options.tsv is what mmbench options prints" ||
		fail "docs: bench/run-options.tsv differs from mmbench options" \
			"run 'make docs'; $(diff "$t/options.tsv" bench/run-options.tsv | head -n 10)"
	# 1c. The options' reference page from the same output.
	if ! tools/gen-docs --options "$t/options.tsv" >"$t/options.md" 2>"$t/optgen.err"; then
		fail "docs: tools/gen-docs --options" "$(cat "$t/optgen.err")"
	elif diff -u bench/OPTIONS.md "$t/options.md" >"$t/optdiff"; then
		n=$(grep -c '^| `-' "$t/options.md")
		[ "$n" -eq $(($(wc -l <"$t/options.tsv") - 1)) ] &&
			pass "docs: bench/OPTIONS.md is made from mmbench options ($n options, one row each)" ||
			fail "docs: bench/OPTIONS.md rows" "$n rows for $(($(wc -l <"$t/options.tsv") - 1)) options"
	else
		fail "docs: bench/OPTIONS.md differs from mmbench options" "run 'make docs'; diff: $(head -n 20 "$t/optdiff")"
	fi
	# A file whose header is not the table's, or a short line, is refused.
	sed '1s/help$/helps/' "$t/options.tsv" >"$t/badhead.tsv"
	printf 'x\ty\n' | cat <(head -n 1 "$t/options.tsv") - >"$t/short.tsv"
	for f in "badhead:$t/badhead.tsv: not the header" "short:options line 2 has 2 fields"; do
		msg=${f#*:} f=${f%%:*}
		tools/gen-docs --options "$t/$f.tsv" >/dev/null 2>"$t/$f.err"
		rc=$?
		[ $rc -eq 1 ] && grep -qF "gen-docs: $msg" "$t/$f.err" &&
			pass "docs: gen-docs --options refuses a $f table (exit 1, naming it)" ||
			fail "docs: gen-docs --options on a $f table" "rc=$rc $(cat "$t/$f.err")"
	done
else
	fail "docs: mmbench options" "$(cat "$t/options.err" 2>/dev/null)"
fi

# 2. The front page stays a front page.
n=$(wc -l <README.md)
[ "$n" -le 250 ] && pass "docs: README.md has $n lines (at most 250)" ||
	fail "docs: README.md length" "$n lines, more than 250: move detail to an area document"
head -n 8 README.md | grep -q '\./run\.sh' && head -n 8 README.md | grep -q 'make check' &&
	pass "docs: README.md starts with ./run.sh and make check" ||
	fail "docs: README.md start" "its first lines must give ./run.sh and make check"

# 3. Nothing outside tests/ refers to files outside the repository.
if [ -d .git ] || git rev-parse --git-dir >/dev/null 2>&1; then
	hits=$(git grep -n -e '\.\./shared' -e 'LAB\.md' -e 'STYLE\.md' -- . ':!tests/' 2>/dev/null)
else
	hits=$(grep -rn -e '\.\./shared' -e 'LAB\.md' -e 'STYLE\.md' --exclude-dir=tests --exclude-dir=results . 2>/dev/null)
fi
[ -z "$hits" ] && pass "docs: no file outside tests/ names ../shared, LAB.md or STYLE.md" ||
	fail "docs: ../shared named" "$hits"

# GitHub's anchors of a markdown file's headings, one a line: lower case,
# only letters, digits, '_', '-' and spaces kept, spaces turned into '-'.
anchors() {
	awk '/^ *```/ { fence = !fence; next }
		!fence && /^#+ / {
			s = tolower($0); sub(/^#+ +/, "", s)
			gsub(/[^a-z0-9_ -]/, "", s); gsub(/ /, "-", s); print s
		}' "$1"
}

# 4. Every relative link of every committed markdown file resolves, and
#    so does its #anchor when it has one.
if git rev-parse --git-dir >/dev/null 2>&1; then
	mds=$(git ls-files '*.md'; git ls-files --others --exclude-standard '*.md')
else
	mds=$(find . -name '*.md' -not -path './results/*' | sed 's|^\./||')
fi
bad=0 nlinks=0
for md in $mds; do
	[ -f "$md" ] || continue
	dir=$(dirname "$md")
	# [text](target) outside code spans and blocks; the target up to a
	# space or ')'.
	while IFS=$'\t' read -r line link; do
		case $link in
		'' | http://* | https://* | mailto:*) continue ;;
		esac
		nlinks=$((nlinks + 1))
		target=${link%%#*} frag=
		[ "$target" != "$link" ] && frag=${link#*#}
		path=$dir/$target
		[ -z "$target" ] && path=$md
		[ "${target#/}" != "$target" ] && path=.$target
		if [ -e "$path" ]; then
			if [ -n "$frag" ] && [ -f "$path" ] && [ "${path%.md}" != "$path" ] &&
				! anchors "$path" | grep -qxF -- "$frag"; then
				fail "docs: link $md:$line" "'$link': $path has no heading '#$frag'"
				bad=$((bad + 1))
			fi
			continue
		fi
		rel=$(realpath -m --relative-to=. "$path")
		fail "docs: link $md:$line" "'$target' does not exist ($rel)"
		bad=$((bad + 1))
	done < <(awk '
		/^ *```/ { fence = !fence; next }
		fence || /^(    |\t)/ { next }
		{
			s = $0
			gsub(/`[^`]*`/, "", s)
			while (match(s, /\]\([^) ]*/)) {
				printf "%d\t%s\n", NR, substr(s, RSTART + 2, RLENGTH - 2)
				s = substr(s, RSTART + RLENGTH)
			}
		}' "$md")
done
[ "$bad" -eq 0 ] && pass "docs: $nlinks relative links in $(wc -w <<<"$mds") markdown files resolve"
finish
