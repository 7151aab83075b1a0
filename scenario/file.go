package scenario

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"
	"github.com/pginterleave/interleave"
)

// Loaded is a scenario file ready to run.
type Loaded struct {
	Path     string // the file, as given
	Scenario interleave.Scenario
	// HandleActorErrors is the file's handle-actor-errors (also set on
	// Scenario).
	HandleActorErrors bool
	// Options are the defaults from the file's options section, with
	// SourceFiles and SourceRoot set so that exact replay fingerprints the
	// file, the files it names and the lockfiles beside them.
	Options interleave.Options
	// SourceFiles are absolute paths; SourceRoot is the file's directory.
	SourceFiles []string
	SourceRoot  string

	// Runtime names the runtime a JavaScript scenario runs on ("Node.js
	// v20.20.2"); empty for other files. Exact replay does not compare it
	// yet.
	Runtime string

	// close releases what loading started (a JavaScript scenario's Node
	// processes); nil for files that start nothing. See Close.
	close func() error
}

// yamlError is the YAML library's positioned error.
type yamlError interface {
	error
	GetToken() *token.Token
	GetMessage() string
}

// maxFile bounds a scenario file and each setup file read.
const maxFile = 64 << 20

// LoadFile reads and checks a YAML scenario file. Mistakes are reported as
// *PosError ("path:line:col: message").
func LoadFile(path string) (*Loaded, error) {
	data, err := readBounded(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// Parse checks a scenario file's contents; path names it in messages and is
// the base of the relative paths it contains. Nothing runs.
func Parse(path string, data []byte) (*Loaded, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	dir := filepath.Dir(abs)
	body, err := parseYAML(path, data)
	if err != nil {
		return nil, err
	}
	cfg, err := decodeFile(newDecoder(path, body), body, dir)
	if err != nil {
		return nil, err
	}
	files := sourceFiles(abs, cfg)
	opts := cfg.options
	opts.Source.Files, opts.Source.Root = files, dir
	return &Loaded{
		Path:              path,
		Scenario:          cfg.scenario(),
		HandleActorErrors: cfg.handleActorErrors,
		Options:           opts,
		SourceFiles:       files,
		SourceRoot:        dir,
	}, nil
}

// parseYAML returns the single document's body. A panic in the YAML
// library is reported as an error: a scenario file is untrusted input.
func parseYAML(path string, data []byte) (body ast.Node, err error) {
	defer func() {
		if v := recover(); v != nil {
			body, err = nil, &PosError{Path: path, Line: 1, Col: 1, Msg: fmt.Sprintf("the YAML could not be read: %v", v)}
		}
	}()
	f, err := parser.ParseBytes(data, 0)
	if err != nil {
		var ye yamlError
		if errors.As(err, &ye) {
			return nil, tokenErr(path, ye.GetToken(), ye.GetMessage())
		}
		return nil, &PosError{Path: path, Line: 1, Col: 1, Msg: err.Error()}
	}
	var docs []*ast.DocumentNode
	for _, d := range f.Docs {
		if d != nil && d.Body != nil {
			docs = append(docs, d)
		}
	}
	if len(docs) == 0 {
		return nil, &PosError{Path: path, Line: 1, Col: 1, Msg: "the file is empty; a scenario needs at least a name and actors"}
	}
	if len(docs) > 1 {
		return nil, newDecoder(path, nil).errAt(docs[1].Body, "a scenario file holds one YAML document; this is a second one")
	}
	return docs[0].Body, nil
}

func readBounded(path string) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	if st.Size() > maxFile {
		return nil, fmt.Errorf("%s is larger than %d MiB", path, maxFile>>20)
	}
	return os.ReadFile(path)
}

// scenarioName is the rule for a scenario file's name.
var scenarioName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]{0,63}$`)

// actorNameRule is interleave's rule for actor names.
var actorNameRule = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]{0,47}$`)

// decodeFile checks the top level and each section.
func decodeFile(d *decoder, body ast.Node, dir string) (*fileConfig, error) {
	fields, err := d.mapping(body, "the scenario file", "name", "setup", "actors", "invariant", "handle-actor-errors", "options")
	if err != nil {
		return nil, err
	}
	cfg := &fileConfig{dir: dir}
	var actorsAt ast.Node
	for _, f := range fields {
		switch f.key {
		case "name":
			if cfg.name, err = d.str(f.value, "name"); err != nil {
				return nil, err
			}
			if !scenarioName.MatchString(cfg.name) {
				return nil, d.errAt(orAt(f.value, f.keyAt), "name %q: a scenario name starts with a letter and uses letters, digits, '_' and '-' (at most 64)", cfg.name)
			}
		case "setup":
			err = cfg.decodeSetup(d, f.value)
		case "actors":
			actorsAt = f.keyAt
			err = cfg.decodeActors(d, f.keyAt, f.value)
		case "invariant":
			err = cfg.decodeInvariant(d, f.value)
		case "handle-actor-errors":
			cfg.handleActorErrors, err = d.boolean(f.value, "handle-actor-errors")
		case "options":
			err = cfg.decodeOptions(d, f.value)
		}
		if err != nil {
			return nil, err
		}
	}
	if cfg.name == "" {
		return nil, d.errAt(body, "the scenario has no name (add `name: my-race`)")
	}
	if actorsAt == nil {
		return nil, d.errAt(body, "the scenario has no actors (add `actors:` with 2 to 8 commands)")
	}
	return cfg, nil
}

func (c *fileConfig) decodeSetup(d *decoder, n ast.Node) error {
	if d.isNull(n) {
		return nil
	}
	fields, err := d.mapping(n, "setup", "sql", "files", "commands")
	if err != nil {
		return err
	}
	for _, f := range fields {
		switch f.key {
		case "sql":
			if d.isNull(f.value) {
				continue
			}
			if c.setupSQL, err = d.str(f.value, "setup sql"); err != nil {
				return err
			}
		case "files":
			items, err := d.list(f.value, "setup files")
			if err != nil {
				return err
			}
			for i, it := range items {
				name, err := d.str(it, fmt.Sprintf("setup file %d", i+1))
				if err != nil {
					return err
				}
				p := c.abs(name)
				data, err := readBounded(p)
				if err != nil {
					return d.errAt(it, "setup file %s cannot be read: %v", name, unwrapPath(err))
				}
				c.setupFiles = append(c.setupFiles, setupFile{name: name, path: p, sql: string(data)})
			}
		case "commands":
			items, err := d.list(f.value, "setup commands")
			if err != nil {
				return err
			}
			for i, it := range items {
				argv, err := d.argv(it, fmt.Sprintf("setup command %d", i+1))
				if err != nil {
					return err
				}
				c.setupCommands = append(c.setupCommands, command{argv: argv, dir: c.dir})
			}
		}
	}
	return nil
}

func (c *fileConfig) decodeActors(d *decoder, keyAt, n ast.Node) error {
	items, err := d.list(n, "actors")
	if err != nil {
		return err
	}
	switch {
	case len(items) < 2:
		return d.errAt(keyAt, "the scenario has %d actor(s); it needs 2 to 8", len(items))
	case len(items) > 8:
		return d.errAt(items[8], "actor 9: a scenario has at most 8 actors")
	}
	seen := map[string]bool{}
	for i, it := range items {
		what := fmt.Sprintf("actor %d", i+1)
		fields, err := d.mapping(it, what, "name", "command", "cwd", "env")
		if err != nil {
			return err
		}
		a := actorConfig{cmd: command{dir: c.dir}}
		var hasCommand bool
		for _, f := range fields {
			switch f.key {
			case "name":
				if a.name, err = d.str(f.value, what+"'s name"); err != nil {
					return err
				}
				if !actorNameRule.MatchString(a.name) {
					return d.errAt(orAt(f.value, f.keyAt), "%s has name %q; names start with a letter and use letters, digits, '_' and '-' (at most 48)", what, a.name)
				}
				if seen[a.name] {
					return d.errAt(orAt(f.value, f.keyAt), "two actors are named %s", a.name)
				}
				seen[a.name] = true
			case "command":
				if a.cmd.argv, err = d.argv(f.value, what+"'s command"); err != nil {
					return err
				}
				hasCommand = true
			case "cwd":
				cwd, err := d.str(f.value, what+"'s cwd")
				if err != nil {
					return err
				}
				a.cmd.dir = c.abs(cwd)
				// Said here, where it can be placed: exec would only say
				// that the program was not found.
				if st, err := os.Stat(a.cmd.dir); err != nil {
					return d.errAt(orAt(f.value, f.keyAt), "%s's cwd %s does not exist (relative paths start at the scenario file's directory)", what, cwd)
				} else if !st.IsDir() {
					return d.errAt(orAt(f.value, f.keyAt), "%s's cwd %s is not a directory", what, cwd)
				}
			case "env":
				if a.cmd.env, err = d.env(f.value, what+"'s env"); err != nil {
					return err
				}
			}
		}
		if a.name == "" {
			return d.errAt(it, "%s has no name", what)
		}
		if !hasCommand {
			return d.errAt(it, "%s has no command", what)
		}
		c.actors = append(c.actors, a)
	}
	return nil
}

func (d *decoder) env(n ast.Node, what string) ([]string, error) {
	if d.isNull(n) {
		return nil, nil
	}
	r, err := d.resolve(n)
	if err != nil {
		return nil, err
	}
	m, ok := r.(*ast.MappingNode)
	if !ok {
		return nil, d.errAt(orAt(r, n), "%s must be a mapping of NAME: value, found %s", what, kindOf(r))
	}
	var env []string
	for _, mv := range m.Values {
		k, err := d.text(mv.Key, what+" variable name")
		if err != nil {
			return nil, err
		}
		if !envName.MatchString(k) {
			return nil, d.errAt(mv.Key, "%s: %q is not a variable name", what, k)
		}
		v, err := d.text(mv.Value, what+" value of "+k)
		if err != nil {
			return nil, err
		}
		env = append(env, k+"="+v)
	}
	return env, nil
}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func unwrapPath(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

func (c *fileConfig) abs(p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(c.dir, p)
}
