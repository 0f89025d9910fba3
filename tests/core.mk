# Core unit tests: the core sources (without main.c) built with ASan+UBSan.
UNIT_CORE_SRCS := $(filter-out bench/main.c,$(CORE_SRCS)) workloads/registry.c \
	$(filter-out workloads/registry.c,$(WL_SRCS))
tests/core/unit.bin: tests/core/unit.c $(UNIT_CORE_SRCS) $(wildcard bench/*.h bench/results/*.h)
	$(CC) $(filter-out -MMD -MP,$(CFLAGS)) $(SAN_CFLAGS) -Ibench -Ibench/results -o $@ \
		tests/core/unit.c $(UNIT_CORE_SRCS) $(MMBENCH_LIBS)
CHECK_DEPS += tests/core/unit.bin
CLEAN_FILES += tests/core/unit.bin

# Workload table unit tests: the same sources, tests/core/tables_unit.c.
tests/core/tables_unit.bin: tests/core/tables_unit.c $(UNIT_CORE_SRCS) $(wildcard bench/*.h bench/results/*.h)
	$(CC) $(filter-out -MMD -MP,$(CFLAGS)) $(SAN_CFLAGS) -Ibench -Ibench/results -o $@ \
		tests/core/tables_unit.c $(UNIT_CORE_SRCS) $(MMBENCH_LIBS)
CHECK_DEPS += tests/core/tables_unit.bin
CLEAN_FILES += tests/core/tables_unit.bin
