# tools/mmtrend: the nightly job's C tools. mmtrend (trend plots and the
# index of regressions), mmhistory (every CSV read and write of
# tools/nightly), mmchange (the change points of each metric's history,
# the nightly's verdicts) and mmsynth (synthetic result sets for the tests).
# mmtrend reuses mmcompare's result-set reader and comparison code, so the
# trend marks the same lines mmcompare would.

MMT := tools/mmtrend
# mmcompare's sources (tools/mmcompare/mmcompare.mk builds their objects);
# the result-set reader is the core's (bench/results/resultset*.c).
MMT_MMC := tools/mmcompare
MMT_MMC_CORE := stats compare
# libcsv reads and writes every CSV; GSL: Student t (via mmcompare's
# stats.o, and mmchange's), the random numbers of mmsynth and of mmchange's
# permutations.
# -pthread: mmcompare's reader reads runs on threads.
MMT_LIBS := -lcsv -lgsl -lgslcblas -lm -pthread
MMT_COMMON := $(MMRES_OBJS) $(MMT)/history.o $(MMT)/judge.o
MMT_PROGS := $(MMT)/mmtrend $(MMT)/mmhistory $(MMT)/mmsynth $(MMT)/mmchange

ALL_TARGETS += $(MMT_PROGS)
CLEAN_FILES += $(MMT_PROGS) $(MMT_PROGS:%=%-san)

$(MMT)/%.o: $(MMT)/%.c
	$(CC) $(CFLAGS) -I$(MMT_MMC) -Ibench/results -c -o $@ $<

# mmhistory's commands (mmhistory.h)
MMT_HIST := mmhistory histkeep histdigest histledger
$(MMT)/mmhistory: $(MMT_HIST:%=$(MMT)/%.o) $(MMT_COMMON)
	$(CC) $(CFLAGS) -o $@ $^ $(MMT_LIBS)

$(MMT)/mmsynth: $(MMT)/mmsynth.o $(MMT_COMMON)
	$(CC) $(CFLAGS) -o $@ $^ $(MMT_LIBS)

# mmchange: E-divisive change points over the history (changepoint.c),
# reading each run with the core's result-set reader.
# mmchange's commands (mmchange.h)
MMT_CHG := mmchange chgsim chgload chgjudge chgdetect
$(MMT)/mmchange: $(MMT_CHG:%=$(MMT)/%.o) $(MMT)/changepoint.o $(MMT_COMMON) $(MMRS_OBJS)
	$(CC) $(CFLAGS) -o $@ $^ $(MMT_LIBS)

$(MMT)/mmtrend: $(MMT)/mmtrend.o $(MMT)/trendplot.o $(MMT_COMMON) $(MMT_MMC_CORE:%=$(MMT_MMC)/%.o) \
		$(MMRS_OBJS)
	$(CC) $(CFLAGS) -o $@ $^ $(MMT_LIBS)

# The tests run the ASan/UBSan builds on their bad inputs and crashes.
$(MMT)/mmhistory-san: $(MMT_HIST:%=$(MMT)/%.c) $(MMT_COMMON:.o=.c) $(MMT_MMC)/compare_csv.h
	$(CC) $(filter-out -MMD -MP,$(CFLAGS)) $(SAN_CFLAGS) -I$(MMT_MMC) -Ibench/results -o $@ \
		$(filter %.c,$^) $(MMT_LIBS)

$(MMT)/mmtrend-san: $(MMT)/mmtrend.c $(MMT)/trendplot.c $(MMT_COMMON:.o=.c) \
		$(MMT_MMC_CORE:%=$(MMT_MMC)/%.c) $(MMRS_SRCS)
	$(CC) $(filter-out -MMD -MP,$(CFLAGS)) $(SAN_CFLAGS) -I$(MMT_MMC) -Ibench/results -o $@ $^ $(MMT_LIBS)

$(MMT)/mmchange-san: $(MMT_CHG:%=$(MMT)/%.c) $(MMT)/changepoint.c $(MMT_COMMON:.o=.c) $(MMRS_SRCS)
	$(CC) $(filter-out -MMD -MP,$(CFLAGS)) $(SAN_CFLAGS) -Ibench/results -o $@ $^ $(MMT_LIBS)

CHECK_DEPS += $(MMT)/mmhistory-san $(MMT)/mmtrend-san $(MMT)/mmchange-san

-include $(wildcard $(MMT)/*.d)
