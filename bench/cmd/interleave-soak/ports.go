//go:build linux

package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// listeningPorts maps each TCP port in LISTEN state held by one of pids to
// that pid, from /proc/net/tcp{,6} and the processes' descriptors.
func listeningPorts(pids []int) map[int]int {
	inodes := map[string]int{} // socket inode -> port
	for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		file, err := os.Open(f)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(file)
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) < 10 || fields[3] != "0A" { // 0A: LISTEN
				continue
			}
			local := fields[1]
			i := strings.LastIndexByte(local, ':')
			port, err := strconv.ParseInt(local[i+1:], 16, 32)
			if err == nil {
				inodes[fields[9]] = int(port)
			}
		}
		file.Close()
	}
	out := map[int]int{}
	for _, pid := range pids {
		fdDir := filepath.Join("/proc", strconv.Itoa(pid), "fd")
		fds, _ := os.ReadDir(fdDir)
		for _, fd := range fds {
			target, err := os.Readlink(filepath.Join(fdDir, fd.Name()))
			if err != nil || !strings.HasPrefix(target, "socket:[") {
				continue
			}
			if port, ok := inodes[strings.TrimSuffix(strings.TrimPrefix(target, "socket:["), "]")]; ok {
				out[port] = pid
			}
		}
	}
	return out
}

var ssUser = regexp.MustCompile(`pid=(\d+)`)

// ssListening is `ss -ltnpH`: every listening TCP port, with the pids that
// hold it.
func ssListening() (map[int][]int, error) {
	out, err := exec.Command("ss", "-ltnpH").Output()
	if err != nil {
		return nil, err
	}
	ports := map[int][]int{}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) < 4 {
			continue
		}
		local := f[3]
		port, err := strconv.Atoi(local[strings.LastIndexByte(local, ':')+1:])
		if err != nil {
			continue
		}
		var pids []int
		for _, m := range ssUser.FindAllStringSubmatch(line, -1) {
			pid, _ := strconv.Atoi(m[1])
			pids = append(pids, pid)
		}
		ports[port] = append(ports[port], pids...)
	}
	return ports, nil
}
