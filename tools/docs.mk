# Generated documentation: `make docs` rewrites workloads/PARAMETERS.md
# from `bench/mmbench info` (tools/gen-docs), bench/run-options.tsv
# from `bench/mmbench options` (the run options' table, which the shell
# front doors read before mmbench is built), and bench/OPTIONS.md, the
# run options' reference, from that file (tools/gen-docs --options). The
# files are committed; tests/core/test_docs.sh fails when they differ from
# what mmbench prints. Each is written to a temporary name first, so a
# failed run leaves the page alone.
.PHONY: docs
docs: bench/mmbench
	@tools/gen-docs --mmbench bench/mmbench >workloads/PARAMETERS.md.tmp || \
		{ rm -f workloads/PARAMETERS.md.tmp; exit 1; }
	@mv workloads/PARAMETERS.md.tmp workloads/PARAMETERS.md
	@echo "docs: workloads/PARAMETERS.md written"
	@bench/mmbench options >bench/run-options.tsv.tmp || \
		{ rm -f bench/run-options.tsv.tmp; exit 1; }
	@mv bench/run-options.tsv.tmp bench/run-options.tsv
	@echo "docs: bench/run-options.tsv written"
	@tools/gen-docs --options bench/run-options.tsv >bench/OPTIONS.md.tmp || \
		{ rm -f bench/OPTIONS.md.tmp; exit 1; }
	@mv bench/OPTIONS.md.tmp bench/OPTIONS.md
	@echo "docs: bench/OPTIONS.md written"
