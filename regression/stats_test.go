package regression

import (
	"testing"

	"gotest.tools/v3/assert"
)

func TestMcNemar(t *testing.T) {
	type testCase struct {
		name string
		b, c int
		want float64
	}
	run := func(t *testing.T, tc testCase) {
		assert.Equal(t, McNemar(tc.b, tc.c), tc.want)
		assert.Equal(t, McNemar(tc.c, tc.b), tc.want, "the test is two-sided: swapping b and c changes nothing")
	}
	for _, tc := range []testCase{
		{name: "nothing flipped", b: 0, c: 0, want: 1},
		{name: "one flip is noise", b: 1, c: 0, want: 1},
		{name: "two flips one way", b: 2, c: 0, want: 0.5},         // 2·(1/4)
		{name: "five flips one way", b: 5, c: 0, want: 0.0625},     // 2·(1/32)
		{name: "six flips one way", b: 6, c: 0, want: 0.03125},     // 2·(1/64)
		{name: "three against one", b: 3, c: 1, want: 0.625},       // 2·(1+4)/16
		{name: "balanced flips", b: 2, c: 2, want: 1},              // 2·11/16 capped
		{name: "ten against two", b: 10, c: 2, want: 158.0 / 4096}, // 2·(1+12+66)/4096
		{name: "eight against zero", b: 8, c: 0, want: 2.0 / 256},  // 2·(1/256)
		{name: "seven against one", b: 7, c: 1, want: 18.0 / 256},  // 2·(1+8)/256
		{name: "negative counts", b: -1, c: 3, want: 1},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

func TestSignTest(t *testing.T) {
	type testCase struct {
		name     string
		up, down int
		want     float64
	}
	run := func(t *testing.T, tc testCase) {
		assert.Equal(t, SignTest(tc.up, tc.down), tc.want)
	}
	for _, tc := range []testCase{
		{name: "no moves", want: 1},
		{name: "four down", down: 4, want: 0.125},                     // 2·(1/16)
		{name: "nine down one up", up: 1, down: 9, want: 22.0 / 1024}, // 2·(1+10)/1024
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

// TestBinomialLarge checks the log-space branch beyond 1,000 flips against
// the direct sum just below it and against symmetry.
func TestBinomialLarge(t *testing.T) {
	type testCase struct {
		name string
		x, y int
		lo   float64
		hi   float64
	}
	run := func(t *testing.T, tc testCase) {
		p := binomialTwoSided(tc.x, tc.y)
		assert.Assert(t, p >= tc.lo && p <= tc.hi, "p = %v, want within [%v, %v]", p, tc.lo, tc.hi)
		assert.Equal(t, p, binomialTwoSided(tc.y, tc.x))
	}
	for _, tc := range []testCase{
		{name: "balanced", x: 700, y: 700, lo: 1, hi: 1},
		// z = (950.5-1000)/sqrt(500) ≈ -2.214 → two-sided ≈ 0.0268
		{name: "moderate", x: 950, y: 1050, lo: 0.025, hi: 0.029},
		// z ≈ -4.45 → two-sided ≈ 8.6e-6
		{name: "strong", x: 900, y: 1100, lo: 5e-6, hi: 1.2e-5},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
	// The two branches agree where they meet.
	direct := binomialTwoSided(480, 520) // n = 1000, direct sum
	logged := binomialTwoSided(480, 521) // n = 1001, log space
	assert.Assert(t, direct > logged && direct-logged < 0.05, "direct %v, log space %v", direct, logged)
}

func TestBootstrap(t *testing.T) {
	type testCase struct {
		name     string
		deltas   []float64
		low      float64
		high     float64
		exact    bool
		contains float64
	}
	run := func(t *testing.T, tc testCase) {
		low, high := Bootstrap(tc.deltas)
		low2, high2 := Bootstrap(tc.deltas)
		assert.Equal(t, low, low2, "the interval must be deterministic")
		assert.Equal(t, high, high2, "the interval must be deterministic")
		if tc.exact {
			assert.Equal(t, low, tc.low)
			assert.Equal(t, high, tc.high)
			return
		}
		assert.Assert(t, low >= tc.low && high <= tc.high, "interval [%v, %v] outside [%v, %v]", low, high, tc.low, tc.high)
		assert.Assert(t, low <= tc.contains && tc.contains <= high, "interval [%v, %v] misses the mean %v", low, high, tc.contains)
		assert.Assert(t, low < high)
	}
	twoOfSeven := []float64{-1, -1, 0, 0, 0, 0, 0}
	many := make([]float64, 400)
	for i := range many {
		if i%4 == 0 {
			many[i] = -0.5 // mean -0.125
		}
	}
	for _, tc := range []testCase{
		{name: "no tasks", exact: true},
		{name: "nothing moved", deltas: []float64{0, 0, 0}, exact: true},
		{name: "all moved alike", deltas: []float64{-0.5, -0.5}, low: -0.5, high: -0.5, exact: true},
		// Resampled means of 7 values in {-1, 0} are multiples of 1/7 in [-1, 0].
		{name: "two of seven lost a point", deltas: twoOfSeven, low: -5.0 / 7, high: 0, contains: -2.0 / 7},
		// 400 tasks, a quarter lost half a point: the variance is
		// 0.0625 - 0.125² = 0.046875, the standard error sqrt(0.046875/400)
		// ≈ 0.0108, so the interval is about -0.125 ± 0.021.
		{name: "many tasks", deltas: many, low: -0.16, high: -0.09, contains: -0.125},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}
