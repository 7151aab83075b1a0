//go:build !unix

package pginstall

import "io/fs"

// ownerOf: Windows has owners and ACLs rather than a uid and mode bits;
// the checks here do not apply (the tree is under the user's profile).
func ownerOf(fs.FileInfo) (int, bool) { return 0, false }
