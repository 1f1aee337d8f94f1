// Command refcheck runs the conformance suite (tests/starlark/*.star) against the reference
// implementation, go.starlark.net, at the same version as the `starlark` binary on PATH.
//
// It exists because the suite's `assert.fails(fn, pattern)` needs to catch an error, which a prelude
// written in Starlark cannot do (the language has no try/except); a tiny Go host gives the reference the
// same predeclared `assert` module as tests/starlark/conformance_test.ts gives our engine.
//
// The chunk format (kept identical to tests/starlark/chunks.ts):
//   - chunks are separated by lines consisting of exactly `---`; each runs as its own program, with
//     blank lines prepended so that line numbers are those of the whole file;
//   - `option:NAME` in the file's first line, or in a comment line of a chunk, turns on a dialect option
//     (set, while, recursion, toplevelcontrol, globalreassign);
//   - `reference:skip` in the file's first line, or in a comment line of a chunk, exempts it from this
//     check (used for CodeMode extensions such as sum());
//   - a line ending in `### REGEX` means the chunk must fail, at that line, with a message matching REGEX.
//
// `load("NAME", ...)` reads tests/starlark/modules/NAME (next to the .star files), runs it with the same
// predeclared names (once per chunk) and binds its globals; a missing module is "no such module".
//
// Usage: go run . [-v] FILE.star...
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"go.starlark.net/lib/json"
	starlarkmath "go.starlark.net/lib/math"
	"go.starlark.net/resolve"
	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
	"go.starlark.net/syntax"
)

type chunk struct {
	start   int // 1-based line of the chunk's first line
	source  string
	options map[string]bool
	expect  map[int]string // line -> regex
	skip    bool
}

var optionRe = regexp.MustCompile(`option:(\w+)`)
var expectRe = regexp.MustCompile(`###\s*(.*?)\s*$`)
var commentRe = regexp.MustCompile(`^\s*#`)

func splitChunks(text string) []chunk {
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	fileOpts := map[string]bool{}
	fileSkip := false
	if len(lines) > 0 && commentRe.MatchString(lines[0]) {
		for _, m := range optionRe.FindAllStringSubmatch(lines[0], -1) {
			fileOpts[m[1]] = true
		}
		fileSkip = strings.Contains(lines[0], "reference:skip")
	}
	var chunks []chunk
	begin := 0
	flush := func(end int) {
		c := chunk{start: begin + 1, options: map[string]bool{}, expect: map[int]string{}, skip: fileSkip}
		for k := range fileOpts {
			c.options[k] = true
		}
		var b strings.Builder
		b.WriteString(strings.Repeat("\n", begin))
		for i := begin; i < end; i++ {
			line := lines[i]
			b.WriteString(line)
			b.WriteString("\n")
			if commentRe.MatchString(line) {
				for _, m := range optionRe.FindAllStringSubmatch(line, -1) {
					c.options[m[1]] = true
				}
				if strings.Contains(line, "reference:skip") {
					c.skip = true
				}
			}
			if m := expectRe.FindStringSubmatch(line); m != nil {
				c.expect[i+1] = m[1]
			}
		}
		c.source = b.String()
		chunks = append(chunks, c)
	}
	for i, line := range lines {
		if line == "---" {
			flush(i)
			begin = i + 1
		}
	}
	flush(len(lines))
	return chunks
}

// assertCount counts assertion calls that ran, as a measure of the suite's size.
var assertCount int

func makeAssert() *starlarkstruct.Module {
	builtin := func(name string, fn func(thread *starlark.Thread, args starlark.Tuple) error) *starlark.Builtin {
		return starlark.NewBuiltin(name, func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple,
			kwargs []starlark.Tuple) (starlark.Value, error) {
			if len(kwargs) > 0 {
				return nil, fmt.Errorf("%s: unexpected keyword arguments", name)
			}
			assertCount++
			if err := fn(thread, args); err != nil {
				return nil, err
			}
			return starlark.None, nil
		})
	}
	nargs := func(name string, args starlark.Tuple, min, max int) error {
		if len(args) < min || len(args) > max {
			return fmt.Errorf("assert.%s: got %d arguments, want %d..%d", name, len(args), min, max)
		}
		return nil
	}
	members := starlark.StringDict{
		"eq": builtin("eq", func(_ *starlark.Thread, args starlark.Tuple) error {
			if err := nargs("eq", args, 2, 2); err != nil {
				return err
			}
			eq, err := starlark.Equal(args[0], args[1])
			if err != nil {
				return err
			}
			if !eq {
				return fmt.Errorf("assert.eq: %s != %s", args[0].String(), args[1].String())
			}
			return nil
		}),
		"ne": builtin("ne", func(_ *starlark.Thread, args starlark.Tuple) error {
			if err := nargs("ne", args, 2, 2); err != nil {
				return err
			}
			eq, err := starlark.Equal(args[0], args[1])
			if err != nil {
				return err
			}
			if eq {
				return fmt.Errorf("assert.ne: %s == %s", args[0].String(), args[1].String())
			}
			return nil
		}),
		"true": builtin("true", func(_ *starlark.Thread, args starlark.Tuple) error {
			if err := nargs("true", args, 1, 2); err != nil {
				return err
			}
			if !args[0].Truth() {
				msg := "assertion failed"
				if len(args) == 2 {
					if s, ok := starlark.AsString(args[1]); ok {
						msg = s
					}
				}
				return fmt.Errorf("assert.true: %s", msg)
			}
			return nil
		}),
		"lt": builtin("lt", func(_ *starlark.Thread, args starlark.Tuple) error {
			if err := nargs("lt", args, 2, 2); err != nil {
				return err
			}
			lt, err := starlark.Compare(syntax.LT, args[0], args[1])
			if err != nil {
				return err
			}
			if !lt {
				return fmt.Errorf("assert.lt: %s is not less than %s", args[0].String(), args[1].String())
			}
			return nil
		}),
		"contains": builtin("contains", func(_ *starlark.Thread, args starlark.Tuple) error {
			if err := nargs("contains", args, 2, 2); err != nil {
				return err
			}
			in, err := starlark.Binary(syntax.IN, args[1], args[0])
			if err != nil {
				return err
			}
			if !in.Truth() {
				return fmt.Errorf("assert.contains: %s does not contain %s", args[0].String(), args[1].String())
			}
			return nil
		}),
		"fails": builtin("fails", func(thread *starlark.Thread, args starlark.Tuple) error {
			if err := nargs("fails", args, 2, 2); err != nil {
				return err
			}
			pattern, ok := starlark.AsString(args[1])
			if !ok {
				return fmt.Errorf("assert.fails: pattern must be a string")
			}
			re, err := regexp.Compile(pattern)
			if err != nil {
				return fmt.Errorf("assert.fails: bad pattern: %v", err)
			}
			_, callErr := starlark.Call(thread, args[0], nil, nil)
			if callErr == nil {
				return fmt.Errorf("assert.fails: evaluation succeeded unexpectedly (want error matching %q)",
					pattern)
			}
			msg := callErr.Error()
			var evalErr *starlark.EvalError
			if errors.As(callErr, &evalErr) {
				msg = evalErr.Msg
			}
			if !re.MatchString(msg) {
				return fmt.Errorf("assert.fails: regular expression (%s) did not match error (%s)", pattern, msg)
			}
			return nil
		}),
	}
	return &starlarkstruct.Module{Name: "assert", Members: members}
}

func freezeBuiltin() *starlark.Builtin {
	return starlark.NewBuiltin("freeze", func(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple,
		kwargs []starlark.Tuple) (starlark.Value, error) {
		if len(args) != 1 || len(kwargs) != 0 {
			return nil, fmt.Errorf("freeze: want exactly one argument")
		}
		args[0].Freeze()
		return args[0], nil
	})
}

// runChunk returns "" on success, or why the chunk failed.
func runChunk(filename string, c chunk) string {
	opts := &syntax.FileOptions{
		Set:             c.options["set"],
		While:           c.options["while"],
		TopLevelControl: c.options["toplevelcontrol"],
		GlobalReassign:  c.options["globalreassign"],
		Recursion:       c.options["recursion"],
	}
	predeclared := starlark.StringDict{
		"assert": makeAssert(),
		"freeze": freezeBuiltin(),
		"json":   json.Module,
		"math":   starlarkmath.Module,
	}
	thread := &starlark.Thread{Name: "refcheck", Print: func(*starlark.Thread, string) {}}
	thread.Load = makeLoader(opts, predeclared)
	_, err := starlark.ExecFileOptions(opts, thread, filename, c.source, predeclared)
	if err == nil {
		if len(c.expect) > 0 {
			return "succeeded, but an error was expected"
		}
		return ""
	}
	line, msg := errorLine(filename, err)
	if len(c.expect) == 0 {
		return fmt.Sprintf("unexpected error at line %d: %s", line, msg)
	}
	pattern, ok := c.expect[line]
	if !ok {
		return fmt.Sprintf("error at line %d, but expected at line(s) %v: %s", line, keys(c.expect), msg)
	}
	re, rerr := regexp.Compile(pattern)
	if rerr != nil {
		return fmt.Sprintf("bad ### pattern at line %d: %v", line, rerr)
	}
	if !re.MatchString(msg) {
		return fmt.Sprintf("error at line %d does not match /%s/: %s", line, pattern, msg)
	}
	return ""
}

// modulesDir holds the modules that chunks may load; set from the first file's directory.
var modulesDir string

// makeLoader returns a load hook that runs modules from modulesDir, each at most once per chunk.
func makeLoader(opts *syntax.FileOptions, predeclared starlark.StringDict) func(*starlark.Thread, string) (starlark.StringDict, error) {
	cache := map[string]starlark.StringDict{}
	var load func(*starlark.Thread, string) (starlark.StringDict, error)
	load = func(_ *starlark.Thread, module string) (starlark.StringDict, error) {
		if g, ok := cache[module]; ok {
			return g, nil
		}
		data, err := os.ReadFile(filepath.Join(modulesDir, module))
		if err != nil {
			return nil, fmt.Errorf("no such module")
		}
		thread := &starlark.Thread{Name: module, Print: func(*starlark.Thread, string) {}, Load: load}
		globals, err := starlark.ExecFileOptions(opts, thread, module, data, predeclared)
		if err != nil {
			return nil, err
		}
		cache[module] = globals
		return globals, nil
	}
	return load
}

func keys(m map[int]string) []int {
	var out []int
	for k := range m {
		out = append(out, k)
	}
	return out
}

// errorLine extracts the line the error is reported at and its bare message.
func errorLine(filename string, err error) (int, string) {
	var synErr syntax.Error
	if errors.As(err, &synErr) {
		return int(synErr.Pos.Line), synErr.Msg
	}
	var resErrs resolve.ErrorList
	if errors.As(err, &resErrs) && len(resErrs) > 0 {
		msg := resErrs[0].Msg
		if len(resErrs) > 1 {
			msg += fmt.Sprintf(" (and %d more resolve errors)", len(resErrs)-1)
		}
		return int(resErrs[0].Pos.Line), msg
	}
	var evalErr *starlark.EvalError
	if errors.As(err, &evalErr) {
		for i := range evalErr.CallStack {
			pos := evalErr.CallStack.At(i).Pos
			if pos.Filename() == filename && pos.Line > 0 {
				return int(pos.Line), evalErr.Msg
			}
		}
		return 0, evalErr.Msg
	}
	return 0, err.Error()
}

func main() {
	verbose := flag.Bool("v", false, "print every chunk")
	flag.Parse()
	total, passed, skipped := 0, 0, 0
	for _, path := range flag.Args() {
		data, err := os.ReadFile(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		filename := filepath.Base(path)
		if modulesDir == "" {
			modulesDir = filepath.Join(filepath.Dir(path), "modules")
		}
		for _, c := range splitChunks(string(data)) {
			if c.skip {
				skipped++
				continue
			}
			total++
			if why := runChunk(filename, c); why != "" {
				fmt.Printf("FAIL %s:%d: %s\n", filename, c.start, why)
			} else {
				passed++
				if *verbose {
					fmt.Printf("ok   %s:%d\n", filename, c.start)
				}
			}
		}
	}
	fmt.Printf("reference (go.starlark.net): %d/%d chunks pass, %d skipped, %d assertions executed\n",
		passed, total, skipped, assertCount)
	if passed != total {
		os.Exit(1)
	}
}
