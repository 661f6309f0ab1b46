package main

import (
	"bufio"
	"bytes"
	"cmp"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"clusteremu/actors"
	"clusteremu/cluster"
)

// links.csv is what each link carried in each sampled window, the links
// that carried nothing left out, written window by window as the run
// samples them (RunOptions.OnLinks). It is the largest of the files (a
// row per busy link and second), so a row is written field by field
// rather than through encoding/csv; no field needs quoting.
const linksHeader = "from,to,link,capacity,carried,utilisation\n"

// linkWindow is the window over which links.csv and trace.json average
// each link's utilisation.
const linkWindow = time.Second

// linkLog writes links.csv as samples arrive and keeps what the trace and
// the report need of them at the end: every window's bounds (16 bytes a
// window), the rack links' bytes in every window (8 bytes a rack link and
// window; 61 links for 20 racks) and every link's utilisation summed over
// the windows (8 bytes a link), which ranks the other links. The busiest
// of those are read back from links.csv at the end.
type linkLog struct {
	file    *streamFile
	names   []string
	cap     []float64
	windows []window
	racks   []int   // the rack uplinks and downlinks and the core, by LinkID
	carried []int64 // the racks' bytes, window after window
	useSum  []float64
	buf     []byte
}

// window is a sampled window's bounds.
type window struct{ from, to time.Duration }

// createLinkLog starts links.csv at path.
func createLinkLog(path string) (*linkLog, error) {
	f, err := createStream(path)
	if err != nil {
		return nil, err
	}
	f.write([]byte(linksHeader))
	return &linkLog{file: f}, nil
}

// name takes the links' names and capacities, once the cluster is built
// and before it samples them.
func (l *linkLog) name(links cluster.LinkSeries) {
	l.names, l.cap = links.Names, links.Capacity
	l.useSum = make([]float64, len(l.names))
	l.racks = nil
	for i, name := range l.names {
		if isRackLink(name) {
			l.racks = append(l.racks, i)
		}
	}
}

// isRackLink tells a rack's uplink or downlink or the core, which the
// trace and the report show whatever they carried.
func isRackLink(name string) bool {
	return strings.HasSuffix(name, "uplink") || strings.HasSuffix(name, "downlink") || name == "core"
}

// sampled writes a window's rows and keeps its summary.
func (l *linkLog) sampled(s actors.LinkSample) {
	l.windows = append(l.windows, window{s.From, s.To})
	for _, i := range l.racks {
		l.carried = append(l.carried, s.Carried[i])
	}
	for i, b := range s.Carried {
		if b == 0 || i >= len(l.names) {
			continue
		}
		u := l.use(b, i, window{s.From, s.To})
		l.useSum[i] += u
		buf := strconv.AppendFloat(l.buf[:0], s.From.Seconds(), 'f', 6, 64)
		buf = append(buf, ',')
		buf = strconv.AppendFloat(buf, s.To.Seconds(), 'f', 6, 64)
		buf = append(append(append(buf, ','), l.names[i]...), ',')
		buf = strconv.AppendFloat(buf, l.cap[i], 'g', -1, 64)
		buf = append(buf, ',')
		buf = strconv.AppendInt(buf, b, 10)
		buf = append(buf, ',')
		buf = strconv.AppendFloat(buf, u, 'f', 6, 64)
		l.buf = append(buf, '\n')
		l.file.write(l.buf)
	}
}

// use is link i's utilisation of b bytes over w.
func (l *linkLog) use(b int64, i int, w window) float64 {
	return cluster.LinkUtilisation(b, l.cap[i], w.from, w.to)
}

// rackUse is the k-th rack link's utilisation in window w.
func (l *linkLog) rackUse(k, w int) float64 {
	return l.use(l.carried[w*len(l.racks)+k], l.racks[k], l.windows[w])
}

// busiest are the links besides the racks' own that carried something,
// by utilisation over the run, the busiest first, at most n.
func (l *linkLog) busiest(n int) []int {
	var others []int
	for i, name := range l.names {
		if name != "" && !isRackLink(name) && l.useSum[i] > 0 {
			others = append(others, i)
		}
	}
	slices.SortStableFunc(others, func(a, b int) int { return cmp.Compare(l.useSum[b], l.useSum[a]) })
	return others[:min(len(others), n)]
}

// series returns the links' bytes in every window, read back from
// links.csv (at path, written whole): a row's window is found by its
// "from" field, which names one window, as windows are at least a
// sampling period apart.
func (l *linkLog) series(path string, links []int) ([][]int64, error) {
	out := make([][]int64, len(links))
	want := map[string]int{}
	for k, i := range links {
		out[k] = make([]int64, len(l.windows))
		want[l.names[i]] = k
	}
	if len(links) == 0 {
		return out, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	w := 0
	for n := 1; sc.Scan(); n++ {
		row := sc.Bytes()
		from, rest, _ := bytes.Cut(row, comma)
		_, rest, _ = bytes.Cut(rest, comma)
		link, rest, _ := bytes.Cut(rest, comma)
		k, ok := want[string(link)]
		if n == 1 || !ok {
			continue
		}
		for w < len(l.windows) && secs(l.windows[w].from) != string(from) {
			w++
		}
		_, rest, _ = bytes.Cut(rest, comma)
		carried, _, _ := bytes.Cut(rest, comma)
		b, err := strconv.ParseInt(string(carried), 10, 64)
		if w == len(l.windows) || err != nil {
			return nil, fmt.Errorf("%s:%d: not a row of a sampled window: %s", path, n, row)
		}
		out[k][w] = b
	}
	return out, sc.Err()
}

var comma = []byte{','}
