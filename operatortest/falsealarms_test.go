package operatortest

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The work on verdicts an operator author can trust saw fifteen patterns,
// each a false alarm on a correct operator or a silent pass. Each is handled
// by a rule, and each rule has a test named for it (several for some):
//
//	 #  pattern                                   test(s)
//	 1  a Job's uid in its selector and labels    TestUIDsAreEqualWhereverTheyAppear
//	 2  a generated name recorded in status       TestGeneratedNamesAreEqualWhereverTheyAreReferenced,
//	                                              TestAGeneratedNameIsNamedByTheObjectItNamesNotByHowManyWereMadeBefore
//	 3  owner deleted while the cache lags        TestADependentRecreatedForAGoneOwnerAndCollectedIsNotChurn,
//	                                              TestAStormThatOutlastsTheStallIsAHotLoop,
//	                                              TestALifetimeTheFaultFreeRunsLostTheRaceForIsNotChurn,
//	                                              TestAChildRecreatedFromALagStillInFlightAtTheHealIsNotChurn
//	 4  a dependency the workload deletes         TestAnErrorAtRestTheFaultFreeRunAlsoEndsInIsNoViolation,
//	                                              TestTheOutputOfAReconcileFailingByDesignIsNotCompared,
//	                                              TestAnErrorAtRestWithNoWorkloadIsNotForgiven,
//	                                              TestAnOperatorDelayedPastSomeOfTheWorkloadEndsAsTheRunStartingAfterThem
//	 5  a fault-free reference that is wrong      TestWhenTheFaultFreeRunsDisagreeTheReportNamesTheSuspectSide
//	 6  silent passes (Setup fails, bad Options)  TestAManagerThatCannotStartFailsTheTest,
//	                                              TestBadOptionsEachGiveOneErrorNamingTheField
//	 7  one known bug hides every other           TestDisableCoversTheKernelsVerdicts,
//	                                              TestASecondDistinctBugIsReportedBesideAKnownPanic
//	 8  a panicking plan does not replay          TestAPanickingPlanReplaysToOneHash
//	 9  the workload's re-create dropped          TestARecreationThatMeetsAFinalizingObjectIsRetriedUntilItLands,
//	                                              TestAFinalizerOperatorPassesTheDefaultWorkload
//	10  random tokens                             TestARandomPasswordFollowsThePlansSeed,
//	                                              TestAFieldThatDiffersWithTheRandomnessAloneIsNotADisagreement,
//	                                              TestTheRunWithOtherDrawsDiffersInTheRandomValuesAlone
//	11  reported, then passed                     TestAViolationThatDoesNotReplayFailsWithBothHashes
//	12  testing a known bug is glue               TestAnExpectedViolationPassesAndAMissingOneFails,
//	                                              TestExploreHonoursThePlanFlag, TestRunLogsTheEffectiveSeed,
//	                                              TestAPropertySaysWhenItWasViolated
//	13  time-driven operators                     TestAMissedScheduledRunUnderDowntimeIsNotBlamed,
//	                                              TestACrashBetweenTwoWritesOfATimeDrivenOperatorIsStillCaught
//	14  list order from a Go map                  TestListsOfTypeMapOrSetCompareWithoutOrder,
//	                                              TestANondeterministicOperatorIsNamedAtItsFirstDifferingStep
//	15  a workload the author cannot shape        TestAScriptRunsAtItsTimesAndIsWrittenInThePlan,
//	                                              TestTheWorkloadDrawsOnlyTheStepsAndObjectsTheAuthorChose
//
// examples/patterns runs a small correct operator of each common pattern
// with the default Options, and its buggy twin (TestCorrectOperatorsRaiseNoFalseAlarm,
// TestBuggyTwinsAreCaught).
var falseAlarmPatterns = map[int][]string{
	1:  {"TestUIDsAreEqualWhereverTheyAppear"},
	2:  {"TestGeneratedNamesAreEqualWhereverTheyAreReferenced", "TestAGeneratedNameIsNamedByTheObjectItNamesNotByHowManyWereMadeBefore"},
	3:  {"TestADependentRecreatedForAGoneOwnerAndCollectedIsNotChurn", "TestAStormThatOutlastsTheStallIsAHotLoop", "TestALifetimeTheFaultFreeRunsLostTheRaceForIsNotChurn", "TestAChildRecreatedFromALagStillInFlightAtTheHealIsNotChurn"},
	4:  {"TestAnErrorAtRestTheFaultFreeRunAlsoEndsInIsNoViolation", "TestTheOutputOfAReconcileFailingByDesignIsNotCompared", "TestAnErrorAtRestWithNoWorkloadIsNotForgiven", "TestAnOperatorDelayedPastSomeOfTheWorkloadEndsAsTheRunStartingAfterThem"},
	5:  {"TestWhenTheFaultFreeRunsDisagreeTheReportNamesTheSuspectSide"},
	6:  {"TestAManagerThatCannotStartFailsTheTest", "TestBadOptionsEachGiveOneErrorNamingTheField"},
	7:  {"TestDisableCoversTheKernelsVerdicts", "TestASecondDistinctBugIsReportedBesideAKnownPanic"},
	8:  {"TestAPanickingPlanReplaysToOneHash"},
	9:  {"TestARecreationThatMeetsAFinalizingObjectIsRetriedUntilItLands", "TestAFinalizerOperatorPassesTheDefaultWorkload"},
	10: {"TestARandomPasswordFollowsThePlansSeed", "TestAFieldThatDiffersWithTheRandomnessAloneIsNotADisagreement", "TestTheRunWithOtherDrawsDiffersInTheRandomValuesAlone"},
	11: {"TestAViolationThatDoesNotReplayFailsWithBothHashes"},
	12: {"TestAnExpectedViolationPassesAndAMissingOneFails", "TestExploreHonoursThePlanFlag", "TestRunLogsTheEffectiveSeed", "TestAPropertySaysWhenItWasViolated"},
	13: {"TestAMissedScheduledRunUnderDowntimeIsNotBlamed", "TestACrashBetweenTwoWritesOfATimeDrivenOperatorIsStillCaught"},
	14: {"TestListsOfTypeMapOrSetCompareWithoutOrder", "TestANondeterministicOperatorIsNamedAtItsFirstDifferingStep"},
	15: {"TestAScriptRunsAtItsTimesAndIsWrittenInThePlan", "TestTheWorkloadDrawsOnlyTheStepsAndObjectsTheAuthorChose"},
}

// The table above is true: each of the fifteen patterns has a test, and
// each test it names is a test of this package or of one of its parts.
func TestEachOfIssue27sPatternsHasATestNamedForItsRule(t *testing.T) {
	files, err := filepath.Glob("*_test.go")
	if err != nil {
		t.Fatal(err)
	}
	parts, err := filepath.Glob("*/*_test.go") // the parts' own tests
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, parts...)
	defined := map[string]bool{}
	fn := regexp.MustCompile(`(?m)^func (Test\w+)\(t \*testing\.T\)`)
	var header string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range fn.FindAllStringSubmatch(string(b), -1) {
			defined[m[1]] = true
		}
		if f == "falsealarms_test.go" {
			header = string(b)
		}
	}
	for n := 1; n <= 15; n++ {
		tests := falseAlarmPatterns[n]
		if len(tests) == 0 {
			t.Errorf("pattern %d has no test", n)
		}
		for _, name := range tests {
			if !defined[name] {
				t.Errorf("pattern %d: %s is not a test of operatortest or its parts", n, name)
			}
			if !strings.Contains(header, "//\t"+padNumber(n)) || !strings.Contains(header, name+"\n") && !strings.Contains(header, name+",") {
				t.Errorf("pattern %d: %s is missing from the table in this file's comment", n, name)
			}
		}
	}
}

func padNumber(n int) string {
	if n < 10 {
		return " " + string(rune('0'+n))
	}
	return string(rune('0'+n/10)) + string(rune('0'+n%10))
}
