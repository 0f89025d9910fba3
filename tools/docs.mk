# Generated documentation: `make docs` rewrites workloads/PARAMETERS.md
# from `bench/mmbench info` (tools/gen-docs). The file is committed;
# tests/core/test_docs.sh fails when it differs from what mmbench prints.
# Written to a temporary name first, so a failed run leaves the page alone.
.PHONY: docs
docs: bench/mmbench
	@tools/gen-docs --mmbench bench/mmbench >workloads/PARAMETERS.md.tmp || \
		{ rm -f workloads/PARAMETERS.md.tmp; exit 1; }
	@mv workloads/PARAMETERS.md.tmp workloads/PARAMETERS.md
	@echo "docs: workloads/PARAMETERS.md written"
