package suites

import (
	"cmp"
	"encoding/binary"
	"errors"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/parser/lexer"
	"github.com/expr-lang/expr/vm"

	"github.com/evalgate/evalgate/internal/meter"
)

// shapeTokens is an expression's tokens as compileShape reads them to
// find its program without parsing it. The parser builds the same tree
// from any two lists of tokens of the same kinds and the same values,
// save the values of string and number literals (a number's kind aside,
// integer or float); so the parse of one expression says, for every
// expression of its tokens' shape, which literals are values read from
// ExprLiterals and which stay in the shape (tokenShape).
type shapeTokens struct {
	key  []byte        // the tokens, a string or number literal by its kind only
	lits []lexer.Token // the string and number literals, in order
}

// tokenShape is what the parse of an expression said of every expression
// of its tokens' shape.
type tokenShape struct {
	key      string // shapeTokens.key
	values   []int  // for each value in ExprLiterals, the index of its literal
	patterns []bool // for each value, whether it is the literal pattern of a matches
	stay     []bool // for each literal, whether it stays in the shape
	programs int    // the programs in shapes.m compiled for this shape
}

// shapeLexer is a lexer used again: a Lexer's Reset keeps the last
// source's position and error, so each use starts from a copy of the
// lexer as New made it (fresh, never used itself), which shares its
// token buffer, grown once.
type shapeLexer struct {
	fresh, l lexer.Lexer
}

var shapeLexers = sync.Pool{New: func() any { return &shapeLexer{fresh: *lexer.New()} }}

// lexShape reads src's tokens; false when it does not lex (the parse
// then reports why).
func lexShape(src string) (shapeTokens, bool) {
	sl := shapeLexers.Get().(*shapeLexer)
	defer shapeLexers.Put(sl)
	sl.l = sl.fresh
	l := &sl.l
	l.Reset(file.NewSource(src))
	defer l.Reset(file.Source{}) // holds neither src nor its tokens
	t := shapeTokens{key: make([]byte, 0, len(src)+16)}
	for {
		tok, err := l.Next()
		switch {
		case errors.Is(err, io.EOF):
			return t, true
		case err != nil:
			return t, false
		}
		switch tok.Kind {
		case lexer.String:
			t.key = append(t.key, 's')
			t.lits = append(t.lits, tok)
		case lexer.Number:
			t.key = append(t.key, 'i')
			if numberIsFloat(tok.Value) {
				t.key[len(t.key)-1] = 'f'
			}
			t.lits = append(t.lits, tok)
		default:
			t.key = append(t.key, tokenKinds[tok.Kind])
			t.key = binary.AppendUvarint(t.key, uint64(len(tok.Value)))
			t.key = append(t.key, tok.Value...)
		}
	}
}

// tokenKinds names the kinds of the tokens that are in a shape as they are.
var tokenKinds = map[lexer.Kind]byte{
	lexer.Identifier: 'I',
	lexer.Bytes:      'B',
	lexer.Operator:   'O',
	lexer.Bracket:    'K',
	lexer.EOF:        'E',
}

// numberIsFloat says whether the parser makes a number literal a float.
func numberIsFloat(text string) bool {
	lower := strings.ToLower(strings.ReplaceAll(text, "_", ""))
	return !strings.HasPrefix(lower, "0x") && strings.ContainsAny(lower, ".e")
}

// numberValue is a number literal's value as the parser reads it: an int
// or a float64; false where the parser reports an error.
func numberValue(text string) (any, bool) {
	value := strings.ReplaceAll(text, "_", "")
	lower := strings.ToLower(value)
	switch {
	case strings.HasPrefix(lower, "0x"), strings.HasPrefix(lower, "0b"), strings.HasPrefix(lower, "0o"):
		n, err := strconv.ParseInt(value, 0, 64)
		return int(n), err == nil
	case strings.ContainsAny(lower, ".e"):
		f, err := strconv.ParseFloat(value, 64)
		return f, err == nil
	}
	n, err := strconv.ParseInt(value, 10, 64)
	return int(n), err == nil
}

// programKey is the key in shapes.m of the program of the tokens of
// shape ts: their shape and the literals that stay in it.
func (t *shapeTokens) programKey(ts *tokenShape) []byte {
	k := append(append(make([]byte, 0, len(t.key)+8), 0), t.key...)
	for i, stay := range ts.stay {
		if stay {
			k = binary.AppendUvarint(k, uint64(len(t.lits[i].Value)))
			k = append(k, t.lits[i].Value...)
		}
	}
	return k
}

// lookup returns the program of the tokens' shape and the values of
// their literals, when a program is held for it; false otherwise, and
// when a literal is one the parse reports or a literal pattern does not
// compile (compileShape then goes the long way, which says why).
func (t *shapeTokens) lookup() (*vm.Program, []any, bool) {
	shapes.mu.Lock()
	ts := shapes.tokens[string(t.key)]
	var p *vm.Program
	if ts != nil && len(ts.stay) == len(t.lits) {
		p = shapes.m[string(t.programKey(ts))].Value()
	}
	shapes.mu.Unlock()
	if p == nil {
		return nil, nil, false
	}
	values := make([]any, len(ts.values))
	for i, j := range ts.values {
		tok := t.lits[j]
		switch {
		case ts.patterns[i]:
			re, err := meter.Compile(tok.Value)
			if err != nil {
				return nil, nil, false
			}
			values[i] = re
		case tok.Kind == lexer.String:
			values[i] = tok.Value
		default:
			v, ok := numberValue(tok.Value)
			if !ok {
				return nil, nil, false
			}
			values[i] = v
		}
	}
	return p, values, true
}

// learn returns the tokens' shape as the literals' walk of their parse
// found it; nil when a value does not come from a literal token exactly
// as the parser read it (the program is then keyed by its tree).
func (t *shapeTokens) learn(l *literals) *tokenShape {
	ts := &tokenShape{
		key:      string(t.key),
		values:   make([]int, len(l.values)),
		patterns: make([]bool, len(l.values)),
		stay:     make([]bool, len(t.lits)),
	}
	for i := range ts.stay {
		ts.stay[i] = true
	}
	for i, at := range l.at {
		j, found := slices.BinarySearchFunc(t.lits, at, func(tok lexer.Token, at int) int { return cmp.Compare(tok.From, at) })
		if !found {
			return nil
		}
		tok := t.lits[j]
		if s, ok := l.raw[i].(string); ok {
			if tok.Kind != lexer.String || tok.Value != s {
				return nil
			}
		} else if v, ok := numberValue(tok.Value); tok.Kind != lexer.Number || !ok || v != l.raw[i] {
			return nil
		}
		_, ts.patterns[i] = l.values[i].(*meter.Regexp)
		ts.values[i] = j
		ts.stay[j] = false
	}
	return ts
}

// sameShape says whether two parses found the same tokens' shape.
func (ts *tokenShape) sameShape(o *tokenShape) bool {
	return slices.Equal(ts.values, o.values) && slices.Equal(ts.patterns, o.patterns) && slices.Equal(ts.stay, o.stay)
}
