// Package words writes the counts in evalgate's messages in English: one
// task, 3 tasks.
package words

import "strconv"

// Plural is one when n is 1, else many.
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Count is n followed by the word for it: "1 task", "3 tasks".
func Count(n int, one, many string) string {
	return strconv.Itoa(n) + " " + Plural(n, one, many)
}
