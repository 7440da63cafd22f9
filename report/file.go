package report

import (
	"errors"
	"fmt"
	"strings"
)

// safeName rejects an id that cannot be used as one file or folder name:
// empty, "." or "..", or holding a path separator or a NUL byte. Suite and
// task ids that passed suite validation always pass.
func safeName(id string) error {
	switch {
	case id == "":
		return errors.New("the id is empty")
	case id == "." || id == "..":
		return fmt.Errorf("the id %q is not a file name", id)
	case strings.ContainsAny(id, `/\`+"\x00"):
		return fmt.Errorf("the id %q holds a path separator", id)
	}
	return nil
}
