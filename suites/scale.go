package suites

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/evalgate/evalgate/internal/jsonpointer"
)

// MaxScaleLevels bounds how many levels one scale may have (max − min + 1):
// a scale is read by people and judges, level by level.
const MaxScaleLevels = 101

// Scale grades a rubric criterion on integer levels Min..Max instead of met
// or not met (docs/suites.md, "Graded criteria"). The criterion contributes weight × (level −
// Min)/(Max − Min) to its task's score.
type Scale struct {
	Min, Max int
	// Levels holds one entry per level, Levels[0] being Min.
	Levels []Level
	Pos    Pos
}

// Level is one level of a scale: the descriptor a judge reads, or the
// checks that decide it without a judge.
type Level struct {
	Descriptor string
	// Assert, when set, are the checks that must all hold for the level:
	// a scale whose levels carry them is graded without a judge.
	Assert []*Check
	Pos    Pos
}

// Deterministic reports whether the scale is graded by its levels' checks
// rather than by a judge.
func (s *Scale) Deterministic() bool {
	for _, l := range s.Levels {
		if l.Assert != nil {
			return true
		}
	}
	return false
}

// Fraction is the share of the criterion's weight a level earns:
// (level − Min)/(Max − Min).
func (s *Scale) Fraction(level int) float64 {
	return float64(level-s.Min) / float64(s.Max-s.Min)
}

// Checks returns every check of the criterion: its assert and the checks
// of its scale's levels.
func (c *Criterion) Checks() []*Check {
	var out []*Check
	if c.Assert != nil {
		out = append(out, c.Assert)
	}
	if c.Scale != nil {
		for _, l := range c.Scale.Levels {
			out = append(out, l.Assert...)
		}
	}
	return out
}

// scale decodes a criterion's scale at ptr and checks that every level of
// min..max is described once, and nothing else. It returns nil when the
// bounds cannot be read (the schema has said why).
func (d *decoder) scale(v *value, ptr string) *Scale {
	lo, okLo := integer(v.get("min"))
	hi, okHi := integer(v.get("max"))
	if !okLo || !okHi {
		return nil
	}
	if lo >= hi {
		d.errorf(v.get("max"), ptr+"/max", "expected max above min (%d), got %d", lo, hi)
		return nil
	}
	if hi-lo+1 > MaxScaleLevels {
		d.errorf(v.get("max"), ptr+"/max", "a scale has at most %d levels; %d..%d has %d", MaxScaleLevels, lo, hi, hi-lo+1)
		return nil
	}
	s := &Scale{Min: int(lo), Max: int(hi), Pos: d.pos(v), Levels: make([]Level, hi-lo+1)}
	lv := v.get("levels")
	if lv == nil || lv.kind != kindObject {
		return nil
	}
	seen := make([]bool, len(s.Levels))
	for _, f := range lv.fields {
		lptr := jsonpointer.Append(ptr+"/levels", f.key)
		n, err := strconv.Atoi(f.key)
		if err != nil || strconv.Itoa(n) != f.key {
			d.keyErrorf(&f, lptr, "expected a level, a whole number from %d to %d written as a key such as %q, got %q", lo, hi, strconv.Itoa(s.Min), f.key)
			continue
		}
		if n < s.Min || n > s.Max {
			d.keyErrorf(&f, lptr, "level %d is outside the scale's %d..%d", n, lo, hi)
			continue
		}
		l := Level{Pos: d.pos(f.val)}
		switch f.val.kind {
		case kindString:
			l.Descriptor = f.val.lit
		case kindObject:
			l.Descriptor = str(f.val.get("descriptor"))
			ids := map[string]*value{}
			for j, cv := range objects(f.val.get("assert")) {
				if cv.kind == kindObject {
					l.Assert = append(l.Assert, d.check(cv, jsonpointer.AppendIndex(lptr+"/assert", j), fmt.Sprintf("assert[%d]", j), ids))
				}
			}
		}
		seen[n-s.Min], s.Levels[n-s.Min] = true, l
	}
	var missing []string
	for i, ok := range seen {
		if !ok {
			missing = append(missing, strconv.Itoa(s.Min+i))
		}
	}
	if len(missing) > 0 {
		d.errorf(lv, ptr+"/levels", "every level of %d..%d needs a descriptor; missing %s", lo, hi, strings.Join(missing, ", "))
		return nil
	}
	if s.Deterministic() {
		for i, l := range s.Levels[1:] {
			if l.Assert == nil {
				d.errorf(lv, jsonpointer.Append(ptr+"/levels", strconv.Itoa(s.Min+i+1)), "the scale is graded by assert, so level %d needs \"assert\" too (a level without checks would always hold)", s.Min+i+1)
				return nil
			}
		}
	}
	return s
}

// criterionExt decodes the id of the criterion cv and its scale into c, if
// any, and checks what a graded criterion needs besides: a weight above 0
// and no criterion-wide assert. ids are the check ids of the task in use.
func (d *decoder) criterionExt(cv *value, ptr string, c *Criterion, ids map[string]*value) {
	if idv := cv.get("id"); idv != nil && idv.kind == kindString {
		c.ID = d.authorID(idv, ptr, ids)
	}
	sv := cv.get("scale")
	if sv == nil || sv.kind != kindObject {
		return
	}
	c.Scale = d.scale(sv, ptr+"/scale")
	if f := cv.getField("assert"); f != nil {
		d.keyErrorf(f, ptr+"/assert", `a graded criterion is decided by its scale; put the checks on its levels ("levels": {"4": {"assert": [...]}})`)
	}
	if wv := cv.get("weight"); wv != nil && c.Weight == 0 {
		d.errorf(wv, ptr+"/weight", "a graded criterion needs a weight above 0, got 0")
	}
}

// authorID claims the id an author wrote, idv, among the task's check ids,
// and reports it when another check has it already.
func (d *decoder) authorID(idv *value, ptr string, ids map[string]*value) string {
	if prev, ok := ids[idv.lit]; ok {
		d.errorf(idv, ptr+"/id", "duplicate check id %q; first used at line %d", idv.lit, prev.line)
	} else {
		ids[idv.lit] = idv
	}
	return idv.lit
}
