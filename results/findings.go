package results

// DedupeFindings drops the repeats of a finding from fs, in place, keeping
// the first of each in order: a finding counts once per trial, and once
// per task.
func DedupeFindings(fs []Finding) []Finding {
	if len(fs) < 2 {
		return fs
	}
	seen := map[Finding]bool{}
	out := fs[:0]
	for _, f := range fs {
		if !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	return out
}
