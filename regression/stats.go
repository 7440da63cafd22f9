package regression

import (
	"math"
	"math/rand/v2"
	"slices"
)

// Resamples is the number of bootstrap resamples behind a confidence
// interval.
const Resamples = 2000

// bootstrapSeed fixes the resampling so that the same deltas always give
// the same interval: a re-run of the same results must not move a gate.
const bootstrapSeed = 0x65766167617465 // "evagate"

// McNemar returns the two-sided p-value of McNemar's exact test: b tasks
// passed in the baseline and fail now, c failed and pass now. Under "no
// change" each discordant task is a fair coin flip, so the p-value is the
// two-sided binomial tail of min(b, c) among b+c flips with p = 1/2. It is 1
// when nothing flipped.
func McNemar(b, c int) float64 {
	return binomialTwoSided(b, c)
}

// SignTest returns the two-sided p-value of the paired sign test: up tasks
// scored higher than in the baseline and down lower; ties are left out. It
// is the same binomial tail as McNemar over the score moves.
func SignTest(up, down int) float64 {
	return binomialTwoSided(up, down)
}

// binomialTwoSided is 2·P(X ≤ min(x, y)) for X ~ Binomial(x+y, 1/2),
// capped at 1. Up to 1,000 trials the terms are summed directly
// (2^-1000 is still a normal float), which keeps small cases exact: 2
// flips of 2 give 0.5, 6 of 6 give 0.03125. Beyond that the terms are
// computed in log space.
func binomialTwoSided(x, y int) float64 {
	if x < 0 || y < 0 {
		return 1
	}
	n := x + y
	k := min(x, y)
	if n == 0 {
		return 1
	}
	var tail float64
	if n <= 1000 {
		term := math.Ldexp(1, -n) // C(n, 0) / 2^n
		for i := 0; i <= k; i++ {
			tail += term
			term = term * float64(n-i) / float64(i+1)
		}
	} else {
		lgN, _ := math.Lgamma(float64(n + 1))
		for i := 0; i <= k; i++ {
			lgI, _ := math.Lgamma(float64(i + 1))
			lgNI, _ := math.Lgamma(float64(n - i + 1))
			tail += math.Exp(lgN - lgI - lgNI - float64(n)*math.Ln2)
		}
	}
	return min(1, 2*tail)
}

// Bootstrap returns the 95% percentile bootstrap interval of the mean of
// deltas: Resamples resamples of len(deltas) drawn with replacement from a
// fixed seed, so the interval is deterministic. The bounds are the 2.5th and
// 97.5th percentiles of the resampled means. No deltas, or deltas that are
// all equal, give that value at both ends.
func Bootstrap(deltas []float64) (low, high float64) {
	n := len(deltas)
	if n == 0 {
		return 0, 0
	}
	if allEqual(deltas) {
		return deltas[0], deltas[0]
	}
	rng := rand.New(rand.NewPCG(bootstrapSeed, uint64(n)))
	means := make([]float64, Resamples)
	for r := range means {
		var sum float64
		for range n {
			sum += deltas[rng.IntN(n)]
		}
		means[r] = sum / float64(n)
	}
	slices.Sort(means)
	lo := int(math.Floor(0.025 * Resamples))
	hi := int(math.Ceil(0.975*Resamples)) - 1
	return means[lo], means[hi]
}

func allEqual(xs []float64) bool {
	for _, x := range xs[1:] {
		if x != xs[0] {
			return false
		}
	}
	return true
}
