// Package docs checks the repository's Markdown: every relative link and
// anchor resolves, and the README's table of reproductions counts the rows
// and known failures the scenario files hold.
package docs

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"clusteremu/scenarios"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// root is the repository, the parent of this package's directory.
const root = ".."

var (
	linkRe     = regexp.MustCompile(`\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	codeSpanRe = regexp.MustCompile("`[^`]*`")
	headLinkRe = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
)

// page is one Markdown file: its headings' anchors and its links, each
// with the line it is on.
type page struct {
	anchors map[string]bool
	links   []link
}

type link struct {
	line   int
	target string
}

// slug is the anchor GitHub gives a heading: lower case, letters, digits,
// hyphens and underscores kept, each space a hyphen, the rest dropped.
func slug(heading string) string {
	heading = headLinkRe.ReplaceAllString(heading, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case unicode.IsLetter(r), unicode.IsDigit(r), r == '-', r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

func readPage(t *testing.T, path string) page {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	p := page{anchors: map[string]bool{}}
	seen := map[string]int{}
	fenced := false
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		if strings.HasPrefix(line, "#") {
			s := slug(strings.TrimLeft(line, "# "))
			if k := seen[s]; k > 0 {
				p.anchors[s+"-"+strconv.Itoa(k)] = true
			} else {
				p.anchors[s] = true
			}
			seen[s]++
		}
		for _, m := range linkRe.FindAllStringSubmatch(codeSpanRe.ReplaceAllString(line, ""), -1) {
			p.links = append(p.links, link{line: n, target: m[1]})
		}
	}
	require.NoError(t, sc.Err())
	require.False(t, fenced, "%s: a code fence is never closed", path)
	return p
}

// markdown lists the repository's Markdown files, test data aside.
func markdown(t *testing.T) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "bin") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".md") {
			files = append(files, path)
		}
		return nil
	})
	require.NoError(t, err)
	sort.Strings(files)
	return files
}

func TestSlugIsGitHubs(t *testing.T) {
	for heading, want := range map[string]string{
		"Replication by popularity (Scarlett)":             "replication-by-popularity-scarlett",
		"Queueing theory's closed forms":                   "queueing-theorys-closed-forms",
		"Scale: a day of trace, 3,000 nodes, 10,000 nodes": "scale-a-day-of-trace-3000-nodes-10000-nodes",
		"LAS_MQ and its baselines (Hu et al.)":             "las_mq-and-its-baselines-hu-et-al",
		"Álvarez-Tabío et al.: `[qos]` classes":            "álvarez-tabío-et-al-qos-classes",
		"See [the notes](x.md) first":                      "see-the-notes-first",
	} {
		assert.Equal(t, want, slug(heading), heading)
	}
}

// broken follows every relative link of the given Markdown files: the file
// or directory it names exists, and an anchor names a heading of the page
// it points into. It returns what does not resolve and how many links it
// followed.
func broken(t *testing.T, files []string) (errs []string, followed int) {
	t.Helper()
	pages := map[string]page{}
	for _, f := range files {
		pages[filepath.Clean(f)] = readPage(t, f)
	}
	for _, f := range files {
		for _, l := range pages[filepath.Clean(f)].links {
			if strings.Contains(l.target, "://") || strings.HasPrefix(l.target, "mailto:") {
				continue
			}
			followed++
			path, anchor, _ := strings.Cut(l.target, "#")
			dest := filepath.Clean(f)
			if path != "" {
				dest = filepath.Clean(filepath.Join(filepath.Dir(f), path))
				if _, err := os.Stat(dest); err != nil {
					errs = append(errs, fmt.Sprintf("%s:%d: link %q: no such file or directory", f, l.line, l.target))
					continue
				}
			}
			if anchor == "" {
				continue
			}
			if p, ok := pages[dest]; !ok {
				errs = append(errs, fmt.Sprintf("%s:%d: link %q: an anchor into a file that is not Markdown", f, l.line, l.target))
			} else if !p.anchors[anchor] {
				errs = append(errs, fmt.Sprintf("%s:%d: link %q: %s has no heading with that anchor", f, l.line, l.target, dest))
			}
		}
	}
	return errs, followed
}

// TestLinksResolve checks every Markdown file of the repository.
func TestLinksResolve(t *testing.T) {
	files := markdown(t)
	require.Contains(t, files, filepath.Join(root, "README.md"))
	errs, followed := broken(t, files)
	for _, e := range errs {
		t.Error(e)
	}
	assert.Greater(t, followed, 50, "the README alone links more than this: the link pattern has stopped matching")
}

func TestBrokenLinksAreFound(t *testing.T) {
	dir := t.TempDir()
	a := "# Top\n\nSee [above](#top), [b](b.md#two-words), [a file](gone.md), [there](#nowhere) and [b's](b.md#none).\n\n```\n[not a link](gone.md)\n```\n"
	b := "## Two words\n\n[`code`](a.md) and `[not a link](gone.md)`\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.md"), []byte(a), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "b.md"), []byte(b), 0o644))
	errs, followed := broken(t, []string{filepath.Join(dir, "a.md"), filepath.Join(dir, "b.md")})
	assert.Equal(t, 6, followed)
	require.Len(t, errs, 3)
	assert.Contains(t, errs[0], `a.md:3: link "gone.md": no such file`)
	assert.Contains(t, errs[1], `a.md:3: link "#nowhere"`)
	assert.Contains(t, errs[2], `a.md:3: link "b.md#none"`)
}

// TestReproductionTallies holds the README's table of reproductions to the
// scenario files: each row that links a scenario directory gives the rows
// (expectations) its files hold and how many carry a known cause.
func TestReproductionTallies(t *testing.T) {
	f, err := os.ReadFile(filepath.Join(root, "README.md"))
	require.NoError(t, err)
	dirRe := regexp.MustCompile(`\]\((scenarios/(?:papers/[a-z0-9-]+|validation)/)\)`)
	var rowsCol, knownCol = -1, -1
	tallied, totalRows, totalKnown := 0, 0, 0
	for n, line := range strings.Split(string(f), "\n") {
		if !strings.HasPrefix(line, "|") {
			rowsCol, knownCol = -1, -1
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		if rowsCol < 0 {
			for i, c := range cells {
				switch c {
				case "rows":
					rowsCol = i
				case "known failing":
					knownCol = i
				}
			}
			continue
		}
		if knownCol < 0 {
			continue
		}
		m := dirRe.FindStringSubmatch(line)
		if m == nil {
			if cells[0] == "all" {
				assert.Equal(t, strconv.Itoa(totalRows), cells[rowsCol], "README.md:%d: the total's rows", n+1)
				assert.Equal(t, strconv.Itoa(totalKnown), cells[knownCol], "README.md:%d: the total's known failures", n+1)
			}
			continue
		}
		rows, known := tally(t, filepath.Join(root, m[1]))
		totalRows += rows
		totalKnown += known
		tallied++
		assert.Equal(t, strconv.Itoa(rows), cells[rowsCol], "README.md:%d: %s's rows", n+1, m[1])
		assert.Equal(t, strconv.Itoa(known), cells[knownCol], "README.md:%d: %s's known failures", n+1, m[1])
	}
	entries, err := os.ReadDir(filepath.Join(root, "scenarios", "papers"))
	require.NoError(t, err)
	assert.Equal(t, len(entries)+1, tallied, "every paper's directory and the validations have a row in the README's table")
}

func tally(t *testing.T, dir string) (rows, known int) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.toml"))
	require.NoError(t, err)
	require.NotEmpty(t, files, dir)
	for _, file := range files {
		s, err := scenarios.LoadFile(file)
		require.NoError(t, err)
		rows += len(s.Expect)
		for _, e := range s.Expect {
			if e.Known != "" {
				known++
			}
		}
	}
	return rows, known
}
