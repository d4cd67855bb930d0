//go:build linux

package readfile

import (
	"os"
	"syscall"
)

// pseudoMagic names the Linux pseudo file systems by their statfs(2) magic
// number (linux/magic.h).
var pseudoMagic = map[int64]string{
	0x9fa0:     "procfs",
	0x62656572: "sysfs",
	0x64626720: "debugfs",
	0x74726163: "tracefs",
	0x27e0eb:   "cgroupfs",
	0x63677270: "cgroup2fs",
	0xcafe4a11: "bpffs",
	0x73636673: "securityfs",
	0x6e736673: "nsfs",
	0x1cd1:     "devpts",
	0xf97cff8c: "selinuxfs",
	0x42494e4d: "binfmt_misc",
	0x6165676c: "pstorefs",
	0xde5e81e4: "efivarfs",
	0x958458f6: "hugetlbfs",
}

// pseudoFS names the pseudo file system the open file f is on, or "" for
// any other (or when fstatfs fails, as the read then reports).
func pseudoFS(f *os.File) string {
	var s syscall.Statfs_t
	if err := syscall.Fstatfs(int(f.Fd()), &s); err != nil {
		return ""
	}
	return pseudoMagic[int64(s.Type)]
}
