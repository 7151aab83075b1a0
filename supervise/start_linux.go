package supervise

import (
	"os"
	"strconv"
	"strings"
)

// startToken is field 22 of /proc/PID/stat: the start time in clock ticks
// since boot (unique per boot together with the pid; the boot id is part of
// namespaceID).
func startToken(pid int) string {
	f := statFields(pid)
	if len(f) < 20 {
		return ""
	}
	return f[19]
}

func isZombie(pid int) bool {
	f := statFields(pid)
	return len(f) > 0 && (f[0] == "Z" || f[0] == "X")
}

// statFields are the fields of /proc/PID/stat after the command name (which
// may hold spaces and parentheses): state is the first.
func statFields(pid int) []string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return nil
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return nil
	}
	return strings.Fields(s[i+1:])
}

// namespaceID names the PID namespace and the boot: pids recorded under
// another one say nothing about processes here.
func namespaceID() string {
	ns, _ := os.Readlink("/proc/self/ns/pid")
	boot, _ := os.ReadFile("/proc/sys/kernel/random/boot_id")
	return ns + " boot:" + strings.TrimSpace(string(boot))
}
