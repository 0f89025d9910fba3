# tools/mmcompare/mmprofile: the kernel profiles of runs side by side
# (--profile's profile.csv), and the VM lab's raw data unpacked. Read by
# tools/compare-report; tests in tests/profile/.
ALL_TARGETS += tools/mmcompare/mmprofile
CLEAN_FILES += tools/mmcompare/mmprofile tests/profile/mmprofile.asan

# profdiff.o reads the profiles and makes their difference (mmcompare's text
# views use it too), by the core's CSV reader; libm for fabs/isfinite.
tools/mmcompare/mmprofile: tools/mmcompare/mmprofile.o tools/mmcompare/profdiff.o $(MMRES_OBJS)
	$(CC) $(CFLAGS) -o $@ $^ $(MMRES_LIBS) -lm

# The same program with ASan/UBSan for the tests (bad input, torn files).
tests/profile/mmprofile.asan: tools/mmcompare/mmprofile.c tools/mmcompare/profdiff.c \
		tools/mmcompare/profdiff.h tools/mmcompare/gptext.h \
		$(MMRES_SRCS) bench/results/csvio.h bench/results/results.h
	$(CC) $(filter-out -MMD -MP,$(CFLAGS)) $(SAN_CFLAGS) -Ibench/results -o $@ \
		$(filter %.c,$^) $(MMRES_LIBS) -lm
CHECK_DEPS += tests/profile/mmprofile.asan
