package cli

import (
	"bufio"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/pginterleave/interleave/engine"
	"github.com/pginterleave/interleave/search"
)

// maxPlanBytes bounds a --plan file.
const maxPlanBytes = 1 << 20

// readPlan reads a hand-written order, either inline as the original
// tool takes it (actor names separated by commas, each its actor's next
// executing command: "alice,bob,alice,bob") or from a file: one step a
// line, "ACTOR N" where N counts that actor's executing commands from 1;
// blank lines and lines starting with # are skipped. The isolation
// tester's permutation is the same idea with step names.
func readPlan(path string, sc engine.Scenario) ([]search.OrderStep, error) {
	st, err := os.Stat(path)
	if err != nil {
		if os.IsNotExist(err) && !strings.ContainsAny(path, `/\`) {
			return inlinePlan(path, sc)
		}
		return nil, err
	}
	if st.Size() > maxPlanBytes {
		return nil, fmt.Errorf("%s is larger than %d bytes", path, maxPlanBytes)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	actors := map[string]bool{}
	for _, n := range sc.ActorNames() {
		actors[n] = true
	}
	var order []search.OrderStep
	sc2 := bufio.NewScanner(f)
	for line := 1; sc2.Scan(); line++ {
		text := strings.TrimSpace(sc2.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		fields := strings.Fields(text)
		if len(fields) != 2 {
			return nil, fmt.Errorf("%s:%d: want `ACTOR N`, got %q", path, line, oneLine(text))
		}
		if !actors[fields[0]] {
			return nil, fmt.Errorf("%s:%d: no actor named %q (the scenario has %s)", path, line, oneLine(fields[0]), strings.Join(sc.ActorNames(), ", "))
		}
		n, err := strconv.Atoi(fields[1])
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%s:%d: %q is not a command number (1, 2, ...)", path, line, oneLine(fields[1]))
		}
		order = append(order, search.OrderStep{Actor: fields[0], Unit: n - 1})
	}
	if err := sc2.Err(); err != nil {
		return nil, err
	}
	if len(order) == 0 {
		return nil, fmt.Errorf("%s names no steps", path)
	}
	if err := search.CheckOrder(order, sc.ActorNames()); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return order, nil
}

// inlinePlan reads "alice,bob,alice,bob" (search.ParseOrder). A single
// word that is no actor may have been meant as a file: the error says both.
func inlinePlan(list string, sc engine.Scenario) ([]search.OrderStep, error) {
	actors := sc.ActorNames()
	if !strings.Contains(list, ",") && !slices.Contains(actors, strings.TrimSpace(list)) {
		return nil, fmt.Errorf("%q is neither a file nor an actor of the scenario (%s); give the order like %s", oneLine(list), strings.Join(actors, ", "), planExample(sc))
	}
	return search.ParseOrder(list, actors)
}

// planExample is an inline order of the scenario's first two actors.
func planExample(sc engine.Scenario) string {
	a := sc.ActorNames()
	if len(a) < 2 {
		return "alice,bob,alice,bob"
	}
	return strings.Join([]string{a[0], a[1], a[0], a[1]}, ",")
}

// planMessage says the library's words about "the order" in the words of
// the flag that gave it.
func planMessage(msg string) string {
	if rest, ok := strings.CutPrefix(msg, "the order "); ok {
		return "--plan " + rest
	}
	return msg
}
