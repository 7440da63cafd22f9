package assess_test

import (
	"fmt"

	"github.com/evalgate/evalgate/assess"
	"github.com/evalgate/evalgate/results"
)

// Twenty passing tasks with no metadata: performance is measured, capability
// has no evidence at all.
func ExampleAssess() {
	run := runOf(repeat(20, passing)...)
	a := assess.Assess([]*results.Run{run}, assess.Options{})
	fmt.Printf("performance %.2f %s, provisional %t\n", *a.Performance.Score, a.Performance.Tier.Name, a.Performance.Provisional)
	fmt.Println("capability:", a.Capability.Score == nil, a.Capability.Dimension(assess.DomainBreadth).Reason)
	// Output:
	// performance 1.00 Elite, provisional false
	// capability: true no task carries a domain
}
