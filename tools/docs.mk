# Generated documentation: `make docs` rewrites workloads/PARAMETERS.md
# from `bench/mmbench info` (tools/gen-docs). The file is committed;
# tests/core/test_docs.sh fails when it differs from what mmbench prints.
.PHONY: docs
docs: bench/mmbench
	tools/gen-docs >workloads/PARAMETERS.md.tmp
	mv workloads/PARAMETERS.md.tmp workloads/PARAMETERS.md
